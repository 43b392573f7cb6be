"""Jobs that load a model for the Summaries panel (writing summaries with a VLM, comparing
them by ViSIL): one at a time, in a child process (loading a model holds the GIL as long
as analysis does; see background.py), driven by a worker on a QThread. The GUI thread
only starts, cancels and receives signals."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal, Slot

from ...pipeline import CancelToken
from ...pipeline.child import run_summaries, run_visil
from ...records import Analysis, Summary
from ...summary.compare import Reference
from .background import ChildTasks, ChildWorker


@dataclass(frozen=True)
class ModelJobRequest:
    what: str  # names the job in messages: "ViSIL scoring", "summary writing"
    video_path: str
    target: Callable  # a pipeline.child entry point: target(*args, conn, cancel_event)
    args: tuple
    context: object = None  # for the receiver: the document the result belongs to, say


def scoring_request(analysis: Analysis, video_path: str, summaries: tuple[Summary, ...], scorer_spec: str,
                    reference: Reference | None) -> ModelJobRequest:
    """Compare ``summaries`` by ViSIL with ``scorer_spec`` ("builtin" or a VLM folder);
    ``reference`` None lets summary.compare.prepare choose one."""
    return ModelJobRequest("ViSIL scoring", video_path, run_visil,
                           (analysis, video_path, list(summaries), scorer_spec, reference))


def writing_request(analysis: Analysis, video_path: str, formats: list[tuple[str, int]], writer_spec: str,
                    context: object = None) -> ModelJobRequest:
    """Write summaries of these (format, keyframes) with the VLM in folder ``writer_spec``."""
    return ModelJobRequest("summary writing", video_path, run_summaries,
                           (analysis, video_path, formats, writer_spec), context)


class _Worker(ChildWorker):
    progress = Signal(float, str)

    def __init__(self, request: ModelJobRequest) -> None:
        super().__init__()
        self.request = request
        self.what = request.what
        self.cancel = CancelToken()

    @Slot()
    def run(self) -> None:
        r = self.request
        self.run_in_child(r.target, r.args, r.video_path, lambda: self.cancel.cancelled)

    def on_message(self, kind: str, payload) -> None:
        if kind == "progress":
            self.progress.emit(*payload)


class ModelJob(QObject):
    """Runs one request at a time; emits its progress and outcome in the GUI thread
    (``request`` is the one that produced them until the outcome's receivers return)."""

    progress = Signal(float, str)  # fraction, message
    finished = Signal(object)  # the child's result: a summary.compare.Comparison, a list of Summaries
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.request: ModelJobRequest | None = None  # the one running
        self.tasks = ChildTasks(self)
        self.tasks.ended.connect(self._ended)

    @property
    def running(self) -> bool:
        return self.tasks.running

    def start(self, request: ModelJobRequest) -> bool:
        if self.running:
            return False
        self.request = request
        self.tasks.start(_Worker(request), lambda worker: worker.progress.connect(self._on_progress))
        return True

    def cancel(self) -> None:
        if self.tasks.worker is not None:
            self.tasks.worker.cancel.cancel()

    @Slot(float, str)
    def _on_progress(self, fraction: float, message: str) -> None:
        self.progress.emit(fraction, message)

    def _ended(self, outcome: str, args: tuple) -> None:
        """The outcome (see ChildTasks), emitted while ``request`` is still the one it answers."""
        getattr(self, outcome).emit(*args)  # finished, failed or cancelled
        self.request = None

    def shutdown(self, timeout_ms: int = 3000) -> None:
        """At quit: cancel, and stop the child if it will not stop by itself."""
        self.cancel()
        self.tasks.shutdown(timeout_ms)
