"""Whether captions make sense to a person: do they name the shot's subject, do their object
labels hold still within a shot, and do they say things that are not there.

The labels are hand-written per shot: ``subject``, the words a caption may use for what
the shot shows at any level of the hierarchy ("tabby", "cat", "animal"), and ``also``,
other words that are true of it ("grass" beside a man with a tripod). A caption's object
labels are the WordNet lemmas above the ImageNet classes (resources/imagenet_hierarchy.tsv)
that it contains as whole words, longest first, outside quotations (what is said or
written on screen), less the words a caption's own grammar uses (``GRAMMAR``). Scores, per clip and overall:

- subject named: the share of captions in shots with a subject that name it;
- churn: the distinct object labels said within a shot (the mean over shots, and the most);
- false labels: the share of captions with an object label that is neither subject nor also.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

# Words of the caption's form, not its content ("a medium shot", "on screen: ...").
GRAMMAR = frozenset({"camera", "shot", "face", "frame", "medium", "screen"})
QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"")  # what is said or written, quoted: not the caption's own claim


@dataclass(frozen=True)
class ShotLabels:
    start: float
    end: float
    subject: tuple[str, ...]
    also: tuple[str, ...] = ()


@dataclass(frozen=True)
class SenseScore:
    captions: int
    subject_named: float | None  # share of captions in shots with a subject; None: no such caption
    churn_mean: float
    churn_max: int
    false_labels: float


@cache
def _vocabulary() -> tuple[re.Pattern, frozenset[str]]:
    from ..taxonomy import taxonomy

    words = {lemma.lower() for lemmas in taxonomy().lemmas.values() for lemma in lemmas} - GRAMMAR
    ordered = sorted(words, key=len, reverse=True)  # "tiger cat" before "cat"
    return re.compile(r"\b(" + "|".join(map(re.escape, ordered)) + r")\b", re.IGNORECASE), frozenset(words)


def object_labels(caption: str) -> list[str]:
    """The object labels a caption says, in order, lower case (not in quotations)."""
    pattern, _ = _vocabulary()
    return [m.group(1).lower() for m in pattern.finditer(QUOTED.sub(" ", caption))]


def _names(caption: str, terms: tuple[str, ...]) -> bool:
    """Whether the caption names one of ``terms`` (a plural too), not as "no ...": "no
    people" names nobody; an identity id (P1, P2, ...) names a person."""
    if "person" in terms and re.search(r"\bP\d+\b", caption):  # an identity id names a person
        return True
    text = caption.lower()
    return any(re.search(r"(?<!\bno )\b" + re.escape(term.lower()) + r"s?\b", text) for term in terms)


def score(captions: list[tuple[float, str]], shots: list[ShotLabels]) -> SenseScore:
    """``captions``: (time, text) pairs; ``shots``: the labels of the clip's shots."""
    named = with_subject = false = counted = 0
    per_shot: list[set[str]] = [set() for _ in shots]
    for time, text in captions:
        k = next((i for i, s in enumerate(shots) if s.start <= time < s.end), None)
        if k is None:
            continue
        shot = shots[k]
        counted += 1
        labels = object_labels(text)
        per_shot[k].update(labels)
        allowed = {t.lower() for t in shot.subject + shot.also}
        false += any(label not in allowed for label in labels)
        if shot.subject:
            with_subject += 1
            named += _names(text, shot.subject)
    churn = [len(labels) for labels in per_shot]
    return SenseScore(counted, named / with_subject if with_subject else None,
                      sum(churn) / len(churn) if churn else 0.0, max(churn, default=0),
                      false / counted if counted else 0.0)


def combine(scores: list[tuple[SenseScore, int]]) -> SenseScore:
    """The scores of several clips as one: ``scores`` holds (score, number of shots) pairs;
    shares are weighted by captions, churn by shots."""
    total = sum(s.captions for s, _ in scores)
    with_subject = [(s.subject_named, s.captions) for s, _ in scores if s.subject_named is not None]
    counted = sum(n for _, n in with_subject)
    shots = sum(n for _, n in scores)
    return SenseScore(total, sum(share * n for share, n in with_subject) / counted if counted else None,
                      sum(s.churn_mean * n for s, n in scores) / shots if shots else 0.0,
                      max((s.churn_max for s, _ in scores), default=0),
                      sum(s.false_labels * s.captions for s, _ in scores) / total if total else 0.0)
