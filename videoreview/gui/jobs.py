"""Background analysis: one video at a time on a QThread, the rest queued.

A worker object lives in its own QThread and talks to the GUI only through queued
signals; the GUI thread never waits on it (cancel sets a token the pipeline checks
between batches). A video analysed before shows its saved Analysis at once and is then
brought up to date from the stage cache; a new one fills in stage by stage.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, QThread, Signal, Slot

from ..errors import Cancelled, MediaError, VideoReviewError
from ..pipeline import CancelToken, StageCache, analyze, build_stages, store
from ..records import Analysis

PROGRESS_INTERVAL = 0.05  # seconds between progress signals: enough for a smooth bar


@dataclass
class Job:
    path: str
    engines: dict[str, str]
    previous: Analysis | None = None  # the reviewer's current state: its edits are kept
    cancel: CancelToken = field(default_factory=CancelToken)
    stage_names: list[str] = field(default_factory=list)


@dataclass
class JobProgress:
    path: str
    stage: str
    stage_fraction: float
    fraction: float  # of the whole video
    message: str
    eta: float | None  # seconds left for the whole video, None until it can be estimated
    stage_eta: float | None


class _Worker(QObject):
    progress = Signal(object)  # JobProgress
    partial = Signal(object)  # Analysis so far
    finished = Signal(object)  # the final Analysis (already saved)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, job: Job) -> None:
        super().__init__()
        self.job = job
        self._last_emit = 0.0

    @Slot()
    def run(self) -> None:
        job = self.job
        try:
            stages = build_stages(job.engines)
            job.stage_names = ["probe"] + [s.name for s in stages]
            cache = StageCache()
            saved = job.previous or self._saved(cache)
            if saved is not None:
                self.partial.emit(saved)  # reopening is instant; the run below only tops it up
            started = time.monotonic()
            stage_started: dict[str, float] = {}

            def progress(stage: str, fraction: float, message: str) -> None:
                now = time.monotonic()
                stage_started.setdefault(stage, now)
                if now - self._last_emit < PROGRESS_INTERVAL and fraction < 1.0:
                    return
                self._last_emit = now
                fraction = max(0.0, min(1.0, fraction))
                index = job.stage_names.index(stage) if stage in job.stage_names else 0
                overall = (index + fraction) / len(job.stage_names)
                self.progress.emit(JobProgress(
                    job.path, stage, fraction, overall, message,
                    _eta(now - started, overall), _eta(now - stage_started[stage], fraction)))

            analysis = analyze(job.path, progress=progress, cancel=job.cancel, cache=cache,
                               previous=saved, stages=stages,
                               on_stage=None if saved is not None else self.partial.emit)
            job.cancel.check()
            store.save(analysis)
            self.finished.emit(analysis)
        except Cancelled:
            self.cancelled.emit()
        except VideoReviewError as exc:
            self.failed.emit(str(exc))
        except Exception as exc:  # a bug must not take the window down: report it
            traceback.print_exc()
            self.failed.emit(f"{job.path}: unexpected error: {exc!r}")

    def _saved(self, cache: StageCache) -> Analysis | None:
        try:
            content_hash = cache.content_hash(self.job.path)
        except OSError as exc:
            raise MediaError(self.job.path, exc.strerror or str(exc)) from None
        try:
            return store.load_saved(content_hash)
        except VideoReviewError:
            return None  # a damaged saved file is rebuilt by this run


def _eta(elapsed: float, fraction: float) -> float | None:
    if fraction < 0.02 or elapsed < 0.5:
        return None
    return elapsed * (1.0 - fraction) / fraction


class AnalysisQueue(QObject):
    """Jobs run one after another (analysis uses every core); signals carry the path."""

    progress = Signal(object)  # JobProgress
    partial = Signal(str, object)  # path, Analysis so far
    finished = Signal(str, object)  # path, final Analysis
    failed = Signal(str, str)  # path, one-line message
    cancelled = Signal(str)
    queueChanged = Signal()

    def __init__(self, engines: dict[str, str], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engines = engines
        self.pending: list[Job] = []
        self.current: Job | None = None
        self._thread: QThread | None = None
        self._worker: _Worker | None = None
        self._retired: list[tuple[QThread, _Worker]] = []  # finished threads until they stop

    def enqueue(self, path: str, previous: Analysis | None = None) -> None:
        if self.is_queued(path):
            return
        self.pending.append(Job(path, dict(self.engines), previous))
        self.queueChanged.emit()
        self._start_next()

    def is_queued(self, path: str) -> bool:
        return any(job.path == path for job in self.jobs())

    def jobs(self) -> list[Job]:
        return ([self.current] if self.current else []) + self.pending

    def cancel(self, path: str) -> None:
        """Cancel a video's job; a running one stops at its next batch and emits cancelled."""
        for job in self.pending:
            if job.path == path:
                self.pending.remove(job)
                self.queueChanged.emit()
                self.cancelled.emit(path)
                return
        if self.current is not None and self.current.path == path:
            self.current.cancel.cancel()

    def cancel_all(self) -> None:
        for job in list(self.pending):
            self.cancel(job.path)
        if self.current is not None:
            self.current.cancel.cancel()

    def is_idle(self) -> bool:
        return self.current is None and not self.pending

    def _start_next(self) -> None:
        if self.current is not None or not self.pending:
            return
        job = self.current = self.pending.pop(0)
        thread, worker = QThread(), _Worker(job)
        worker.moveToThread(thread)
        thread.started.connect(worker.run)
        # Bound slots of this GUI-thread object: Qt queues the calls into the GUI thread.
        worker.progress.connect(self._on_progress)
        worker.partial.connect(self._on_partial)
        worker.finished.connect(self._on_finished)
        worker.failed.connect(self._on_failed)
        worker.cancelled.connect(self._on_cancelled)
        thread.finished.connect(self._on_thread_stopped)
        self._thread, self._worker = thread, worker
        thread.start()
        self.queueChanged.emit()

    @Slot(object)
    def _on_progress(self, progress: JobProgress) -> None:
        self.progress.emit(progress)

    @Slot(object)
    def _on_partial(self, analysis: Analysis) -> None:
        if self.current is not None:
            self.partial.emit(self.current.path, analysis)

    @Slot(object)
    def _on_finished(self, analysis: Analysis) -> None:
        self._done(self.finished, analysis)

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self._done(self.failed, message)

    @Slot()
    def _on_cancelled(self) -> None:
        self._done(self.cancelled)

    def _done(self, signal, *payload) -> None:
        job, self.current = self.current, None
        thread, worker = self._thread, self._worker
        self._thread = self._worker = None
        if thread is not None:
            self._retired.append((thread, worker))
            thread.quit()  # the worker's run() has returned: the thread stops at once
        signal.emit(job.path, *payload)
        self.queueChanged.emit()
        self._start_next()

    @Slot()
    def _on_thread_stopped(self) -> None:
        stopped = [(t, w) for t, w in self._retired if t.isFinished()]
        self._retired = [(t, w) for t, w in self._retired if not t.isFinished()]
        for thread, _ in stopped:
            thread.deleteLater()  # the worker (no parent) goes with the last Python reference

    def shutdown(self, timeout_ms: int = 5000) -> None:
        """At quit: cancel everything and give the running job a moment to stop."""
        self.cancel_all()
        for thread in [self._thread] + [t for t, _ in self._retired]:
            if thread is not None:
                thread.quit()
                thread.wait(timeout_ms)
