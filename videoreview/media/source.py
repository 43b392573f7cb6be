"""FrameSource: frames of one video as RGB numpy arrays, by index, by time, or all in order.

Frame ``i`` is the i-th frame in presentation order (the order a player shows them and
the decoder outputs them); ``timestamps[i]`` is its presentation time in seconds, the
first frame at 0, taken from the container's pts (never i / fps), so variable-frame-rate
files are right. Frames come at display orientation (rotation applied) and, by default,
at display size (``info.width`` x ``info.height``). Every read gives exactly the frames
asked for, with the indices asked for: where damage mid-stream left a listed frame
undecodable, the next decodable one stands in for it (see ``probe`` and ``_pyav``).

Backends: decord when it agrees with the demuxed index (see ``_decord``), else PyAV. If
decord fails part-way, the source switches to PyAV for good and carries on; ``backend``
says which is in use and ``fallback_reason`` why PyAV was chosen.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import MediaError
from ..records import VideoInfo
from . import _decord, gpu_frames
from ._pyav import PyAVReader, to_rgb
from .probe import scan_once

BACKENDS = ("auto", "decord", "pyav")


@dataclass(frozen=True, eq=False)  # eq on arrays would be ambiguous
class FrameBatch:
    indices: np.ndarray  # int64: index of each frame (presentation order, 0-based)
    times: np.ndarray  # float64 seconds: presentation time of each frame, first frame at 0
    frames: np.ndarray  # uint8 [N, H, W, 3] RGB, display orientation

    def __len__(self) -> int:
        return len(self.indices)


class FrameSource:
    """Open with :func:`open_video`; use as a context manager. Not thread-safe: use one
    source per thread."""

    def __init__(self, path: str | os.PathLike, backend: str = "auto", hardware: str | None = None):
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
        self.path = os.fspath(path)
        self._requested = backend
        self._hardware = hardware  # a whole-file pass decodes on this GPU ("cuda"): see gpu_frames.py
        info, index = scan_once(path)
        self.info: VideoInfo = info
        self._index = index
        self.timestamps: np.ndarray = (index.pts - index.pts[0]).astype(np.float64) * float(index.time_base)
        self.timestamps.setflags(write=False)
        self.start_time = float(index.pts[0] * index.time_base)  # frame 0 on the container's clock
        self._pyav: PyAVReader | None = None
        self._pass: PyAVReader | None = None  # the whole-file pass's reader, where it decodes on a GPU
        self._gpu = "cuda"  # where that pass converts its frames (the tests convert on the CPU)
        self._decord: _decord.DecordReader | None = None
        self.fallback_reason: str | None = None
        if backend in ("auto", "decord"):
            reason = "decord is not installed" if not _decord.available() else None
            if reason is None:
                reader = _decord.DecordReader(index, self.timestamps, (info.width, info.height))
                reason = reader.check()
                if reason is None:
                    # Drop the reader the check opened: left idle, decord keeps decoding
                    # ahead and held ~1 GB of a 720p file while models loaded. It reopens
                    # on the first read.
                    reader.close()
                    self._decord = reader
                else:
                    reader.close()
            if reason is not None:
                if backend == "decord":
                    raise MediaError(path, f"decord cannot decode this file correctly: {reason}")
                self.fallback_reason = reason
        if self._decord is None and self.fallback_reason is None and backend == "pyav":
            self.fallback_reason = "PyAV requested"
        # Keep the probe's reference frame only while decord may need checking against it.
        if self._decord is None:
            index.first_frame = None

    # -- lifecycle

    @property
    def backend(self) -> str:
        return "decord" if self._decord is not None else "pyav"

    @property
    def decoded_on(self) -> str:
        """Where the frames read so far were decoded: "cuda" (NVDEC) or "cpu"."""
        return "cuda" if self._pass is not None and self._pass.hardware else "cpu"

    @property
    def hardware_note(self) -> str | None:
        """Why frames are decoded in software although a GPU was asked for."""
        return self._pass.hardware_note if self._pass is not None else None

    def close(self) -> None:
        if self._decord is not None:
            self._decord.close()
        for reader in (self._pyav, self._pass):
            if reader is not None:
                reader.close()
        self._pyav = self._pass = None

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __len__(self) -> int:
        return self.info.frame_count

    def __repr__(self) -> str:
        return f"FrameSource({self.path!r}, backend={self.backend!r}, frames={self.info.frame_count})"

    # -- reading

    def iter_batches(self, size: tuple[int, int] | None = None, batch: int = 64) -> Iterator[FrameBatch]:
        """Every frame once, in order, ``batch`` at a time, at ``size`` = (width, height)
        (None: display size). Memory stays at one batch.

        In "auto" mode a whole-file pass reads with PyAV: decord's memory grows with the
        length of the file on such a pass (measured on 720p H.264: 224 MB after 150 s,
        1.1 GB after 20 min) while PyAV's stays flat (73 MB after 20 min)."""
        if self._requested == "auto" and self._decord is not None:
            self._decord.close()
            self._decord = None
            self.fallback_reason = "whole-file pass (PyAV keeps memory flat)"
        yield from self._batches(np.arange(self.info.frame_count, dtype=np.int64), self._size(size), batch)

    def frames_at_indices(self, indices, size: tuple[int, int] | None = None) -> FrameBatch:
        """The frames at ``indices`` (any order, repeats allowed), in the order asked."""
        req = np.asarray(indices, dtype=np.int64).ravel()
        n = self.info.frame_count
        if req.size and (req.min() < 0 or req.max() >= n):
            bad = int(req[(req < 0) | (req >= n)][0])
            raise IndexError(f"frame index {bad} out of range (the video has {n} frames)")
        size = self._size(size)
        if req.size == 0:
            return self._empty(size)
        uniq, where = np.unique(req, return_inverse=True)
        got = np.empty((len(uniq), size[1], size[0], 3), np.uint8)
        for k, (_, frame) in enumerate(self._read(uniq, size)):
            got[k] = frame
        return FrameBatch(req, self.timestamps[req], got[where])

    def frames_at_times(self, times, size: tuple[int, int] | None = None) -> FrameBatch:
        """For each time (seconds), the frame on screen then: the last one with pts <= t.
        Times before the first frame give frame 0, after the end the last frame.
        ``FrameBatch.times`` holds the frames' own times."""
        return self.frames_at_indices(self.index_at(times), size)

    def index_at(self, times) -> np.ndarray:
        """Index of the frame displayed at each time (see frames_at_times)."""
        t = np.asarray(times, dtype=np.float64).ravel()
        if np.isnan(t).any():
            raise ValueError("times must not be NaN")
        # 1 us of slack: k / fps computed in floating point must still land on frame k.
        idx = np.searchsorted(self.timestamps, t + 1e-6, side="right") - 1
        return np.clip(idx, 0, self.info.frame_count - 1).astype(np.int64)

    def sample(self, rate: float, size: tuple[int, int] | None = None, batch: int = 64) -> Iterator[FrameBatch]:
        """The frames shown at times k / ``rate`` (k = 0, 1, ... while before the end),
        streamed in batches. When ``rate`` exceeds the frame rate a frame is not repeated."""
        idx = self.sample_indices(rate)
        yield from self._batches(idx, self._size(size), batch)

    def sample_indices(self, rate: float) -> np.ndarray:
        """The indices :meth:`sample` would return, without decoding."""
        if not rate or rate <= 0 or not math.isfinite(rate):
            raise ValueError(f"rate must be a positive number of frames per second, not {rate!r}")
        # Frame i is on screen from t[i] to t[i + 1] (1 us early, as index_at has it); it is
        # sampled when the first sample time in that span comes before both its end and the
        # video's end. One pass over the frames: a file whose damaged timestamps make it
        # months long (seen when fuzzing) must not mean a sample time per second of them.
        count = max(1, math.ceil(self.info.duration * rate - 1e-9))
        t = self.timestamps
        first = np.maximum(0, np.ceil((t - 1e-6) * rate - 1e-9))  # first sample in each frame's span
        ends = np.append(t[1:] - 1e-6, np.inf)
        return np.flatnonzero((first / rate < ends) & (first < count)).astype(np.int64)

    def batches_for(self, wants: Sequence[tuple[np.ndarray, tuple[int, int] | None, int]]
                    ) -> Iterator[tuple[int, FrameBatch]]:
        """One decoding pass serving several readers. Each want is (indices, size, batch):
        its frames (sorted, unique indices), at that size, that many at a time. Yields
        (number of the want, FrameBatch) as batches fill, in decoding order; each frame is
        decoded once and scaled once per size that wants it (libswscale, in the decoder's
        thread), and frames no want lists are not converted. Reads with PyAV, as a
        whole-file pass does (see iter_batches); with decord forced, one pass per want."""
        wants = [(np.asarray(idx, np.int64), self._size(size), max(1, int(batch))) for idx, size, batch in wants]
        if self._requested == "decord":
            for number, (idx, size, batch) in enumerate(wants):
                for got in self._batches(idx, size, batch):
                    yield number, got
            return
        if self._decord is not None:
            self._decord.close()
            self._decord = None
            self.fallback_reason = "whole-file pass (PyAV keeps memory flat)"
        if not any(len(idx) for idx, _, _ in wants):
            return
        union = np.unique(np.concatenate([idx for idx, _, _ in wants]))
        members = [np.isin(union, idx) for idx, _, _ in wants]
        pending: list[list[tuple[int, np.ndarray]]] = [[] for _ in wants]

        def sizes_for(k: int) -> list[tuple[int, int]]:
            return list(dict.fromkeys(size for number, (_, size, _) in enumerate(wants) if members[number][k]))

        for k, index, scaled in self._scaled_frames(union, sizes_for):
            for number, (_, size, batch) in enumerate(wants):
                if not members[number][k]:
                    continue
                pending[number].append((index, scaled[size]))
                if len(pending[number]) == batch:
                    yield number, self._stacked(pending[number])
                    pending[number] = []
        for number, rest in enumerate(pending):
            if rest:
                yield number, self._stacked(rest)

    def _scaled_frames(self, union: np.ndarray, sizes_for) -> Iterator[tuple[int, int, dict]]:
        """(k, frame index, {size: RGB frame}) for each frame of ``union`` in order, at the
        sizes ``sizes_for(k)``: scaled by libswscale in this thread, or where the pass
        decodes on a GPU, there, GROUP frames at a time (gpu_frames.py)."""
        if self._hardware and self._pass is None:
            self._pass = PyAVReader(self._index, self._hardware)
            self._pass.prepare()
            if self._pass.hardware:
                self._check_gpu_frames()
        if self._pass is None or not self._pass.hardware:
            from av.video.reformatter import VideoReformatter

            if self._pyav is None:
                self._pyav = PyAVReader(self._index)
            scalers: dict[tuple[int, int], VideoReformatter] = {}
            rotation = self._index.rotation
            for k, (index, frame) in enumerate(self._pyav.read_frames(union)):
                yield k, index, {size: to_rgb(frame, size, rotation, scalers.setdefault(size, VideoReformatter()))
                                 for size in sizes_for(k)}
            return
        group: list[tuple[int, int, object]] = []
        for k, (index, frame) in enumerate(self._pass.read_frames(union)):
            group.append((k, index, frame))
            if len(group) == gpu_frames.GROUP:
                yield from self._scaled_on_gpu(group, sizes_for)
                group = []
        yield from self._scaled_on_gpu(group, sizes_for)

    def _check_gpu_frames(self) -> None:
        """Decoding on the GPU only where its first frame comes out as software decoding's
        does: a driver, PyAV or torch that does not play along turns it off, saying why."""
        size = (64, 36)
        software = PyAVReader(self._index)
        try:
            ((_, _, got),) = self._scaled_on_gpu([(0, *next(self._pass.read_frames([0])))], lambda k: [size])
            _, frame = next(software.read_frames([0]))
            difference = float(np.abs(got[size].astype(np.int16) - to_rgb(frame, size, self._index.rotation)).mean())
            problem = f"its first frame differs from software decoding by {difference:.1f} levels" \
                if difference > 8 else None
        except Exception as exc:  # noqa: BLE001 - whatever breaks, software decoding stands in
            problem = f"{type(exc).__name__}: {exc}"
        finally:
            software.close()
        if problem:
            self._pass.close()
            self._pass.hardware = None
            self._pass.hardware_note = f"decoding on the GPU failed its check ({problem})"

    def _scaled_on_gpu(self, group: list, sizes_for) -> Iterator[tuple[int, int, dict]]:
        if not group:
            return
        luma, chroma = gpu_frames.stacked_planes([frame for _, _, frame in group], self._gpu)
        sizes = list(dict.fromkeys(size for k, _, _ in group for size in sizes_for(k)))
        first = group[0][2]
        full_range, bt709 = gpu_frames.colour(first)
        scaled = gpu_frames.to_rgb(luma, chroma, first.width, first.height, sizes, full_range, bt709,
                                   self._index.rotation)
        for j, (k, index, _) in enumerate(group):
            yield k, index, {size: scaled[size][j] for size in sizes_for(k)}

    # -- internals

    def _stacked(self, frames: list[tuple[int, np.ndarray]]) -> FrameBatch:
        idx = np.array([i for i, _ in frames], np.int64)
        return FrameBatch(idx, self.timestamps[idx], np.stack([f for _, f in frames]))

    def _size(self, size) -> tuple[int, int]:
        if size is None:
            return (self.info.width, self.info.height)
        try:
            w, h = (int(v) for v in size)
        except (TypeError, ValueError):
            raise ValueError(f"size must be (width, height), not {size!r}") from None
        if w <= 0 or h <= 0:
            raise ValueError(f"size must be positive, not {size!r}")
        return (w, h)

    def _empty(self, size) -> FrameBatch:
        return FrameBatch(np.empty(0, np.int64), np.empty(0, np.float64), np.empty((0, size[1], size[0], 3), np.uint8))

    def _batches(self, targets: np.ndarray, size, batch: int) -> Iterator[FrameBatch]:
        batch = max(1, int(batch))
        w, h = size
        buf = idx = None
        m = 0
        for i, frame in self._read(targets, size):
            if buf is None:
                n = min(batch, len(targets))
                buf, idx, m = np.empty((n, h, w, 3), np.uint8), np.empty(n, np.int64), 0
            buf[m] = frame
            idx[m] = i
            m += 1
            if m == len(buf):
                yield FrameBatch(idx, self.timestamps[idx], buf)
                buf = None
        if buf is not None and m:
            yield FrameBatch(idx[:m], self.timestamps[idx[:m]], buf[:m])

    def _read(self, targets: np.ndarray, size) -> Iterator[tuple[int, np.ndarray]]:
        """(index, frame) per target, from decord, switching to PyAV if decord fails."""
        done = 0
        if self._decord is not None:
            try:
                for item in self._decord.read(targets, size):
                    yield item
                    done += 1
                return
            except _decord.DecordFailed as exc:
                self.fallback_reason = str(exc)
                self._decord.close()
                self._decord = None
        if self._pyav is None:
            self._pyav = PyAVReader(self._index)
        yield from self._pyav.read(targets[done:], size)


def open_video(path: str | os.PathLike, backend: str = "auto", hardware: str | None = None) -> FrameSource:
    """Open a video for reading frames; MediaError if it is not a usable video. ``hardware``
    "cuda": PyAV decodes on NVDEC where it can (_pyav.py)."""
    return FrameSource(path, backend, hardware)


def scaled_size(width: int, height: int, long_side: int) -> tuple[int, int]:
    """(width, height) with the long side at most ``long_side``, aspect kept, even numbers:
    the size to decode at for a model that needs no more pixels than that."""
    scale = min(1.0, long_side / max(width, height, 1))
    return max(2, round(width * scale / 2) * 2), max(2, round(height * scale / 2) * 2)


def short_side_size(width: int, height: int, short: int) -> tuple[int, int]:
    """(width, height) with the short side at ``short``, aspect kept, even numbers: the size
    to decode at for square crops of ``short`` pixels."""
    scale = short / max(1, min(width, height))
    return max(short, round(width * scale / 2) * 2), max(short, round(height * scale / 2) * 2)
