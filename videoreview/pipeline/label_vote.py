"""Which things a shot is said to show: the object detector and the ImageNet classifier
voted together, shot by shot, so that a label one model makes up alone is not said.

On real footage nobody here made, each model alone names things that are not there (a
parrot's head was a "teddy bear" to the detector, a dark board a "tv"; night buildings a
"solar dish" to the classifier), and each misses what the other sees (the detector's
"bird" samples on the parrot never made a sure track; the classifier's parrot stayed
under its bar). The two are independent: where they agree on a thing, it is there far
more often than where one says it alone (benchmarks/real_labels.py, the corpus's tuning
part). So, per shot:

- An object track of a COCO label is kept where the classifier agrees: the mean, over
  the shot's samples, of its probability on the ImageNet classes that mean that label
  ("bird": the 59 bird classes; ``MEANS`` for labels the hierarchy files elsewhere) is
  AGREE or more in the crops or the whole picture. A label the classifier cannot speak
  for (``MEANS`` has no class for it) is kept when the detector alone is sure: a mean
  score of ALONE or more. People are kept where a face or a body (the faces and poses
  stages) is seen in the shot, or from PERSON_ALONE.
- The classifier's subject (subjects.subject_word, sure in both views) is said where the
  detector does not contradict it, and where its category is not one the corpus shows the
  classifier calls wrongly on video (``DOUBTED``) unless the detector backs it.
- Where the classifier is not sure alone, the detector's label backs it: with detections
  of a COCO label in the shot (kept or not), the most specific category under that label
  whose mean probability is BACKED or more is the subject ("parrot" under "bird").

The thresholds are calibrated on the tuning part of the real-footage corpus only
(benchmarks/real_labels.py --set), never on its held-out part.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache

from ..engines.captions.builtin import Sample
from ..engines.captions.subjects import PLAIN_WORDS, subject_word, sure_categories
from ..records import SHOT_CHANGE_KINDS, Analysis, ObjectDetection, ObjectTrack

AGREE = 0.1  # the classifier's mean probability on a label's classes that agrees with the detector
ALONE = 0.6  # the mean detection score at which a track is kept without the classifier's agreement
PERSON_ALONE = 0.6  # ...and the mean score of a person track that shows someone is there
FACE_SURE = 0.75  # the mean score of a face track that does
BODY_SURE = 0.5  # the mean score of a body (the poses stage's person track) that does
SURE_ALONE = 0.85  # a category's mean probability in both views at which the classifier is believed alone
BACKED = 0.3  # the classifier's mean probability on a detected label's classes that makes it the subject
MIN_BACKING = 2  # ...with this many detections of the label in the shot, sure or not
SPECIFIC_BACKED = 0.4  # ...said as a category under the label where the classifier gives it this much
# COCO labels whose meaning the WordNet hierarchy files under a broad category (coco_kinds.py),
# with the ImageNet classes that mean them: the classifier's word for the same thing.
MEANS: dict[str, tuple[str, ...]] = {
    "tv": ("television", "monitor", "screen", "home theater", "entertainment center"),
    "cup": ("cup", "coffee mug"),
    "wine glass": ("red wine", "goblet", "beer glass"),
    "book": ("book jacket", "comic book", "bookcase", "library", "bookshop", "notebook", "binder"),
    "potted plant": ("pot", "vase"),
    "tennis racket": ("racket",),
    "handbag": ("purse", "mailbag"),
    "toilet": ("toilet seat",),
    "sink": ("washbasin",),
    "cow": ("ox",),
    "stop sign": ("street sign",),
    "snowboard": ("ski",),
}


@dataclass(frozen=True)
class Shot:
    """What the models saw in one shot."""

    crops: Sequence[Sequence[tuple[str, float]]]  # the classifier's labels of each sample (square crops)
    whole: Sequence[Sequence[tuple[str, float]]]  # ...of the whole picture
    tracks: Sequence[ObjectTrack]  # the objects stage's sure tracks
    detections: Sequence[ObjectDetection]  # every detection, in a track or not
    faces: Sequence[float] = ()  # the mean score of each face track
    bodies: Sequence[float] = ()  # ...of each body (the poses stage's person tracks)

    @property
    def someone(self) -> bool:
        """Whether one of the three person detectors is sure of someone in the shot."""
        return (max(self.faces, default=0.0) >= FACE_SURE or max(self.bodies, default=0.0) >= BODY_SURE
                or any(t.label == "person" and t.score >= PERSON_ALONE for t in self.tracks))


@cache
def classes_meaning(label: str) -> frozenset[str]:
    """The ImageNet classes that mean a COCO label: those under its synset, or ``MEANS``."""
    from ..coco_kinds import COCO_KINDS
    from ..engines.boundaries.features import imagenet_labels
    from ..taxonomy import taxonomy

    if label in MEANS:
        return frozenset(MEANS[label])
    entry = COCO_KINDS.get(label)
    if entry is None or entry.under is not None:
        return frozenset()
    tax = taxonomy()
    return frozenset(name for name in imagenet_labels()
                     if any(entry.synset in tax.ancestors(s) for s in tax.synsets(name)))


def agreement(shot: Shot, label: str) -> float | None:
    """The classifier's mean probability on the classes meaning ``label`` over the shot, the
    larger of its two views; None where it has no class for it."""
    classes = classes_meaning(label)
    if not classes:
        return None
    views = [v for v in (shot.crops, shot.whole) if v and any(v)]
    return max((sum(p for labels in view for name, p in labels if name in classes) / len(view) for view in views),
               default=0.0)


def kept_track(shot: Shot, track: ObjectTrack) -> bool:
    if track.label == "person":
        return shot.someone
    agreed = agreement(shot, track.label)
    return track.score >= ALONE or (agreed is not None and agreed >= AGREE)


def subject(shot: Shot) -> str | None:
    """The word for what the shot shows, or None: the classifier's subject where it is sure
    alone (SURE_ALONE in both views), else what a detected label and the classifier agree on."""
    said = subject_word(shot.crops, shot.whole, sure=SURE_ALONE, specific=SURE_ALONE)
    if said is not None:
        return said
    counts = Counter(d.label for d in shot.detections if d.label != "person")
    for label, n in counts.most_common():
        if n >= MIN_BACKING and (agreement(shot, label) or 0.0) >= BACKED:
            return _backed_word(shot, label)
    return None


def _backed_word(shot: Shot, label: str) -> str:
    """The word for a detected ``label`` the classifier agrees with: the most specific
    category under it that the classifier gives SPECIFIC_BACKED on average in the crops
    ("parrot" for a "bird"), else the label's own."""
    from ..coco_kinds import COCO_KINDS
    from ..taxonomy import taxonomy

    entry = COCO_KINDS.get(label)
    tax = taxonomy()
    if entry is None or entry.under is not None:
        return label
    found = {s: p for s, p in sure_categories(shot.crops, SPECIFIC_BACKED, SPECIFIC_BACKED).items()
             if entry.synset in tax.ancestors(s)}
    best = max(found, key=lambda s: (len(tax.ancestors(s)), found[s])) if found else entry.synset
    word = tax.names[best]
    return PLAIN_WORDS.get(word, word)


def shots_of(analysis: Analysis, samples: Sequence[Sample], shot_of: Callable[[int], int]) -> dict[int, Shot]:
    """What the models saw in each shot of ``analysis`` (shot numbers of ``shot_of(frame)``),
    with the captions stage's ``samples``."""
    shot_at = time_to_shot(analysis, shot_of)
    numbers = {shot_of(s.frame) for s in samples}
    by_track = {d.track: shot_of(d.frame) for d in analysis.objects if d.track >= 0}
    return {k: Shot(crops=[s.labels for s in samples if shot_of(s.frame) == k],
                    whole=[s.whole for s in samples if shot_of(s.frame) == k],
                    tracks=[t for t in analysis.object_tracks if by_track.get(t.id) == k],
                    detections=[d for d in analysis.objects if shot_of(d.frame) == k],
                    faces=[t.score for t in analysis.face_tracks if shot_at(t.start) == k],
                    bodies=[p.score for p in analysis.person_tracks if shot_at(p.start) == k])
            for k in numbers}


def time_to_shot(analysis: Analysis, shot_of: Callable[[int], int]) -> Callable[[float], int]:
    """The shot number at a time, from ``shot_of(frame)`` and the analysis's cuts."""
    cut_times = [(b.frame, b.time) for b in analysis.boundaries if b.kind in SHOT_CHANGE_KINDS]
    return lambda time: shot_of(max((f for f, t in cut_times if t <= time), default=0))


def keep_agreed_tracks(analysis: Analysis, shots: dict[int, Shot], shot_of: Callable[[int], int]) -> Analysis:
    """``analysis`` with only the object tracks kept by the vote, and the bodies of the shots
    where someone is; the detections of the other tracks stay, with no track (-1), as the
    objects stage leaves a track it was not sure of."""
    kept = {t.id for shot in shots.values() for t in shot.tracks if kept_track(shot, t)}
    shot_less = {t.id for t in analysis.object_tracks} - {t.id for s in shots.values() for t in s.tracks}
    kept |= shot_less  # a track in no sampled shot (a clip shorter than a sample) stays as it was
    nobody = {k for k, shot in shots.items() if not shot.someone}
    shot_at = time_to_shot(analysis, shot_of)
    return replace(analysis, object_tracks=tuple(t for t in analysis.object_tracks if t.id in kept),
                   objects=tuple(d if d.track in kept or d.track < 0 else replace(d, track=-1)
                                 for d in analysis.objects),
                   person_tracks=tuple(p for p in analysis.person_tracks if shot_at(p.start) not in nobody))
