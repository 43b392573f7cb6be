"""How the window runs work off the GUI thread. Results always come back as queued
signals: the GUI thread never waits on a worker (except, briefly, at quit).

- ChildWorker + ChildTasks: work that holds Python's GIL for long (analysis, loading a
  model: torch, dlib, decoders). It runs in a spawned child process, so the window stays
  responsive and a native crash in the child leaves it running; a worker object on a
  QThread watches the child's pipe. One task at a time per ChildTasks: the analysis queue
  (jobs.py) and the Summaries panel's model jobs (model_job.py). The child's entry point
  (see ``pipeline.child``) takes its arguments then ``(conn, cancel_event)``, sends
  ``(kind, payload)`` messages through the pipe and ends with one of ("done", result),
  ("failed", message) or ("cancelled", None).
- Decoder threads: a worker object on a QThread serving requests for frames of a video
  (thumbnails.py, stills.py), closed without waiting (close_worker_thread).
- ThreadTask: one function on a thread of its own, for in-process work short enough not
  to need a process (writing a PDF report).

The library is the one long-lived service process: library_client.py keeps its pipe on a
QThread of its own and matches replies to requests.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable

from PySide6.QtCore import QObject, QThread, Signal, Slot

OUTCOMES = ("done", "failed", "cancelled")
POLL_SECONDS = 0.05  # how soon a cancel request reaches the child


class ChildWorker(QObject):
    """Base of the workers: its ``run`` (a slot, started with the thread) calls
    ``run_in_child``, which starts the process and reads its pipe until the outcome,
    handing other messages to ``on_message``."""

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


class ChildTasks(QObject):
    """One ChildWorker at a time, each on a QThread of its own. ``start`` moves the worker
    onto a new thread, lets the owner connect its signals, and runs it; the owner calls
    ``retire`` from the slot that receives the outcome (the worker's run has returned, so
    its thread stops at once and is deleted once stopped); ``shutdown`` at quit."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.worker: ChildWorker | None = None  # the one running
        self._thread: QThread | None = None
        self._retired: list[tuple[QThread, ChildWorker]] = []  # until their threads have stopped

    @property
    def running(self) -> bool:
        return self.worker is not None

    def start(self, worker: ChildWorker, connect: Callable[[ChildWorker], None]) -> None:
        thread = QThread()
        worker.moveToThread(thread)
        thread.started.connect(worker.run)
        connect(worker)  # to bound slots of GUI-thread objects: Qt queues the calls into the GUI thread
        thread.finished.connect(self._forget_stopped)
        self._thread, self.worker = thread, worker
        thread.start()

    def retire(self) -> None:
        if self._thread is not None:
            self._retired.append((self._thread, self.worker))
            self._thread.quit()
        self._thread = self.worker = None

    @Slot()
    def _forget_stopped(self) -> None:
        for thread, _ in self._retired:
            if thread.isFinished():
                thread.deleteLater()  # the worker (no parent) goes with the last Python reference
        self._retired = [(t, w) for t, w in self._retired if not t.isFinished()]

    def shutdown(self, timeout_ms: int = 3000) -> None:
        """At quit (after cancelling): give each thread a moment to stop; a child still busy
        after that (loading a model, say) is terminated. Cache writes are atomic, so
        nothing is left half-written."""
        for thread, worker in [(self._thread, self.worker)] + self._retired:
            if thread is not None:
                _stop_worker_thread(thread, worker, timeout_ms)


def _stop_worker_thread(thread: QThread, worker: ChildWorker, timeout_ms: int) -> None:
    """At quit: give the worker's thread a moment to stop; a child still busy after that
    (loading a model, say) is terminated."""
    thread.quit()
    if not thread.wait(timeout_ms) and worker.child is not None:
        worker.child.terminate()
        thread.wait(timeout_ms)


# Closed decoders' threads (with their workers) until they have stopped: a QThread
# destroyed while it runs aborts the process.
_stopping: list[tuple[QThread, QObject]] = []


def _forget_closed() -> None:
    _stopping[:] = [(thread, worker) for thread, worker in _stopping if not thread.isFinished()]


def close_worker_thread(thread: QThread, worker: QObject, shutdown) -> None:
    """Stop a decoder's thread without waiting for it: ``shutdown`` (a signal to the
    worker) ends its loop, the decode in progress is abandoned at its next frame, and the
    thread is kept alive until it has stopped."""
    _stopping.append((thread, worker))
    thread.finished.connect(_forget_closed)
    thread.requestInterruption()
    shutdown.emit()


def wait_for_closed_threads(timeout_ms: int = 2000) -> None:
    """At quit: give the threads of closed decoders a moment to stop."""
    for thread, _ in list(_stopping):
        thread.wait(timeout_ms)
    _forget_closed()


class ThreadTask(QThread):
    """``work()`` on a thread of its own; ``done(result, problem)`` arrives in the GUI
    thread, ``problem`` "" when it worked. ``errors`` are the exceptions that become a
    problem (one line); any other is a bug and goes to the failure reporter."""

    done = Signal(object, str)

    def __init__(self, work: Callable[[], object], errors: tuple[type[Exception], ...],
                 describe: Callable[[Exception], str] = str) -> None:
        super().__init__()
        self.work, self.errors, self.describe = work, errors, describe

    def run(self) -> None:
        try:
            result = self.work()
        except self.errors as exc:
            self.done.emit(None, self.describe(exc))
            return
        self.done.emit(result, "")
