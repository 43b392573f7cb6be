"""ViSIL: how much of a video a summary loses (Video Summary Information Loss, 2026).

    ViSIL(C; V | S) = log P(C | V) - log P(C | S)

C is a detailed description of the video, V the video, S a summary (text, keyframes +
text, keyframes). As in the paper, P(C | X) is approximated by keyword recovery: up to 20
keywords of C are masked, and a scorer gives P(k_i | X, masked C) for each; log P(C | X)
is the sum of their logs. Lower is better. Scores are comparable only under one scorer.

Choosing a summary trades loss against cost: minimise ViSIL + alpha * tau(S), tau being
the scorer's input tokens for the summary; sweeping alpha walks the Pareto frontier.

This module is the arithmetic, the keyword extraction used without a language model, and
the selection; scorers (engines/scoring/: builtin and VLM) implement :class:`Scorer`.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..engines.scoring.protocol import MASK, MAX_KEYWORDS, Scorer, Source
from ..paths import package_dir

__all__ = ["MASK", "MAX_KEYWORDS", "Scorer", "Source", "Score", "extract_keywords", "mask_caption", "log_p", "visil",
           "pareto_frontier", "select"]

# Words that carry no content of a video: function words and the vocabulary of describing
# a video itself. scikit-learn's English list plus our own.
_EXTRA_STOPWORDS = frozenset(
    "video clip footage scene frame frames shot shots camera static also then while".split())


@functools.cache
def english_stop_words() -> frozenset[str]:
    """scikit-learn's English stopword list (318 function words)."""
    # Read from its own small module file: importing it through the package would load
    # sklearn's numerical stack too (over a second).
    path = package_dir("sklearn") / "feature_extraction" / "_stop_words.py"
    module = importlib.util.module_from_spec(importlib.util.spec_from_file_location("_sklearn_stop_words", path))
    module.__spec__.loader.exec_module(module)
    return frozenset(module.ENGLISH_STOP_WORDS)


def _stopwords() -> frozenset[str]:
    return english_stop_words() | _EXTRA_STOPWORDS


_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*", re.UNICODE)


def extract_keywords(text: str, limit: int = MAX_KEYWORDS) -> list[str]:
    """Rule-based keywords (used when no language model is installed): content words in
    order of first appearance, lowercased, each once, in their original form (no
    stemming); stopwords, numbers and one-letter words are left out."""
    stop = _stopwords()
    keywords: list[str] = []
    for match in _WORD.finditer(text):
        word = match.group(0).lower()
        if len(word) < 2 or word in stop or word.isdigit() or word in keywords:
            continue
        keywords.append(word)
        if len(keywords) == limit:
            break
    return keywords


def mask_caption(text: str, keywords: Sequence[str]) -> str:
    """``text`` with the first occurrence of each keyword (in order, as a whole word,
    case-insensitive) replaced by [MASK]."""
    position = 0
    out = []
    for keyword in keywords:
        match = re.compile(rf"(?<![^\W_]){re.escape(keyword)}(?![^\W_])", re.IGNORECASE).search(text, position)
        if match is None:
            continue
        out.append(text[position:match.start()])
        out.append(MASK)
        position = match.end()
    out.append(text[position:])
    return "".join(out)


@dataclass(frozen=True)
class Score:
    visil: float  # log P(C | V) - log P(C | S); lower is better
    log_p_video: float
    log_p_summary: float
    tokens: int  # tau(S)
    keywords: tuple[str, ...]
    scorer: str
    approximate: bool


def log_p(keywords: Sequence[str], masked: str, source: Source, scorer: Scorer) -> float:
    values = scorer.keyword_log_probs(keywords, masked, source)
    if len(values) != len(keywords):
        raise ValueError(f"scorer {scorer.name} gave {len(values)} log-probabilities for {len(keywords)} keywords")
    if any(v > 1e-9 or math.isnan(v) for v in values):
        raise ValueError(f"scorer {scorer.name} gave a log-probability above 0 or NaN: {values}")
    return float(sum(values))


def visil(reference: str, keywords: Sequence[str], summary: Source, scorer: Scorer,
          video_log_p: float | None = None) -> Score:
    """ViSIL of ``summary`` for the reference description; ``video_log_p`` (log P(C | V))
    can be passed in when several summaries of one video are scored."""
    masked = mask_caption(reference, keywords)
    if video_log_p is None:
        video_log_p = log_p(keywords, masked, Source("video"), scorer)
    summary_log_p = log_p(keywords, masked, summary, scorer)
    return Score(video_log_p - summary_log_p, video_log_p, summary_log_p, scorer.tokens(summary), tuple(keywords),
                 scorer.name, scorer.approximate)


def pareto_frontier(points: Sequence[tuple[float, float]]) -> list[int]:
    """Indices of the (loss, cost) points no other point beats on both (lower is better),
    in order of increasing cost."""
    order = sorted(range(len(points)), key=lambda i: (points[i][1], points[i][0]))
    frontier, best = [], math.inf
    for i in order:
        if points[i][0] < best:
            frontier.append(i)
            best = points[i][0]
    return frontier


def select(points: Sequence[tuple[float, float]], alphas: Sequence[float]) -> list[int]:
    """For each alpha, the index minimising loss + alpha * cost (ties: the cheaper)."""
    return [min(range(len(points)), key=lambda i: (points[i][0] + alpha * points[i][1], points[i][1]))
            for alpha in alphas]
