"""One decoding pass for several frame readers (the analysis stages that read frames at
fixed times: boundaries, faces, on-screen text, captions).

Each stage decoding the file for itself cost a whole decode of the video per stage (a
720p H.264 file decodes at ~1100 frames/s on 2 cores, so four stages spent ~14 s of CPU
on a 150 s clip decoding it four times). Here the file is decoded once, in a thread
ahead of the readers (media/prefetch.py), and each decoded frame is scaled once per size
that a reader wants it at; the readers then run their models in the caller's thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import closing
from typing import Any, Protocol

import numpy as np

from ..heap import release_free_memory
from ..progress import ProgressFn
from .prefetch import prefetched
from .source import FrameBatch, FrameSource


class FrameReader(Protocol):
    indices: np.ndarray  # the frames it reads (sorted, unique)
    size: tuple[int, int]  # (width, height) it reads them at
    batch: int  # frames per take()

    def take(self, batch: FrameBatch) -> None: ...

    def result(self) -> Any: ...  # a stage's reader: the stage's typed Result (pipeline/stages/result.py)

    def status(self) -> str: ...  # the progress message after each batch; "": "frame N/TOTAL"


class Mapped:
    """A reader whose result is passed through ``convert``."""

    def __init__(self, reader: FrameReader, convert: Callable[[Any], Any]) -> None:
        self.reader, self.convert = reader, convert
        self.indices, self.size, self.batch = reader.indices, reader.size, reader.batch

    def status(self) -> str:
        return self.reader.status()

    def take(self, batch: FrameBatch) -> None:
        self.reader.take(batch)

    def result(self) -> Any:
        return self.convert(self.reader.result())


def read_together(source: FrameSource, readers: Sequence[FrameReader], progress: Sequence[ProgressFn],
                  cancel=None, seconds: list[float] | None = None) -> list[Any]:
    """Feed every reader its frames in one pass and return their results, in order.
    ``progress[k]`` hears of reader k's frames; ``cancel.check()`` is called per batch;
    ``seconds[k]``, where given, adds up the time inside reader k's ``take`` and ``result``."""
    seconds = seconds if seconds is not None else [0.0] * len(readers)
    taken = [0] * len(readers)
    wants = [(r.indices, r.size, r.batch) for r in readers]
    with closing(prefetched(source.batches_for(wants))) as batches:  # stops the thread on error too
        for count, (number, batch) in enumerate(batches):
            if cancel is not None:
                cancel.check()
            if count % 20 == 19:
                release_free_memory()  # keeps peak memory flat over long videos (see heap.py)
            begun = time.perf_counter()
            readers[number].take(batch)
            seconds[number] += time.perf_counter() - begun
            taken[number] += len(batch)
            reader, total = readers[number], max(1, len(readers[number].indices))
            status = reader.status() or f"frame {taken[number]}/{total}"
            progress[number](min(1.0, taken[number] / total), status)
    results = []
    for number, reader in enumerate(readers):
        begun = time.perf_counter()
        results.append(reader.result())
        seconds[number] += time.perf_counter() - begun
    return results


def read_alone(source: FrameSource, reader: FrameReader, progress: ProgressFn, cancel=None) -> Any:
    """One reader's pass."""
    return read_together(source, [reader], [progress], cancel)[0]
