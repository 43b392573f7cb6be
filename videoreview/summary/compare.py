"""Comparing summaries of one video by ViSIL under one scorer.

The reference description C comes from one of three places, and the result says which:
a VLM's detailed caption of the video (the paper's prompt F.1), a description the user
typed or loaded from a file, or, with neither, the builtin frame captions joined. Its
keywords are extracted once; log P(C | V) is computed once; each summary then costs one
scoring call. Rows carry the scorer's name and whether it is an approximation, so no
score is ever shown without them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

from ..records import Analysis, Summary
from .visil import MAX_KEYWORDS, Scorer, Source, extract_keywords, log_p, mask_caption, pareto_frontier, select

# alpha in ViSIL + alpha * tau: from "tokens are free" to "one token costs as much as
# 0.1 nats of loss" (a 3-image summary then needs to save ~100 nats to beat text).
DEFAULT_ALPHAS = (0.0, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1)
BUILTIN_REFERENCE_CHARS = 4000  # joined captions are cut here: keywords come from the first 20 anyway


class Cancelled(Exception):
    """The comparison was cancelled between two scoring calls."""


@dataclass(frozen=True)
class Reference:
    """The detailed description C of the video, and where it came from."""

    text: str
    origin: str  # e.g. "VLM caption (llava-onevision-0.5b)", "file notes.txt", "typed", "builtin captions"


@dataclass(frozen=True)
class Row:
    """One summary's score, ready to show or write."""

    format: str  # "text", or the number of images ("1", "3", ...); "3 images, no text" for keyframes only
    visil: float  # nats; lower loses less
    tokens: int  # tau: the scorer's input tokens for the summary
    scorer: str
    approximate: bool
    keyframes: tuple[int, ...]
    text: str

    def to_json(self) -> dict:
        return {"format": self.format, "visil": round(self.visil, 4), "tokens": self.tokens, "scorer": self.scorer,
                "keyframes": list(self.keyframes), "text": self.text}


@dataclass(frozen=True)
class Comparison:
    reference: Reference
    keywords: tuple[str, ...]
    log_p_video: float
    rows: tuple[Row, ...]
    frontier: tuple[int, ...]  # indices of rows on the Pareto frontier, by increasing tokens
    choices: tuple[tuple[float, int], ...] = field(default=())  # (alpha, index of the row chosen)

    @property
    def scorer(self) -> str:
        return self.rows[0].scorer if self.rows else ""


def format_label(summary: Summary) -> str:
    n = len(summary.keyframe_frames)
    if summary.format == "text" or n == 0:
        return "text"
    return str(n) if summary.format == "keyframes+text" else f"{n} image{'s' if n > 1 else ''}, no text"


def builtin_reference(analysis: Analysis) -> Reference:
    """The frame captions in time order, each said once, as one paragraph."""
    seen, parts = set(), []
    for caption in sorted(analysis.captions, key=lambda c: c.time):
        text = caption.text.strip().rstrip(".")
        if text and text not in seen:
            seen.add(text)
            parts.append(text)
    return Reference(". ".join(parts)[:BUILTIN_REFERENCE_CHARS], "builtin captions")


ProgressFn = Callable[[float, str], None]


def compare(summaries: Sequence[Summary], scorer: Scorer, reference: Reference, *,
            keywords: Sequence[str] | None = None, alphas: Sequence[float] = DEFAULT_ALPHAS,
            progress: ProgressFn | None = None, cancelled: Callable[[], bool] | None = None) -> Comparison:
    """Score each summary against ``reference`` with ``scorer``. ``keywords`` default to
    the rule-based extraction; ``cancelled`` is checked before each scoring call."""
    if not reference.text.strip():
        raise ValueError("the reference description is empty: nothing to measure a summary against")
    words = list(keywords) if keywords is not None else extract_keywords(reference.text)
    words = words[:MAX_KEYWORDS]
    if not words:
        raise ValueError(f"the reference description ({reference.origin}) has no keywords to recover")
    masked = mask_caption(reference.text, words)
    steps = len(summaries) + 1

    def step(done: int, message: str) -> None:
        if cancelled is not None and cancelled():
            raise Cancelled()
        if progress is not None:
            progress(done / steps, message)

    step(0, "scoring the whole video")
    video = log_p(words, masked, Source("video"), scorer)
    rows = []
    for n, summary in enumerate(summaries):
        label = format_label(summary)
        step(n + 1, f"scoring summary '{label}'")
        source = Source("summary", summary.text, tuple(summary.keyframe_frames))
        loss = video - log_p(words, masked, source, scorer)
        if math.isnan(loss):
            raise ValueError(f"scorer {scorer.name} gave NaN for summary '{label}'")
        rows.append(Row(label, loss, scorer.tokens(source), scorer.name, scorer.approximate,
                        tuple(summary.keyframe_frames), summary.text))
    if progress is not None:
        progress(1.0, "done")
    points = [(r.visil, r.tokens) for r in rows]
    chosen = select(points, alphas) if rows else []
    return Comparison(reference, tuple(words), video, tuple(rows), tuple(pareto_frontier(points)),
                      tuple(zip(alphas, chosen)))
