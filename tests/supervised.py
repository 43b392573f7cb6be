"""Analyse many files in a watched child process: a file that hangs is killed after a
time bound, one that crashes the process is reported as a crash, and a new child takes
the next file. The models load once per child, so a file costs its analysis only.

    with Supervisor(home, timeout=60) as sup:
        outcome = sup.analyse(path)     # Outcome(status="ok" | "refused" | "traceback" | "crash" | "hang", ...)

``engines`` (capability -> engine name, as for pipeline.analyze) chooses the engines; the
default ones without it.

Run as a script, this file is the child: one JSON request per line on stdin, one JSON
reply per line on stdout (everything else the child or FFmpeg prints goes to stderr).
Used by the corpus and fuzz tests and by scripts/fuzz-media.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Outcome:
    path: str
    status: str  # ok, refused (one-line MediaError), traceback, crash, hang
    message: str = ""  # the refusal, the traceback, or what happened to the child
    seconds: float = 0.0
    start_mb: float = 0.0  # RSS of the child when the file started (the models loaded before)
    peak_mb: float = 0.0  # peak RSS of the child during this file
    analysis: str | None = None  # the saved Analysis (in the home, as the window saves it), when ok


class Supervisor:
    """One child at a time, started again after a crash or a hang."""

    def __init__(self, home: Path, timeout: float = 60.0, save: bool = True, engines: dict[str, str] | None = None):
        self.home, self.timeout, self.save, self.engines = Path(home), timeout, save, engines
        self._child: subprocess.Popen | None = None
        self._stderr = tempfile.TemporaryFile()

    def __enter__(self) -> Supervisor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._child is not None:
            self._child.stdin.close()
            try:
                self._child.wait(10)
            except subprocess.TimeoutExpired:
                self._child.kill()
                self._child.wait()
            self._child = None
        self._stderr.close()

    def stderr_tail(self, chars: int = 2000) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")[-chars:]

    def _start(self) -> subprocess.Popen:
        env = dict(os.environ, VIDEOREVIEW_HOME=os.fspath(self.home), PYTHONPATH=os.fspath(ROOT))
        self._stderr.seek(0)
        self._stderr.truncate()
        return subprocess.Popen([sys.executable, __file__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=self._stderr, env=env, cwd=ROOT)

    def _kill(self) -> int | None:
        child, self._child = self._child, None
        child.kill()
        return child.wait()

    def analyse(self, path: str | os.PathLike) -> Outcome:
        path = os.fspath(path)
        if self._child is None or self._child.poll() is not None:
            self._child = self._start()
        request = {"path": path, "save": self.save, "engines": self.engines}
        start = time.monotonic()
        try:
            self._child.stdin.write((json.dumps(request) + "\n").encode())
            self._child.stdin.flush()
        except BrokenPipeError:
            pass  # it died; the read below says so
        line = _read_line(self._child.stdout, self.timeout)
        if line is None:
            code = self._kill()
            return Outcome(path, "hang", f"no answer in {self.timeout:.0f} s (killed, exit {code})",
                           time.monotonic() - start)
        if not line:
            code = self._kill()
            return Outcome(path, "crash", f"the process died (exit {code}): {self.stderr_tail(500)}",
                           time.monotonic() - start)
        return Outcome(**json.loads(line))


def _read_line(stream, timeout: float) -> bytes | None:
    """A line from ``stream`` (b"" at EOF), or None after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    data = b""
    with selectors.DefaultSelector() as sel:
        sel.register(stream, selectors.EVENT_READ)
        while not data.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(left):
                return None
            chunk = os.read(stream.fileno(), 65536)
            if not chunk:
                return b""
            data += chunk
    return data


# ----------------------------------------------------------------------------- the child


def _reset_peak() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")  # resets VmHWM (Linux 4.0+)
    except OSError:
        pass


def _status_mb(field: str) -> float:
    with open("/proc/self/status") as status:
        return int(status.read().split(f"{field}:")[1].split()[0]) / 1024


def _child() -> None:
    import traceback

    # Replies go on the real stdout; anything printed by the app or FFmpeg goes to stderr.
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    from videoreview.errors import VideoReviewError
    from videoreview.pipeline import StageCache, analyze, store

    cache = StageCache()
    for line in sys.stdin:
        request = json.loads(line)
        path = request["path"]
        _reset_peak()
        start = time.monotonic()
        reply = {"path": path, "start_mb": _status_mb("VmRSS")}
        try:
            analysis = analyze(path, request["engines"], cache=cache)
            if request["save"]:
                reply["analysis"] = os.fspath(store.save(analysis))  # where the window finds it
            reply.update(status="ok")
        except VideoReviewError as exc:
            reply.update(status="refused", message=str(exc))
        except Exception:
            reply.update(status="traceback", message=traceback.format_exc())
        reply.update(seconds=time.monotonic() - start, peak_mb=_status_mb("VmHWM"))
        replies.write(json.dumps(reply) + "\n")


if __name__ == "__main__":
    _child()
