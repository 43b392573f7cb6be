"""Whether captions make sense to a person: do they name the shot's subject, do their object
labels hold still within a shot, and do they say things that are not there.

The labels are hand-written per shot: ``subject``, the words a caption may use for what
the shot shows at any level of the hierarchy ("tabby", "cat", "animal"), and ``also``,
other words that are true of it ("grass" beside a man with a tripod). A caption's object
labels are the WordNet lemmas above the ImageNet classes (resources/imagenet_hierarchy.tsv)
that it contains as whole words, longest first, outside quotations (what is said or
written on screen), less the words a caption's own grammar uses (``GRAMMAR``). Scores, per clip and overall:

- subject named: the share of captions in shots with a subject that name it, over all
  such shots and over those whose subject the engine can name at all (``known``: the
  builtin engines know ImageNet's classes and the categories above them, faces and text;
  no caption of theirs can name the moon);
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
# The caption's sentence about the filming camera ("The camera zooms out."): it names no camera in the picture.
CAMERA_SENTENCE = re.compile(r"\bthe camera [^.;]*[.;]?", re.IGNORECASE)


@dataclass(frozen=True)
class ShotLabels:
    start: float
    end: float
    subject: tuple[str, ...]
    also: tuple[str, ...] = ()
    known: bool = True  # whether the engine scored can name the subject at all


def shot_labels(data: dict) -> list[ShotLabels]:
    """The shots of a labels file ({"shots": [{start, end, subject, also, known}]});
    KeyError, TypeError or ValueError when it is not one."""
    return [ShotLabels(float(s["start"]), float(s["end"]), tuple(s["subject"]), tuple(s.get("also", ())),
                       bool(s.get("known", True))) for s in data["shots"]]


@dataclass(frozen=True)
class SenseScore:
    captions: int
    with_subject: int  # captions in shots with a subject
    named: int  # ...that name it
    known: int  # captions in shots whose subject the engine can name at all
    known_named: int  # ...that name it
    false: int  # captions with an object label that is neither the shot's subject nor also true
    churn: tuple[int, ...]  # distinct object labels said in each shot

    @property
    def subject_named(self) -> float | None:
        return self.named / self.with_subject if self.with_subject else None

    @property
    def known_subject_named(self) -> float | None:
        return self.known_named / self.known if self.known else None

    @property
    def false_labels(self) -> float:
        return self.false / self.captions if self.captions else 0.0

    @property
    def churn_mean(self) -> float:
        return sum(self.churn) / len(self.churn) if self.churn else 0.0

    @property
    def churn_max(self) -> int:
        return max(self.churn, default=0)

    def to_dict(self) -> dict:
        return {"captions": self.captions, "subject_named": self.subject_named,
                "known_subject_named": self.known_subject_named, "churn_mean": self.churn_mean,
                "churn_max": self.churn_max, "false_labels": self.false_labels}


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
    people" names nobody; an identity id (P1, P2, ...) or a face names a person; the
    sentence about the filming camera names no camera."""
    if "person" in terms and re.search(r"\bP\d+\b|\bfaces?\b", caption):
        return True
    text = CAMERA_SENTENCE.sub(" ", caption).lower()
    return any(re.search(r"(?<!\bno )\b" + re.escape(term.lower()) + r"s?\b", text) for term in terms)


def score(captions: list[tuple[float, str]], shots: list[ShotLabels]) -> SenseScore:
    """``captions``: (time, text) pairs; ``shots``: the labels of the clip's shots."""
    named = with_subject = known = known_named = false = counted = 0
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
            said = _names(text, shot.subject)
            with_subject += 1
            named += said
            known += shot.known
            known_named += said and shot.known
    return SenseScore(counted, with_subject, named, known, known_named, false, tuple(map(len, per_shot)))


def combine(scores: list[SenseScore]) -> SenseScore:
    """Several clips' scores as one."""
    counts = ("captions", "with_subject", "named", "known", "known_named", "false")
    return SenseScore(*(sum(getattr(s, name) for s in scores) for name in counts),
                      churn=tuple(n for s in scores for n in s.churn))
