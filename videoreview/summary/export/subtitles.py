"""SRT and WebVTT subtitles from frame captions or from boundary captions.

Both formats are a few lines of text per cue, so they are written here rather than
through a library; the tests read them back with pysubs2 (a subtitle library) to prove
players will.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...records import Analysis, FrameCaption, write_atomic

BOUNDARY_CUE_SECONDS = 3.0  # how long a boundary caption stays up (less when the next boundary comes first)


@dataclass(frozen=True)
class Cue:
    start: float
    end: float
    text: str


def caption_spans(analysis: Analysis, end_of_video: float | None = None) -> tuple[list[FrameCaption], np.ndarray]:
    """The frame captions in time order and when each stops applying: at the next caption,
    the next cut or transition (a caption describes the shot it was made in), or the end
    of the video. The timeline lays its caption blocks out the same way."""
    captions = sorted(analysis.captions, key=lambda c: (c.time, c.frame))
    starts = np.array([c.time for c in captions], np.float64)
    end = analysis.video.duration if end_of_video is None else end_of_video
    ends = np.append(starts[1:], end) if captions else np.empty(0)
    changes = np.array(analysis.shot_changes(), np.float64)
    if len(changes) and len(starts):
        following = np.searchsorted(changes, starts, side="right")
        ends = np.minimum(ends, np.append(changes, np.inf)[following])
    return captions, ends


def caption_cues(analysis: Analysis) -> list[Cue]:
    """One cue per frame caption, for as long as it applies (see :func:`caption_spans`)."""
    captions, ends = caption_spans(analysis)
    return [Cue(c.time, float(end), c.text) for c, end in zip(captions, ends) if end > c.time]


def boundary_cues(analysis: Analysis) -> list[Cue]:
    """One cue per captioned boundary: "Subject: before → after" for a few seconds."""
    bounds = sorted(analysis.boundaries, key=lambda b: b.time)
    cues = []
    for i, boundary in enumerate(bounds):
        if boundary.caption is None:
            continue
        end = boundary.time + BOUNDARY_CUE_SECONDS
        if i + 1 < len(bounds):
            end = min(end, bounds[i + 1].time)
        end = min(end, analysis.video.duration)
        c = boundary.caption
        if end > boundary.time:
            cues.append(Cue(boundary.time, end, f"{c.subject}: {c.before} → {c.after}"))
    return cues


def _clock(seconds: float, separator: str) -> str:
    ms = max(0, round(seconds * 1000))
    hours, ms = divmod(ms, 3_600_000)
    minutes, ms = divmod(ms, 60_000)
    secs, ms = divmod(ms, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}{separator}{ms:03d}"


def _one_line(text: str) -> str:
    # A blank line ends a cue in both formats; "-->" would read as a timing line.
    return " ".join(text.split()).replace("-->", "→")


def write_srt(cues: list[Cue], path: str | os.PathLike) -> None:
    # SRT has no escapes and players read <...> as markup: angle brackets become ‹ ›.
    blocks = [f"{n}\n{_clock(c.start, ',')} --> {_clock(c.end, ',')}\n"
              f"{_one_line(c.text).replace('<', '‹').replace('>', '›')}\n" for n, c in enumerate(cues, 1)]
    write_atomic(Path(path), "\n".join(blocks).encode("utf-8"))


def write_vtt(cues: list[Cue], path: str | os.PathLike) -> None:
    blocks = ["WEBVTT\n"] + [f"{_clock(c.start, '.')} --> {_clock(c.end, '.')}\n"
                             f"{_one_line(c.text).replace('&', '&amp;').replace('<', '&lt;')}\n" for c in cues]
    write_atomic(Path(path), "\n".join(blocks).encode("utf-8"))
