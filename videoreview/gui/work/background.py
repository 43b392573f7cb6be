"""How the window runs work off the GUI thread: the one place that says which kind of work
goes where, with the classes for each.

Three rules hold for every kind. Results come back to the GUI thread as queued signals
(or callbacks run there): the GUI thread never waits on a worker, except briefly at quit.
A worker never touches a widget. And a cancel is never waited for: the work stops at its
next check (a command is killed) and its owner hears so by a signal.

Choosing: work that holds the GIL for long (a model, a whole video) is a job in a child
process (1), or a command (2) when a `videoreview` subcommand already does it and prints
the result; a stream of small requests from a view (frames to show) goes to a decoder
thread (3); one short in-process function is a thread task (4); a long-lived process
answering requests is a service (5): there is one, the library.

1. A job in a child process: ChildWorker + ChildTasks.
   Work that holds Python's GIL for long: analysis, loading a model (torch, dlib,
   decoders). On a thread it would freeze the window; in a spawned child the window stays
   responsive, and a native crash in the child leaves it running. The child's entry point
   (``pipeline.child``) takes its arguments then ``(conn, cancel_event)``, sends
   ``(kind, payload)`` messages and ends with ("done", result), ("failed", message) or
   ("cancelled", None). A worker on a QThread watches the pipe; ChildTasks runs one worker
   at a time and handles the outcome once: the worker's thread is retired, then ``ended``
   says which outcome ("finished", "failed" or "cancelled": the name of the worker's signal
   that carried it) with its arguments. Used by the analysis queue (jobs.py) and the
   Summaries panel's model jobs (model_job.py)::

       class _Worker(ChildWorker):
           progress = Signal(float, str)

           @Slot()
           def run(self) -> None:  # started with its thread
               self.run_in_child(run_visil, args, video_path, lambda: self.cancel.cancelled)

           def on_message(self, kind, payload) -> None:  # what comes before the outcome
               if kind == "progress":
                   self.progress.emit(*payload)

       self.tasks = ChildTasks(self)
       self.tasks.ended.connect(self._ended)
       self.tasks.start(_Worker(request), lambda worker: worker.progress.connect(self._on_progress))

       def _ended(self, outcome: str, args: tuple) -> None:
           getattr(self, outcome).emit(*args)  # the owner's finished, failed or cancelled

2. A command in a child process: CommandTask.
   A `videoreview ...` subcommand whose result is what it prints (downloading a model,
   finding the devices' free memory): the same code path as the command line, and a
   cancel that is a kill. ``finished(stdout)``, ``failed(one line)`` or ``cancelled()``::

       command = CommandTask("models", "pull", name, parent=self)
       command.finished.connect(lambda out: self.status.setText(f"{name} is installed."))
       command.failed.connect(self.status.setText)
       command.start()  # command.cancel() kills it; command.wait(ms) at close

3. A decoder thread: DecoderWorker + DecoderThread.
   A long-lived worker on a QThread of its own serving requests, newest first, one short
   turn of its event loop at a time so that a newer request overtakes older ones: frames
   for the timeline (thumbnails.py), stills for the library (stills.py). Closed without
   waiting: the decode in progress is abandoned at its next frame::

       class _Worker(DecoderWorker):
           decoded = Signal(str, QImage)

           @Slot(str, float)
           def want(self, key, seconds) -> None:  # connected to a signal of the owner
               self.requests[key] = seconds
               self.schedule()

           def turn(self) -> bool:  # one piece of work; True while more is waiting
               key, seconds = self.requests.popitem()
               self.decoded.emit(key, self.decode(seconds))
               return bool(self.requests)

       self._wanted.connect(worker.want)
       worker.decoded.connect(self._on_decoded)  # connect before the thread starts
       self._decoder = DecoderThread(worker)  # self._decoder.close() when done

4. A thread task: ThreadTask.
   One function, in-process, short enough not to need a process and not holding the GIL
   for long (writing the PDF report)::

       task = ThreadTask(lambda: write_pdf(analysis, path), (OSError, ValueError))
       task.done.connect(self._on_written)  # done(result, problem): problem "" when it worked
       task.start()  # in _on_written: task.wait(); task.deleteLater()

5. The library service: ServiceThread.
   One long-lived child process (the library keeps its text embedding loaded) that
   answers requests. A ServiceThread owns the pipe: it spawns the child on the first
   request (``start_child``), sends what the GUI put in ``outgoing`` and emits each reply
   as ``message``; library_client.py matches replies to requests and their callbacks::

       class _PipeThread(ServiceThread):
           def __init__(self) -> None:
               super().__init__(serve, "library")  # the child runs serve(conn, *args)

           def run(self) -> None:  # until stop(): send what is in outgoing, emit the replies
               ...

       self._thread = _PipeThread()
       self._thread.message.connect(self._on_message)
       self._thread.start()  # self._thread.stop(ms) at quit
"""

from __future__ import annotations

import multiprocessing
import queue
from collections.abc import Callable

from PySide6.QtCore import QObject, QProcess, Qt, QThread, Signal, Slot

from ...paths import own_command

OUTCOMES = ("done", "failed", "cancelled")
POLL_SECONDS = 0.05  # how soon a cancel request reaches the child
CHILDREN = multiprocessing.get_context("spawn")  # no fork: the parent has Qt threads


def spawn(target, args: tuple, what: str):
    """Start ``target(*args)`` in a child process named after ``what`` ("videoreview-library")."""
    child = CHILDREN.Process(target=target, args=args, daemon=True,
                             name=f"videoreview-{what.replace(' ', '-').lower()}")
    child.start()
    return child


# -- 1. jobs in a child process ---------------------------------------------------------------

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
        receive, send = CHILDREN.Pipe(duplex=False)
        stop = CHILDREN.Event()
        child = self.child = spawn(target, (*args, send, stop), self.what)
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
    onto a new thread, lets the owner connect its other signals, and runs it. The outcome
    arrives here: the worker's thread is retired (its run has returned, so it stops at once
    and is deleted once stopped), then ``ended(outcome, args)`` is emitted, ``outcome``
    being "finished" (args: the result), "failed" (the message) or "cancelled" (none).
    ``shutdown`` at quit."""

    ended = Signal(str, object)  # outcome, tuple of its arguments

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
        # To bound slots of GUI-thread objects: Qt queues the calls into the GUI thread.
        worker.finished.connect(self._on_finished)
        worker.failed.connect(self._on_failed)
        worker.cancelled.connect(self._on_cancelled)
        connect(worker)
        thread.finished.connect(self._forget_stopped)
        self._thread, self.worker = thread, worker
        thread.start()

    @Slot(object)
    def _on_finished(self, result) -> None:
        self._end("finished", (result,))

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self._end("failed", (message,))

    @Slot()
    def _on_cancelled(self) -> None:
        self._end("cancelled", ())

    def _end(self, outcome: str, args: tuple) -> None:
        if self._thread is not None:
            self._retired.append((self._thread, self.worker))
            self._thread.quit()
        self._thread = self.worker = None
        self.ended.emit(outcome, args)

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
            if thread is None:
                continue
            thread.quit()
            if not thread.wait(timeout_ms) and worker.child is not None:
                worker.child.terminate()
                thread.wait(timeout_ms)


# -- 2. commands in a child process -----------------------------------------------------------

class CommandTask(QObject):
    """`videoreview ARGS...` in a child process (QProcess). Ends in one of ``finished``
    (its standard output), ``failed`` (one line: its error line, else the last line it
    wrote to standard error, else its exit code) or ``cancelled`` (after ``cancel``)."""

    finished = Signal(str)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, *args: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.args = args
        self._cancelling = False
        self.process = QProcess(self)
        self.process.finished.connect(self._on_finished)
        self.process.errorOccurred.connect(self._on_error)

    @property
    def running(self) -> bool:
        return self.process.state() != QProcess.ProcessState.NotRunning

    def start(self) -> None:
        program, *arguments = own_command(*self.args)
        self.process.start(program, arguments)

    def cancel(self) -> None:
        """Kill it: the commands leave nothing half-written (a download's partial file is
        started again by the next pull)."""
        if self.running:
            self._cancelling = True
            self.process.kill()

    def wait(self, timeout_ms: int = 3000) -> None:
        """At close: give it a moment to end."""
        if self.running:
            self.process.waitForFinished(timeout_ms)

    def _on_finished(self, code: int, status: QProcess.ExitStatus) -> None:
        out = bytes(self.process.readAllStandardOutput()).decode(errors="replace").strip()
        err = bytes(self.process.readAllStandardError()).decode(errors="replace").strip()
        if self._cancelling:
            self.cancelled.emit()
        elif status == QProcess.ExitStatus.NormalExit and code == 0:
            self.finished.emit(out)
        else:
            self.failed.emit(one_line(err, code))

    def _on_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:  # no finished follows
            self.failed.emit(f"{self.process.program()} could not be started ({self.process.errorString()})")


def one_line(err: str, code: int) -> str:
    """What a failed command says: its "videoreview: error: ..." line, else its last line."""
    lines = [line for line in err.splitlines() if line.startswith("videoreview: error:")]
    return (lines[-1] if lines else err.splitlines()[-1] if err else f"exit {code}").removeprefix(
        "videoreview: error: ")


# -- 3. decoder threads -----------------------------------------------------------------------

class DecoderWorker(QObject):
    """Base of a decoder's worker, living on the QThread of a DecoderThread. A request slot
    stores the request and calls ``schedule``; each turn of the thread's event loop then
    calls ``turn`` (one short piece of work) until it returns False. Subclasses give
    ``turn``, and ``on_start`` and ``release`` where they open and close files."""

    _more = Signal()
    _stop = Signal()

    def __init__(self) -> None:
        super().__init__()
        self._scheduled = False
        self._more.connect(self._turn, Qt.ConnectionType.QueuedConnection)
        self._stop.connect(self._shut_down, Qt.ConnectionType.QueuedConnection)

    def on_start(self) -> None:
        """In the worker's thread as it starts (opening the video)."""

    def turn(self) -> bool:
        """One piece of work; True while more is waiting."""
        return False

    def release(self) -> None:
        """In the worker's thread at close: close its files, forget its requests."""

    def schedule(self) -> None:
        if not self._scheduled:
            self._scheduled = True
            self._more.emit()

    def stop(self) -> None:
        """From the owner's thread: ``release`` and end the thread, in the worker's thread."""
        self._stop.emit()

    @Slot()
    def _started(self) -> None:
        self.on_start()

    @Slot()
    def _turn(self) -> None:
        self._scheduled = False
        if not QThread.currentThread().isInterruptionRequested() and self.turn():
            self.schedule()

    @Slot()
    def _shut_down(self) -> None:
        self.release()
        QThread.currentThread().quit()


# Closed decoders' threads (with their workers) until they have stopped: a QThread
# destroyed while it runs aborts the process.
_stopping: list[tuple[QThread, QObject]] = []


def _forget_closed() -> None:
    _stopping[:] = [(thread, worker) for thread, worker in _stopping if not thread.isFinished()]


class DecoderThread:
    """Runs ``worker`` on a QThread of its own, started at once (connect the worker's
    signals first). ``close`` stops it without waiting: the worker's loop ends, the decode
    in progress is abandoned at its next frame, and the thread is kept until it has stopped."""

    def __init__(self, worker: DecoderWorker, priority: QThread.Priority = QThread.Priority.LowPriority) -> None:
        self.worker = worker
        self.thread = QThread()
        worker.moveToThread(self.thread)
        self.thread.started.connect(worker._started)
        self.thread.start(priority)

    def close(self) -> None:
        _stopping.append((self.thread, self.worker))
        self.thread.finished.connect(_forget_closed)
        self.thread.requestInterruption()
        self.worker.stop()


def wait_for_closed_threads(timeout_ms: int = 2000) -> None:
    """At quit: give the threads of closed decoders a moment to stop."""
    for thread, _ in list(_stopping):
        thread.wait(timeout_ms)
    _forget_closed()


# -- 4. thread tasks --------------------------------------------------------------------------

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


# -- 5. long-lived services -------------------------------------------------------------------

class ServiceThread(QThread):
    """Base of a service's thread: it owns the service's child process and the duplex pipe
    to it. The GUI thread puts requests in ``outgoing``; the subclass's ``run`` sends them,
    starting the child with ``start_child`` when it first needs it, and emits what comes
    back as ``message`` (queued into the GUI thread), until ``stop``."""

    message = Signal(object)

    def __init__(self, target, what: str) -> None:
        super().__init__()
        self.target, self.what = target, what  # the child runs target(conn, *args)
        self.outgoing: queue.Queue = queue.Queue()
        self.child = None  # the process, once started

    def start_child(self, *args):
        """Spawn the child; returns this end of its pipe."""
        parent_end, child_end = CHILDREN.Pipe()
        self.child = spawn(self.target, (child_end, *args), self.what)
        child_end.close()
        return parent_end

    def end_child(self, timeout_s: float = 3) -> None:
        """Give the child (asked to end) a moment, then terminate it."""
        self.child.join(timeout_s)
        if self.child.is_alive():
            self.child.terminate()
            self.child.join(timeout_s)

    def stop(self, timeout_ms: int) -> None:
        """At quit: ``run`` sees the interruption, ends its child and returns."""
        self.requestInterruption()
        self.wait(timeout_ms)
