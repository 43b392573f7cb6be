"""Stages that read no frames (speech reads the sound) run in a thread beside the
decoding pass of the stages that do, so that Whisper works while the frames are read.
CTranslate2, ONNX Runtime, torch and FFmpeg release the GIL while they compute."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor

from .cancel import CancelToken


class CancelOnEither:
    """A cancel token that is cancelled when either of its two tokens is (the caller's, or the one close() sets)."""

    def __init__(self, first: CancelToken, second: CancelToken) -> None:
        self.first, self.second = first, second

    @property
    def cancelled(self) -> bool:
        return self.first.cancelled or self.second.cancelled

    def check(self) -> None:
        self.first.check()
        self.second.check()


def locked(progress):
    """``progress`` callable from several threads, one call at a time (a pipe or a
    terminal bar must not get two messages interleaved)."""
    lock = threading.Lock()

    def report(stage: str, fraction: float, message: str) -> None:
        with lock:
            progress(stage, fraction, message)

    return report


class BackgroundStages:
    """``stages``' ``compute`` started in one thread, in order; ``result(name)`` waits for
    one and returns it or raises what it raised. ``close()`` stops what still runs (at its
    next cancellation check) and waits for the thread. ``spent`` gets each stage's seconds."""

    def __init__(self, stages, source, progress, cancel: CancelToken, spent: dict[str, float] | None = None) -> None:
        spent = spent if spent is not None else {}
        self._stop = CancelToken()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="background-stage")
        token = CancelOnEither(cancel, self._stop)
        self._futures: dict[str, Future] = {}
        for stage in stages:
            def run(stage=stage):
                def stage_progress(fraction: float, message: str = "") -> None:
                    progress(stage.name, fraction, message)

                stage_progress(0.0, "starting")
                begun = time.perf_counter()
                try:
                    return stage.compute(source, stage_progress, token)
                finally:
                    spent[stage.name] = time.perf_counter() - begun

            self._futures[stage.name] = self._pool.submit(run)

    def __contains__(self, name: str) -> bool:
        return name in self._futures

    def result(self, name: str):
        return self._futures.pop(name).result()

    def close(self) -> None:
        self._stop.cancel()
        self._pool.shutdown(wait=True)
