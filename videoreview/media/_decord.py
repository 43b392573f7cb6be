"""decord (decord2) decoding: the fast path.

decord decodes in one thread and scales (inside FFmpeg, to the size asked for) in
another, and turns rotated video itself. On two idle cores that is ~1.4x PyAV's
throughput for small frames from 720p H.264 (about 780 vs 560 fps at 224x126); it uses a
little more CPU per frame, so the gain shrinks when the cores are busy.

It is only trusted when it agrees with the demuxed index: same frame count, same
timestamps, same first frame as PyAV. It counts frames by packets and maps decoded
frames to indices by counting, so it is wrong on MPEG-4 AVI with B-frames (garbage
timestamps), on MPEG-PS/TS (inexact seeking: it starts 25 frames in on a small TS file),
on truncated files (it counts the half-written last packet) and wherever a container's
keyframe flags are false.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Sequence

import numpy as np

from ._pyav import to_rgb
from .probe import StreamIndex, decode_threads

# Containers where decord's packet index and seeking have held up. Others go to PyAV.
_TRUSTED_FORMATS = {"mov", "mp4", "matroska", "webm", "avi"}
# One VideoReader per output size, and only one alive: an idle reader keeps decoding
# ahead in its own thread and halves the speed of the one in use.
_MAX_READERS = 1


class DecordFailed(Exception):
    """decord raised, or gave frames that do not check out: use PyAV instead."""


def _import():
    import decord

    decord.logging.set_level(decord.logging.QUIET)  # FFmpeg chatter on stderr helps no one
    return decord


def available() -> bool:
    try:
        _import()
        return True
    except Exception:  # ImportError, or a broken native library
        return False


def _frames_match(a: np.ndarray, b: np.ndarray) -> bool:
    # The two backends scale with the same bicubic filter: identical frames differ by ~1 level.
    return a.shape == b.shape and float(np.abs(a.astype(np.int16) - b).mean()) < 6.0


class DecordReader:
    name = "decord"

    def __init__(self, index: StreamIndex, times: np.ndarray, display: tuple[int, int]):
        self._index = index
        self._times = times
        self._display = display
        self._readers: OrderedDict[tuple[int, int], object] = OrderedDict()

    def check(self) -> str | None:
        """None when decord can be trusted with this file, else the reason not to."""
        first_name = self._index.format_name.split(",")[0]
        if first_name not in _TRUSTED_FORMATS:
            return f"decord seeks unreliably in {first_name} files"
        if not self._index.seekable:
            return "no timestamps in the file"
        if not self._index.keyframes_trusted:
            return "the file's keyframe flags are wrong (decord would seek to frames that are not keyframes)"
        try:
            vr = self._reader(self._display)
        except DecordFailed as exc:
            return str(exc)
        n = len(self._index.pts)
        if len(vr) != n:
            return f"decord counts {len(vr)} frames, {n} decode"
        try:
            ts = np.asarray(vr.get_frame_timestamp(np.arange(n)), np.float64)[:, 0]
        except Exception as exc:
            return f"decord has no timestamps ({exc})"
        ts = ts - ts[0]
        bad = np.abs(ts - self._times) > 1e-3 + 1e-6 * np.abs(self._times)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            return f"decord's timestamps disagree (frame {i}: {ts[i]:.4f} s, not {self._times[i]:.4f} s)"
        return None

    def _reader(self, size: tuple[int, int]):
        """A VideoReader for this output size, checked on the first frame."""
        if size in self._readers:
            return self._readers[size]
        decord = _import()
        w, h = size
        while len(self._readers) >= _MAX_READERS:
            self._readers.popitem(last=False)  # free it before the new one starts decoding
        try:
            vr = decord.VideoReader(self._index.path, ctx=decord.cpu(0), width=w, height=h,
                                    num_threads=decode_threads())
            first = _unpad(vr.next().asnumpy(), w, h)
        except Exception as exc:  # DECORDError, RuntimeError, StopIteration, AssertionError
            raise DecordFailed(f"decord cannot read the file ({_short(exc)})") from None
        if first is None or not _frames_match(first, to_rgb(self._index.first_frame, size, self._index.rotation)):
            raise DecordFailed("decord's first frame differs from PyAV's (rotation or seeking)")
        self._readers[size] = vr
        return vr

    def read(self, targets: Sequence[int], size: tuple[int, int]) -> Iterator[tuple[int, np.ndarray]]:
        """(index, RGB frame) for each of ``targets`` (sorted, unique).

        Frame by frame with seek_accurate + next rather than get_batch: the same speed at
        small sizes, 4x faster at full size (get_batch copies slowly), and get_batch fails
        outright at the widths where decord pads its rows."""
        vr = self._reader(size)
        w, h = size
        try:
            for i in np.asarray(targets, np.int64).tolist():
                vr.seek_accurate(i)  # no-op when already there; else keyframe + decode forward
                frame = _unpad(vr.next().asnumpy(), w, h)
                if frame is None:
                    raise DecordFailed("decord gave a frame of the wrong size")
                yield i, frame
        except DecordFailed:
            self._readers.pop(size, None)
            raise
        except Exception as exc:
            self._readers.pop(size, None)
            raise DecordFailed(f"decord failed ({_short(exc)})") from None

    def close(self) -> None:
        self._readers.clear()  # VideoReader frees its FFmpeg state when collected


def _unpad(frame: np.ndarray, w: int, h: int) -> np.ndarray | None:
    """decord2 hands back some frames with their row padding, shaped [h, w, stride // w]
    (at widths 48, 96, 144, ... for example); cut the padding off."""
    if frame.shape == (h, w, 3):
        return frame
    if frame.ndim != 3 or frame.shape[:2] != (h, w) or frame.shape[2] < 3:
        return None
    # Rows are stride = w * shape[2] bytes long; the pixels are the first 3 * w of them.
    return np.ascontiguousarray(frame.reshape(h, -1)[:, : 3 * w].reshape(h, w, 3))


def _short(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    line = text[-1] if text else exc.__class__.__name__
    return line[-200:]
