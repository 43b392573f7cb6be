"""SRT and WebVTT subtitles from frame captions or from boundary captions.

Both formats are a few lines of text per cue, so they are written here rather than
through a library; the tests read them back with pysubs2 (a subtitle library) to prove
players will.
"""

from __future__ import annotations

import bisect
import os
from dataclasses import dataclass
from pathlib import Path

from ...records import SHOT_CHANGE_KINDS, Analysis, write_atomic

BOUNDARY_CUE_SECONDS = 3.0  # how long a boundary caption stays up (less when the next boundary comes first)


@dataclass(frozen=True)
class Cue:
    start: float
    end: float
    text: str


def caption_cues(analysis: Analysis) -> list[Cue]:
    """One cue per frame caption, up to the next caption or shot change (a caption
    describes the shot it was made in) or the end of the video."""
    captions = sorted(analysis.captions, key=lambda c: c.time)
    changes = sorted(b.time for b in analysis.boundaries if b.kind in SHOT_CHANGE_KINDS)
    cues = []
    for i, caption in enumerate(captions):
        end = captions[i + 1].time if i + 1 < len(captions) else analysis.video.duration
        j = bisect.bisect_right(changes, caption.time)
        if j < len(changes):
            end = min(end, changes[j])
        if end > caption.time:
            cues.append(Cue(caption.time, end, caption.text))
    return cues


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
