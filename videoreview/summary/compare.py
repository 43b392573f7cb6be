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
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..engines.base import ProgressFn
from ..errors import Cancelled, VideoReviewError
from ..records import Analysis, Summary
from .visil import MAX_KEYWORDS, Scorer, Source, extract_keywords, log_p, mask_caption, pareto_frontier, select

# alpha in ViSIL + alpha * tau, in nats per token: from "tokens are free" to "a token costs
# as much as a nat of loss", so the sweep reaches the cheapest summary on any scorer.
DEFAULT_ALPHAS = (0.0, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0)
BUILTIN_REFERENCE_CHARS = 4000  # joined captions are cut here: keywords come from the first 20 anyway


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


def read_reference(path: str | os.PathLike) -> Reference:
    """A reference description from a UTF-8 text file (stripped; may be empty);
    VideoReviewError naming the file when it cannot be read."""
    try:
        text = Path(path).read_text(encoding="utf-8").strip()
    except UnicodeDecodeError:
        raise VideoReviewError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise VideoReviewError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return Reference(text, f"file {Path(path).name}")


def builtin_reference(analysis: Analysis) -> Reference:
    """The frame captions in time order, each said once, as one paragraph."""
    seen, parts = set(), []
    for caption in sorted(analysis.captions, key=lambda c: c.time):
        text = caption.text.strip().rstrip(".")
        if text and text not in seen:
            seen.add(text)
            parts.append(text)
    return Reference(". ".join(parts)[:BUILTIN_REFERENCE_CHARS], "builtin captions")


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


# -- scorers and references for a video ----------------------------------------------------
VIDEO_FRAMES = 8  # frames a VLM scorer sees for "the whole video" (and describes it from)


def video_frame_indices(analysis: Analysis, count: int = VIDEO_FRAMES) -> list[int]:
    n = analysis.video.frame_count
    return sorted({min(n - 1, int((i + 0.5) * n / count)) for i in range(count)}) if n > 0 else []


def frame_reader(video_path: str):
    """read_frames(indices) -> RGB frames, decoding from ``video_path`` (in the order asked)."""
    from ..media import open_video

    def read_frames(indices):
        wanted = list(indices)
        with open_video(video_path) as source:
            batch = source.frames_at_indices(sorted(set(wanted)))
        by_index = dict(zip((int(i) for i in batch.indices), batch.frames))
        return [by_index[int(i)] for i in wanted]

    return read_frames


@dataclass
class ScoringSetup:
    """A scorer for one video, with the reference and keywords it implies."""

    scorer: Scorer
    reference: Reference
    keywords: list[str]
    release: Callable[[], None] = lambda: None


def prepare(analysis: Analysis, video_path: str, scorer_spec: str = "builtin", reference: Reference | None = None,
            progress: ProgressFn | None = None, device: str = "auto") -> ScoringSetup:
    """``scorer_spec`` names the scoring engine (see engines.registry). Without a
    ``reference`` a VLM describes the video (prompt F.1) and the builtin scorer uses the
    builtin captions joined. Keywords: the VLM's (prompt F.2) when it gives usable ones,
    else the rule-based ones."""
    from ..engines import registry

    engine = registry.create("scoring", scorer_spec, device)
    if progress is not None:
        progress(0.0, engine.loading)
    read_frames = frame_reader(video_path)
    frames = video_frame_indices(analysis)
    scorer = engine.scorer(analysis, read_frames, frames)
    if reference is None and engine.describes:
        if progress is not None:
            progress(0.0, "describing the video")
        reference = Reference(engine.describe(read_frames(frames)), f"VLM caption ({scorer.name})")
    reference = reference or builtin_reference(analysis)
    keywords = engine.keywords(reference.text) or extract_keywords(reference.text)
    return ScoringSetup(scorer, reference, keywords, engine.release)
