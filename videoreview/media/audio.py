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
    import av

    container = open_container(path, 0)
    try:
        if not container.streams.audio:
            return None
        stream = container.streams.audio[0]
        resampler = av.AudioResampler(format="flt", layout="mono", rate=rate)
        chunks: list[np.ndarray] = []
        first: float | None = None  # time of the first decoded sample
        problem = ""
        try:
            for frame in decode_packets(stream, container.demux(stream)):
                if cancel is not None:
                    cancel.check()
                if first is None:
                    first = float(frame.pts * frame.time_base) if frame.pts is not None else _stream_start(stream)
                for out in resampler.resample(frame):
                    chunks.append(out.to_ndarray().reshape(-1))
            for out in resampler.resample(None):
                chunks.append(out.to_ndarray().reshape(-1))
        except (av.error.FFmpegError, ValueError) as exc:  # resampler or decoder gave up
            read = sum(map(len, chunks)) / rate
            problem = f"the audio stream cannot be read after {read:.1f} s ({exc})"
        samples = np.concatenate(chunks) if chunks else np.zeros(0, np.float32)
        if not chunks and not problem:
            problem = "the audio stream has no decodable sound"
        offset = (first if first is not None else 0.0) - video_start
        return Sound(_align(samples.astype(np.float32, copy=False), offset, rate), rate, problem)
    finally:
        container.close()


def _stream_start(stream) -> float:
    return float(stream.start_time * stream.time_base) if stream.start_time is not None else 0.0


def _align(samples: np.ndarray, offset: float, rate: int) -> np.ndarray:
    """Shift sound that starts ``offset`` seconds after the picture onto the picture's clock."""
    shift = int(round(offset * rate))
    if shift > 0:
        return np.concatenate([np.zeros(shift, np.float32), samples])
    return samples[-shift:]
