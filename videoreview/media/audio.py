"""Reading a video's sound: the first audio stream as mono float32 at one sample rate, on
the picture's clock.

Decoded with PyAV (no ffmpeg process) and resampled once by libswresample, whatever the
channel layout (mono, stereo, 5.1, channels in no named order). Sample 0 is at the
time of the first video frame (``video_start``, seconds on the container's clock): sound
that starts later is preceded by silence, sound that starts earlier is cut. A damaged
packet is skipped as players do; where the stream cannot be read further, what was read
is kept and ``problem`` says where it stopped.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .probe import decode_packets, open_container

RATE = 16_000  # what speech models take


@dataclass(frozen=True, eq=False)
class Sound:
    samples: np.ndarray  # float32 mono in [-1, 1], sample 0 at the first video frame
    rate: int
    problem: str = ""  # what could not be read, for the user; empty when all of it was

    @property
    def duration(self) -> float:
        return len(self.samples) / self.rate

    def peak(self) -> float:
        return float(np.abs(self.samples).max()) if len(self.samples) else 0.0


def read_sound(path: str | os.PathLike, video_start: float = 0.0, rate: int = RATE, cancel=None) -> Sound | None:
    """The first audio stream of ``path``, or None when it has none. ``cancel.check()``
    is called between packets."""
    pieces = sound_pieces(path, video_start, rate, None, cancel)
    if pieces is None:
        return None
    read = list(pieces)  # never empty: the last piece is always given, with the problem if any
    return Sound(np.concatenate([p.samples for p in read]), rate, read[-1].problem)


def sound_pieces(path: str | os.PathLike, video_start: float = 0.0, rate: int = RATE, longest: float | None = None,
                 cancel=None) -> Iterator[Sound] | None:
    """The first audio stream of ``path`` in pieces of at most ``longest`` seconds (None:
    one piece), each cut at the quietest 0.1 s of its last third (``quiet_cut``), so that a
    long film's sound is never held whole; None when there is no audio stream. Piece k
    starts where piece k-1 ends, the first at the first video frame; the last says the
    ``problem`` there was, if any."""
    container = open_container(path, 0)
    if not container.streams.audio:
        container.close()
        return None
    return _pieces(container, video_start, rate, longest, cancel)


def _pieces(container, video_start: float, rate: int, longest: float | None, cancel) -> Iterator[Sound]:
    import av

    try:
        stream = container.streams.audio[0]
        resampler = av.AudioResampler(format="flt", layout="mono", rate=rate)
        size = int(longest * rate) if longest else None
        held: list[np.ndarray] = []  # samples on the picture's clock not yet given out
        count = decoded = to_drop = 0
        started = False
        problem = ""

        def take(chunk: np.ndarray) -> None:
            nonlocal count, decoded, to_drop
            decoded += len(chunk)
            dropped = min(to_drop, len(chunk))  # sound from before the first video frame
            to_drop -= dropped
            held.append(chunk[dropped:])
            count += len(chunk) - dropped

        try:
            for frame in decode_packets(stream, container.demux(stream)):
                if cancel is not None:
                    cancel.check()
                if not started:
                    started = True
                    first = float(frame.pts * frame.time_base) if frame.pts is not None else _stream_start(stream)
                    shift = int(round((first - video_start) * rate))
                    if shift > 0:  # sound that starts later is preceded by silence
                        held.append(np.zeros(shift, np.float32))
                        count += shift
                    to_drop = max(0, -shift)
                for out in resampler.resample(frame):
                    take(out.to_ndarray().reshape(-1))
                if size is not None and count > size:
                    samples = np.concatenate(held)
                    cut = quiet_cut(samples[:size], rate)
                    yield Sound(samples[:cut], rate)
                    held, count = [samples[cut:]], len(samples) - cut
            for out in resampler.resample(None):
                take(out.to_ndarray().reshape(-1))
        except (av.error.FFmpegError, ValueError) as exc:  # resampler or decoder gave up
            problem = f"the audio stream cannot be read after {decoded / rate:.1f} s ({exc})"
        if not decoded and not problem:
            problem = "the audio stream has no decodable sound"
        samples = np.concatenate(held) if held else np.zeros(0, np.float32)
        yield Sound(samples.astype(np.float32, copy=False), rate, problem)
    finally:
        container.close()


def quiet_cut(samples: np.ndarray, rate: int) -> int:
    """Where to end a piece of ``samples``: the middle of its quietest 0.1 s (least energy)
    in its last third, a pause between sentences, so that no word is cut in two."""
    step = rate // 10
    lo = 2 * len(samples) // 3
    frames = samples[lo:len(samples) - (len(samples) - lo) % step].reshape(-1, step).astype(np.float32)
    if not len(frames):
        return len(samples)
    return lo + step * int(np.argmin((frames ** 2).mean(axis=1))) + step // 2


def _stream_start(stream) -> float:
    return float(stream.start_time * stream.time_base) if stream.start_time is not None else 0.0


