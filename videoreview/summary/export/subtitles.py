"""SRT and WebVTT subtitles from frame captions, from boundary captions, or of what is said.

Both formats are a few lines of text per cue, so they are written here rather than
through a library; the tests read them back with pysubs2 (a subtitle library) to prove
players will.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...records import Analysis, FrameCaption, TranscriptSegment, Word, write_atomic

BOUNDARY_CUE_SECONDS = 3.0  # how long a boundary caption stays up (less when the next boundary comes first)
# Speech cues: at most two lines of 42 characters and 7 seconds (the usual broadcast and
# streaming guidelines); a new cue after a pause of PAUSE seconds.
CUE_CHARS, CUE_SECONDS, PAUSE = 84, 7.0, 1.0
SENTENCE_END = (".", "?", "!", "…", "。", "？", "！")


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


def segment_words(segment: TranscriptSegment) -> tuple[Word, ...]:
    """The segment's words with their times; for a segment a reviewer retyped (its words
    no longer match its text) the new words share its time in proportion to their length."""
    if segment.words and not segment.edited:
        return segment.words
    words = segment.text.split()
    total = sum(len(w) + 1 for w in words) or 1
    out, at = [], segment.start
    for word in words:
        length = (segment.end - segment.start) * (len(word) + 1) / total
        out.append(Word(at, at + length, word))
        at += length
    return tuple(out)


def speech_cues(analysis: Analysis) -> list[Cue]:
    """What is said, a cue at a time: words gathered until a sentence ends, a pause, a cut,
    or the cue is full; the speaker's name starts a cue when it is known."""
    cuts = analysis.shot_changes()
    cues = []
    for segment in sorted(analysis.transcript, key=lambda s: s.start):
        speaker = f"{analysis.person_name(segment.speaker)}: " if segment.speaker else ""
        current: list[Word] = []

        def close() -> None:
            if current:
                cues.append(Cue(current[0].start, max(current[-1].end, current[0].start + 0.2),
                                speaker + " ".join(w.text for w in current)))
                current.clear()

        for word in segment_words(segment):
            if current:
                text = " ".join(w.text for w in current + [word])
                cut_between = any(current[-1].end <= c <= word.start + 0.05 for c in cuts)
                if (len(speaker + text) > CUE_CHARS or word.end - current[0].start > CUE_SECONDS
                        or word.start - current[-1].end > PAUSE or cut_between):
                    close()
            current.append(word)
            if word.text.endswith(SENTENCE_END):
                close()
        close()
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


def srt_text(cues: list[Cue]) -> str:
    # SRT has no escapes and players read <...> as markup: angle brackets become ‹ ›.
    blocks = [f"{n}\n{_clock(c.start, ',')} --> {_clock(c.end, ',')}\n"
              f"{_one_line(c.text).replace('<', '‹').replace('>', '›')}\n" for n, c in enumerate(cues, 1)]
    return "\n".join(blocks)


def vtt_text(cues: list[Cue]) -> str:
    blocks = ["WEBVTT\n"] + [f"{_clock(c.start, '.')} --> {_clock(c.end, '.')}\n"
                             f"{_one_line(c.text).replace('&', '&amp;').replace('<', '&lt;')}\n" for c in cues]
    return "\n".join(blocks)


def write_srt(cues: list[Cue], path: str | os.PathLike) -> None:
    write_atomic(Path(path), srt_text(cues).encode("utf-8"))


def write_vtt(cues: list[Cue], path: str | os.PathLike) -> None:
    write_atomic(Path(path), vtt_text(cues).encode("utf-8"))
