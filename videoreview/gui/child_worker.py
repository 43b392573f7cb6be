"""Work that runs in a spawned child process, watched by a worker object on a QThread.

Analysis and model loading hold Python's GIL for hundreds of ms at a time (torch, dlib,
decoders), which would freeze the window if they ran on a thread of its own process; a
native crash in the child also leaves the window running. The child's entry point (see
``pipeline.child``) takes its arguments then ``(conn, cancel_event)``, sends
``(kind, payload)`` messages through the pipe and ends with one of ("done", result),
("failed", message) or ("cancelled", None). The worker turns them into signals, which Qt
queues into the GUI thread; the GUI thread never waits on the pipe.
"""

from __future__ import annotations

import multiprocessing
from typing import Callable

from PySide6.QtCore import QObject, QThread, Signal

OUTCOMES = ("done", "failed", "cancelled")
POLL_SECONDS = 0.05  # how soon a cancel request reaches the child


class ChildWorker(QObject):
    """Base of the workers: ``run_in_child`` starts the process and reads its pipe until
    the outcome, handing other messages to ``on_message``."""

    finished = Signal(object)  # the child's result
    failed = Signal(str)  # one line naming the problem
    cancelled = Signal()

    what = "background"  # names the process in messages: "the analysis process stopped ..."

    def __init__(self) -> None:
        super().__init__()
        self.child = None  # the process while it runs (terminated at quit if it will not stop)

    def on_message(self, kind: str, payload) -> None:
        """A message before the outcome (progress, partial results)."""

    def run_in_child(self, target, args: tuple, subject: str, cancel_requested: Callable[[], bool]) -> None:
        """Run ``target(*args, conn, cancel_event)`` in a child process and emit its outcome.
        ``cancel_requested`` is polled; once true, the child's event is set. ``subject``
        (usually the video's path) starts the message if the child dies."""
        context = multiprocessing.get_context("spawn")  # no fork: the parent has Qt threads
        receive, send = context.Pipe(duplex=False)
        stop = context.Event()
        child = context.Process(target=target, args=(*args, send, stop), daemon=True,
                                name=f"videoreview-{self.what.replace(' ', '-').lower()}")
        child.start()
        self.child = child
        send.close()  # the child holds the only writing end: EOF when it exits
        outcome = None
        while outcome is None:
            if cancel_requested():
                stop.set()
            if not receive.poll(POLL_SECONDS):
                continue
            try:
                kind, payload = receive.recv()
            except (EOFError, OSError):
                child.join(5)
                outcome = ("failed", f"{subject}: the {self.what} process stopped unexpectedly "
                                     f"(exit code {child.exitcode})")
                break
            if kind in OUTCOMES:
                outcome = (kind, payload)
            else:
                self.on_message(kind, payload)
        receive.close()
        child.join(10)
        kind, payload = outcome
        if kind == "done":
            self.finished.emit(payload)
        elif kind == "cancelled":
            self.cancelled.emit()
        else:
            self.failed.emit(payload)


def stop_worker_thread(thread: QThread, worker: ChildWorker, timeout_ms: int) -> None:
    """At quit: give the worker's thread a moment to stop; a child still busy after that
    (loading a model, say) is terminated."""
    thread.quit()
    if not thread.wait(timeout_ms) and worker.child is not None:
        worker.child.terminate()
        thread.wait(timeout_ms)
