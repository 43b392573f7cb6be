"""Background analysis: one video at a time, the rest queued.

A worker object in its own QThread runs the job in a child process (background.py's
ChildTasks) and talks to the GUI only through queued signals; the GUI thread never waits
on it (cancel sets an event the pipeline checks between batches). A video analysed
before shows its saved Analysis at once and is then brought up to date from the stage
cache; a new one fills in stage by stage. Its progress is the child's AnalysisProgress
(videoreview/progress.py), emitted as it came through the pipe.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QObject, Signal, Slot

from ...pipeline import CancelToken
from ...pipeline.child import run_analysis
from ...pipeline.store import saved_analysis
from ...records import Analysis
from .background import ChildTasks, ChildWorker


@dataclass
class Job:
    path: str
    engines: dict[str, str] | None  # None: those chosen (see choices.py) when the job starts
    previous: Analysis | None = None  # the reviewer's current state: its edits are kept
    cancel: CancelToken = field(default_factory=CancelToken)


class _Worker(ChildWorker):
    """Runs one job's analysis in a child process (see pipeline.child) and turns its
    messages into signals. Lives in a QThread: waiting on the pipe never blocks the GUI."""

    progress = Signal(object)  # AnalysisProgress, as the child made it
    partial = Signal(object)  # Analysis so far
    notice = Signal(str)  # a chosen engine that cannot be used, and what is used instead
    # finished: the final Analysis (already saved); failed; cancelled (see ChildWorker)

    what = "analysis"

    def __init__(self, job: Job) -> None:
        super().__init__()
        self.job = job

    @Slot()
    def run(self) -> None:
        job = self.job
        if job.previous is None:
            job.previous = saved_analysis(job.path)  # reopening shows it before the child has started
            if job.previous is not None:
                self.partial.emit(job.previous)
        self.run_in_child(run_analysis, (job.path, job.engines, job.previous), job.path,
                          lambda: job.cancel.cancelled)

    def on_message(self, kind: str, payload) -> None:
        if kind == "progress":
            self.progress.emit(payload)
        elif kind == "partial":
            self.partial.emit(payload)
        elif kind == "notice":
            self.notice.emit(payload)


class AnalysisQueue(QObject):
    """Jobs run one after another (analysis uses every core); signals carry the path."""

    progress = Signal(object)  # AnalysisProgress (its path says which video)
    partial = Signal(str, object)  # path, Analysis so far
    finished = Signal(str, object)  # path, final Analysis
    failed = Signal(str, str)  # path, one-line message
    cancelled = Signal(str)
    notice = Signal(str)  # see _Worker.notice
    queueChanged = Signal()

    def __init__(self, engines: dict[str, str] | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engines = engines
        self.pending: list[Job] = []
        self.current: Job | None = None
        self.tasks = ChildTasks(self)
        self.tasks.ended.connect(self._ended)

    def enqueue(self, path: str, previous: Analysis | None = None, front: bool = False) -> None:
        """Queue a video's analysis; ``front``: before the others (a video the user
        opened goes before the library's folder)."""
        waiting = next((job for job in self.pending if job.path == path), None)
        if waiting is not None and front:
            self.pending.remove(waiting)
            self.pending.insert(0, waiting)
            self.queueChanged.emit()
        if self.is_queued(path):
            return
        job = Job(path, dict(self.engines) if self.engines else None, previous)
        self.pending.insert(0 if front else len(self.pending), job)
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
        self.tasks.start(_Worker(job), self._connect)
        self.queueChanged.emit()

    def _connect(self, worker: _Worker) -> None:
        worker.progress.connect(self.progress)
        worker.partial.connect(self._on_partial)
        worker.notice.connect(self.notice)

    @Slot(object)
    def _on_partial(self, analysis: Analysis) -> None:
        if self.current is not None:
            self.partial.emit(self.current.path, analysis)

    def _ended(self, outcome: str, args: tuple) -> None:
        """The running job's outcome (see ChildTasks): passed on with its path, then the next job."""
        job, self.current = self.current, None
        getattr(self, outcome).emit(job.path, *args)  # finished, failed or cancelled
        self.queueChanged.emit()
        self._start_next()

    def shutdown(self, timeout_ms: int = 3000) -> None:
        """At quit: cancel everything and give the running job a moment to stop; an
        analysis process still busy after that (loading a model, say) is terminated
        (its cache writes are atomic, so nothing is left half-written)."""
        self.cancel_all()
        self.tasks.shutdown(timeout_ms)
