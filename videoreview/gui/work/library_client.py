"""The window's end of the library process (see library.service).

A QThread owns the pipe (background.py's ServiceThread: the window's one long-lived
service): it starts the child on the first request, sends what the GUI queued, and turns
replies into a signal that Qt queues into the GUI thread, where each reply goes to the
callbacks given with its request. The GUI thread never waits on the pipe. A child that
dies fails its open requests with one line and is started again by the next request.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal, Slot

from ...cluster.driver import add_on_cluster
from ...library.service import serve
from .background import CHILDREN, ServiceThread

POLL_SECONDS = 0.05
RESTART = object()  # in the outgoing queue: end the child, start afresh at the next request


@dataclass
class _Callbacks:
    done: Callable | None
    error: Callable[[str], None] | None
    progress: Callable | None


class _PipeThread(ServiceThread):
    """Sends (request id, action, args) from ``outgoing``; ``message`` is each (request id,
    kind, payload) reply."""

    def __init__(self) -> None:
        super().__init__(serve, "library")
        self.stop_adding = CHILDREN.Event()
        self._open: set[int] = set()

    def run(self) -> None:
        conn = None
        while not self.isInterruptionRequested():
            while not self.outgoing.empty():
                request = self.outgoing.get_nowait()
                if request is RESTART:
                    conn = self._stop_child(conn)
                    continue
                self._open.add(request[0])
                try:
                    # The child gets the cluster's driver (for Settings > Cluster): the
                    # library layer does not import the cluster layer above it.
                    conn = conn or self.start_child(self.stop_adding, add_on_cluster)
                    conn.send(request)
                except (OSError, RuntimeError) as exc:  # cannot start it, or it has just died
                    conn = self._died(conn, f"the library process could not be reached ({exc})")
            if conn is None or not conn.poll(POLL_SECONDS):
                if conn is None:
                    self.msleep(round(POLL_SECONDS * 1000))
                continue
            try:
                reply = conn.recv()
            except (EOFError, OSError):
                self.child.join(5)
                conn = self._died(conn, f"the library process stopped unexpectedly (exit code {self.child.exitcode})")
                continue
            self._pass_on(reply)
        if conn is not None:
            try:  # what the window sent as it closed (a last edit to index)
                while not self.outgoing.empty():
                    request = self.outgoing.get_nowait()
                    if request is not RESTART:
                        conn.send(request)
            except OSError:
                pass
            self._stop_child(conn)

    def _pass_on(self, reply: tuple) -> None:
        if reply[1] in ("ok", "error"):  # the request's last reply
            self._open.discard(reply[0])
        self.message.emit(reply)

    def _stop_child(self, conn) -> None:
        """Ask the child to end after the requests it has, passing on their replies for up
        to 3 s; then it is stopped, and what it had not answered fails."""
        if conn is None:
            return None
        try:
            conn.send(None)
            deadline = time.monotonic() + 3
            while self._open and time.monotonic() < deadline:
                if conn.poll(POLL_SECONDS):
                    self._pass_on(conn.recv())
        except (EOFError, OSError):
            pass
        self.end_child(3)  # one busy embedding a long analysis is terminated: its writes are transactions
        return self._died(conn, "the library process was stopped before it answered")

    def _died(self, conn, why: str) -> None:
        """Fail the open requests; the next request starts a new child."""
        for request_id in sorted(self._open):
            self.message.emit((request_id, "error", why))
        self._open.clear()
        if conn is not None:
            conn.close()
        return None


class LibraryClient(QObject):
    """Requests to the library process; ``request`` returns at once and the callbacks run
    in the GUI thread: ``done(result)``, ``error(message)``, ``progress(payload)``."""

    error = Signal(str)  # a failed request that had no error callback

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ids = itertools.count(1)
        self._callbacks: dict[int, _Callbacks] = {}
        self._thread = _PipeThread()
        self._thread.message.connect(self._on_message)
        self._thread.start()

    def request(self, action: str, *args, done: Callable | None = None, error: Callable[[str], None] | None = None,
                progress: Callable | None = None) -> int:
        request_id = next(self._ids)
        self._callbacks[request_id] = _Callbacks(done, error, progress)
        self._thread.outgoing.put((request_id, action, args))
        return request_id

    def busy(self) -> bool:
        return bool(self._callbacks)

    def restart(self) -> None:
        """End the library process after the requests sent so far; the next request starts
        a new one (which opens the library where it now is)."""
        self._thread.outgoing.put(RESTART)

    def stop_adding(self) -> None:
        """Stop cataloguing the folders being added, and a cluster run (what is catalogued
        and indexed stays)."""
        self._thread.stop_adding.set()

    def shutdown(self, timeout_ms: int = 8000) -> None:
        self._callbacks.clear()
        self._thread.stop(timeout_ms)

    @Slot(object)
    def _on_message(self, reply: tuple) -> None:
        request_id, kind, payload = reply
        callbacks = self._callbacks.get(request_id)
        if callbacks is None:
            return  # the window has moved on (shut down)
        if kind == "progress":
            if callbacks.progress is not None:
                callbacks.progress(payload)
            return
        del self._callbacks[request_id]
        if kind == "ok":
            if callbacks.done is not None:
                callbacks.done(payload)
        elif callbacks.error is not None:
            callbacks.error(payload)
        else:
            self.error.emit(payload)
