"""ProgressCaptioner's two automatic caption checks, and how often captions repeat.

There are no reference captions for individual frames, so the paper (Xue et al., Sec. 3.2
and supplementary 2.2) scores captions with two judged tasks:

Progression detection: a judge (the paper uses Llama-3.1-70B-Instruct) reads the captions
of two frames and says whether they describe action progression. Frame pairs carry a
hand-made progression label; the score is balanced accuracy, the mean of the true
positive and true negative rates, because most pairs do show progression.

Caption matching: for each of M visually distinct frames, a judge VLM (the paper uses
Gemini-1.5-Pro) sees the frame and all M captions plus a "none of the above" option and
picks one. A sequence counts only when every frame picks its own caption (sequence-level
accuracy), which stops lucky guesses on a few frames from scoring.

The judges are plain callables so that a model judge (prompts in
``engines.captions.prompts``, replies read by ``parse_choice``) or a stand-in can be
plugged in; nothing here loads a model.

Caption diversity is not from the paper: it counts the failure the paper is about, a
captioner giving two different frames the same caption.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..records import FrameCaption

# (caption of image 1, caption of image 2) -> "A" progression, "B" none, "C" uncertain,
# or None when the judge's reply could not be read.
ProgressionJudge = Callable[[str, str], str | None]
# (RGB frame, captions) -> index of the chosen caption, len(captions) for "none of the
# above", or None when the reply could not be read.
MatchingJudge = Callable[[np.ndarray, Sequence[str]], int | None]

_ANSWERS = ("A", "B", "C", None)


def normalise(text: str) -> str:
    """Case, punctuation and whitespace removed, so "A man cuts." equals "a man  cuts"."""
    return " ".join(re.sub(r"[^\w\s]|_", " ", text.casefold()).split())


def text_change_judge(first: str, second: str) -> str:
    """"B" (no progression) when the captions say the same once normalised, else "A".

    A lexical stand-in for the paper's LLM judge, usable without a model: it only notices
    that the wording changed, not whether the action advanced, so any rephrasing counts
    as progression. Scores from it are not comparable with the paper's.
    """
    return "B" if normalise(first) == normalise(second) else "A"


@dataclass(frozen=True)
class ProgressionResult:
    balanced_accuracy: float
    tpr: float | None  # None when there are no progression pairs
    tnr: float | None  # None when there are no no-progression pairs
    n: int
    positives: int  # pairs labelled as progression
    negatives: int
    uncertain: int  # "C" or unreadable answers, all scored wrong

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def progression_detection(
    pairs: Sequence[tuple[str, str, bool]], judge: ProgressionJudge
) -> ProgressionResult:
    """Balanced accuracy of ``judge`` on (caption 1, caption 2, progression label) pairs.

    "A" predicts progression, "B" none. "C" (uncertain) and None (unreadable) are wrong
    whatever the label: a judge that cannot tell from the captions means the captions did
    not show it. With only one class present, the score is that class's rate.
    """
    if not pairs:
        raise ValueError("progression_detection needs at least one caption pair")
    hits = {True: 0, False: 0}
    totals = {True: 0, False: 0}
    uncertain = 0
    for k, (first, second, label) in enumerate(pairs):
        answer = judge(first, second)
        if answer not in _ANSWERS:
            raise ValueError(f"pair {k}: judge answered {answer!r}; expected 'A', 'B', 'C' or None")
        label = bool(label)
        totals[label] += 1
        if answer in ("A", "B"):
            hits[label] += (answer == "A") == label
        else:
            uncertain += 1
    tpr = hits[True] / totals[True] if totals[True] else None
    tnr = hits[False] / totals[False] if totals[False] else None
    rates = [r for r in (tpr, tnr) if r is not None]
    return ProgressionResult(
        balanced_accuracy=sum(rates) / len(rates),
        tpr=tpr,
        tnr=tnr,
        n=len(pairs),
        positives=totals[True],
        negatives=totals[False],
        uncertain=uncertain,
    )


@dataclass(frozen=True)
class MatchingResult:
    sequence_accuracy: float  # the paper's metric
    frame_accuracy: float
    n_sequences: int
    n_frames: int
    none_chosen: int  # frames answered "none of the above"
    unreadable: int  # frames whose answer could not be read
    correct_frames: tuple[int, ...]  # per sequence; the paper rejects a sequence with more than half wrong

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def caption_matching(
    sequences: Sequence[tuple[Sequence[np.ndarray], Sequence[str]]], judge: MatchingJudge
) -> MatchingResult:
    """Sequence- and frame-level caption matching accuracy.

    Each sequence is (frames, captions) for M visually distinct frames. Frame m is shown
    with all M captions (the judge adds the "none" option) and is right only when it picks
    caption m; "none" and unreadable answers are wrong.
    """
    if not sequences:
        raise ValueError("caption_matching needs at least one sequence")
    correct_frames: list[int] = []
    none_chosen = unreadable = n_frames = 0
    for k, (frames, captions) in enumerate(sequences):
        if len(frames) != len(captions):
            raise ValueError(f"sequence {k}: {len(frames)} frames but {len(captions)} captions")
        if not captions:
            raise ValueError(f"sequence {k} is empty")
        captions = list(captions)
        correct = 0
        for m, frame in enumerate(frames):
            choice = judge(frame, captions)
            if choice is None:
                unreadable += 1
            elif not 0 <= choice <= len(captions):
                raise ValueError(f"sequence {k}, frame {m}: judge chose {choice!r} "
                                 f"of {len(captions)} captions")
            elif choice == len(captions):
                none_chosen += 1
            correct += choice == m
        correct_frames.append(correct)
        n_frames += len(captions)
    whole = sum(c == len(captions) for c, (_, captions) in zip(correct_frames, sequences))
    return MatchingResult(
        sequence_accuracy=whole / len(sequences),
        frame_accuracy=sum(correct_frames) / n_frames,
        n_sequences=len(sequences),
        n_frames=n_frames,
        none_chosen=none_chosen,
        unreadable=unreadable,
        correct_frames=tuple(correct_frames),
    )


@dataclass(frozen=True)
class DiversityResult:
    identical_rate: float | None  # identical among distinct pairs; None when there are none
    unique_ratio: float  # distinct caption texts / captions
    captions: int
    unique: int
    pairs: int  # adjacent pairs of distinct frames
    identical: int  # of those, pairs with the same caption

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def caption_diversity(
    captions: Sequence[str | FrameCaption], distinct: Sequence[bool] | None = None
) -> DiversityResult:
    """How often adjacent frames that differ get the same caption (after ``normalise``).

    ``distinct`` has one entry per adjacent pair, True when the two frames differ; without
    it every pair counts as distinct. A progress-aware captioner should keep this near 0.
    """
    if not captions:
        raise ValueError("caption_diversity needs at least one caption")
    texts = [normalise(c.text if isinstance(c, FrameCaption) else c) for c in captions]
    n_pairs = len(texts) - 1
    if distinct is None:
        distinct = [True] * n_pairs
    elif len(distinct) != n_pairs:
        raise ValueError(f"distinct has {len(distinct)} entries; {len(texts)} captions make {n_pairs} pairs")
    pairs = identical = 0
    for k in range(n_pairs):
        if distinct[k]:
            pairs += 1
            identical += texts[k] == texts[k + 1]
    unique = len(set(texts))
    return DiversityResult(
        identical_rate=identical / pairs if pairs else None,
        unique_ratio=unique / len(texts),
        captions=len(texts),
        unique=unique,
        pairs=pairs,
        identical=identical,
    )
