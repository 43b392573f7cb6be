"""Which things a shot is said to show: the object detector, the ImageNet classifier and
the person detectors voted together, shot by shot, so that a label one model makes up
alone is not said.

On real footage nobody here made, each model alone names things that are not there (a
parrot's head was a "teddy bear" to the detector, a dark board a "tv"; night buildings a
"solar dish" to the classifier, a music video's open collar a "Windsor tie") and misses
what the other sees (the detector's "bird" samples on the parrot never made a sure
track; the classifier's parrot stayed under its bar). Where two independent models agree
on a thing, it is there far more often (benchmarks/real_labels.py: what the app says of
the real-footage corpus, against its hand-written truth). Per shot:

- An object track of a COCO label is kept where the classifier agrees, the mean over the
  shot's samples of its probability on the ImageNet classes that mean the label ("bird":
  the 59 bird classes; ``MEANS`` for labels the hierarchy files elsewhere) being AGREE or
  more in the crops or the whole picture; or where the detector is sure alone (ALONE). The
  classifier sees the whole scene, so it rarely speaks for a small car in a wide street:
  there the detector's own score decides.
- People: ImageNet has no class for a person, but three detectors look for one: faces,
  bodies (the poses stage) and the object detector. Each sees people in cartoon animals,
  abstract patterns and penguins now and then, always weakly. A shot shows someone where
  one of them is sure: a face track scoring FACE_SURE, a body BODY_SURE or a person track
  PERSON_ALONE. Elsewhere its person tracks and bodies are not kept, and its captions name
  no face.
- The subject: the classifier alone is believed only where it is very sure in both views
  (SURE_ALONE): on the corpus, a category it gave 0.2 to 0.7 was wrong more often than
  right. Otherwise a COCO label seen MIN_BACKING times in the shot (in a sure track or
  not) that the classifier backs with BACKED is the subject, said as the most specific
  category under it the classifier gives SPECIFIC_BACKED ("parrot" under "bird").

- Where an image-text model is chosen, its names of the shot (the shot tags,
  engines/embeddings/naming.py: names it matches in at least half of the shot's frames, at its
  own calibration) are a third, independent voter. A track whose label one of them means
  (``means``: the same word, an ImageNet class meaning it, or a kind of it: "parrot" means
  "bird") is kept, as the classifier's agreement keeps it. After the classifier and the
  detector-classifier agreement, a COCO label seen MIN_BACKING times that a name means is the
  subject, said as that name ("parrot"); else the model's most probable name of a thing or
  scene whose mean probability over the shot is NAME_SURE or more (the model says "a match"
  on average, not only in most frames) is the subject alone, where the classifier has none.
  Without an image-text model a shot has no names and all of this is as before.

The thresholds were chosen on the tuning part of the real-footage corpus only
(benchmarks/real_labels.py --set), never on its held-out part; NAME_SURE is the
model's own decision point (a probability of 0.5), which no real weights here could tune.
"""

from __future__ import annotations

import bisect
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache

from ...engines.captions.builtin import Sample
from ...engines.captions.subjects import PLAIN_WORDS, subject_word, sure_categories
from ...records import SHOT_CHANGE_KINDS, Analysis, ObjectDetection, ObjectTrack

AGREE = 0.1  # the classifier's mean probability on a label's classes that agrees with the detector
ALONE = 0.6  # the mean detection score at which a track is kept without the classifier's agreement
PERSON_ALONE = 0.6  # ...and the mean score of a person track that shows someone is there
FACE_SURE = 0.75  # the mean score of a face track that does
BODY_SURE = 0.5  # the mean score of a body (the poses stage's person track) that does
SURE_ALONE = 0.85  # a category's mean probability in both views at which the classifier is believed alone
BACKED = 0.3  # the classifier's mean probability on a detected label's classes that makes it the subject
MIN_BACKING = 2  # ...with this many detections of the label in the shot, sure or not
SPECIFIC_BACKED = 0.4  # ...said as a category under the label where the classifier gives it this much
NAME_SURE = 0.5  # an image-text name's mean probability over the shot at which it is the subject alone
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
    names: Sequence[tuple[str, float]] = ()  # the image-text model's names (shot tags) with their probability

    @property
    def someone(self) -> bool:
        """Whether one of the three person detectors is sure of someone in the shot."""
        return (max(self.faces, default=0.0) >= FACE_SURE or max(self.bodies, default=0.0) >= BODY_SURE
                or any(t.label == "person" and t.score >= PERSON_ALONE for t in self.tracks))


@cache
def classes_meaning(label: str) -> frozenset[str]:
    """The ImageNet classes that mean a COCO label: those under its synset, or ``MEANS``."""
    from ...coco_kinds import COCO_KINDS
    from ...engines.boundaries.features import imagenet_labels
    from ...taxonomy import taxonomy

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
    return track.score >= ALONE or (agreed is not None and agreed >= AGREE) or named(shot, track.label) is not None


def means(name: str, label: str) -> bool:
    """Whether an image-text name means a COCO label: the same word, one of the ImageNet
    classes meaning it, or a kind of it in the hierarchy ("parrot" of "bird")."""
    from ...coco_kinds import COCO_KINDS
    from ...taxonomy import taxonomy

    if name == label or name in classes_meaning(label):
        return True
    entry = COCO_KINDS.get(label)
    if entry is None or entry.under is not None:
        return name in (entry.words if entry else ())
    tax = taxonomy()
    return name in entry.words or any(entry.synset in tax.ancestors(s) for s in tax.synsets(name))


def named(shot: Shot, label: str) -> str | None:
    """The image-text model's most probable name of the shot that means ``label``, or None."""
    return next((name for name, _ in shot.names if means(name, label)), None)


def sure_name(shot: Shot) -> str | None:
    """The image-text model's most probable name of a thing or scene in the shot (not a
    style of picture: "a cartoon" says how, not what), where it is NAME_SURE on average."""
    from ...engines.embeddings.naming import kind_of

    return next((name for name, p in shot.names if p >= NAME_SURE and kind_of(name) != "style"), None)


def subject(shot: Shot) -> str | None:
    """The word for what the shot shows, or None: the classifier's subject where it is sure
    alone (SURE_ALONE in both views), else what a detected label and the classifier agree on,
    else what a detected label and the image-text model agree on, else the image-text
    model's name where it is sure alone (NAME_SURE)."""
    said = subject_word(shot.crops, shot.whole, sure=SURE_ALONE, specific=SURE_ALONE)
    if said is not None:
        return said
    counts = Counter(d.label for d in shot.detections if d.label != "person")
    for label, n in counts.most_common():
        if n >= MIN_BACKING and (agreement(shot, label) or 0.0) >= BACKED:
            return _backed_word(shot, label)
    for label, n in counts.most_common():  # the detector and the image-text model agree
        if n >= MIN_BACKING and (name := named(shot, label)) is not None:
            return name
    return sure_name(shot)


def _backed_word(shot: Shot, label: str) -> str:
    """The word for a detected ``label`` the classifier agrees with: the most specific
    category under it that the classifier gives SPECIFIC_BACKED on average in the crops
    ("parrot" for a "bird"), else the label's own."""
    from ...coco_kinds import COCO_KINDS
    from ...taxonomy import taxonomy

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
    """What the models saw in each shot of ``analysis`` that has a sample (shot numbers of
    ``shot_of(frame)``), with the captions stage's ``samples``; each record grouped once."""
    shot_at = time_to_shot(analysis, shot_of)
    group: dict[str, dict[int, list]] = {name: defaultdict(list) for name in
                                         ("crops", "whole", "tracks", "detections", "faces", "bodies", "names")}
    for sample in samples:
        k = shot_of(sample.frame)
        group["crops"][k].append(sample.labels)
        group["whole"][k].append(sample.whole)
    track_shot = {d.track: shot_of(d.frame) for d in analysis.objects if d.track >= 0}
    for track in analysis.object_tracks:
        group["tracks"][track_shot.get(track.id, -1)].append(track)
    for d in analysis.objects:
        group["detections"][shot_of(d.frame)].append(d)
    for face in analysis.face_tracks:
        group["faces"][shot_at(face.start)].append(face.score)
    for body in analysis.poses:
        group["bodies"][shot_at(body.start)].append(body.score)
    for tag in sorted(analysis.shot_tags, key=lambda t: -t.score):  # most probable first
        group["names"][shot_of(tag.frame)].append((tag.name, tag.score))
    return {k: Shot(**{name: by_shot.get(k, []) for name, by_shot in group.items()}) for k in group["crops"]}


def time_to_shot(analysis: Analysis, shot_of: Callable[[int], int]) -> Callable[[float], int]:
    """The shot number at a time, from ``shot_of(frame)`` and the analysis's cuts."""
    cuts = sorted((b.time, b.frame) for b in analysis.boundaries if b.kind in SHOT_CHANGE_KINDS)
    times = [t for t, _ in cuts]

    def shot_at(time: float) -> int:
        n = bisect.bisect_right(times, time)
        return shot_of(cuts[n - 1][1] if n else 0)

    return shot_at


def nobody(shots: dict[int, Shot]) -> set[int]:
    """The shots where no person detector is sure of anyone."""
    return {k for k, shot in shots.items() if not shot.someone}


# The stages whose detectors look for people, and how long a shot lasts for them to have
# checked it (nobody_seen).
PERSON_STAGES = ("faces", "poses", "objects")
CHECKED_SECONDS = 2.0


def nobody_seen(analysis: Analysis, shots: dict[int, Shot]) -> set[int]:
    """The shots (numbered from 1 at each shot change, as the captions stage's shot_of) the
    person detectors checked and saw nobody in: what a caption may say "no people seen" of.
    All three ran (PERSON_STAGES in the analysis's engines), the shot lasts CHECKED_SECONDS
    or more, and none of them saw anyone in the video, even weakly (anyone_seen).

    Why CHECKED_SECONDS: each looks at every shot at least once a second (faces twice a
    second; objects once, and four times while unsure; poses once where nobody is, PROBE) and
    is sure of a person only after several looks (a face or a person track seen twice; a
    body in MIN_SAMPLES samples a fifth of a second apart, after the look that found it). In
    two seconds, someone there throughout has been seen often enough by each to be sure
    of; a shorter shot was not checked at that rate, and its captions say nothing about people.
    Why the whole video: someone seen in one of its shots may be in another unseen (from
    behind, small, cut off by the frame). On the real-footage corpus's tuning part, 30 of
    the 64 captions whose "no people" the truth denied were of shots in videos where a
    detector saw someone in another (a montage's crowds, a band, a snowboarder)."""
    if not all(stage in analysis.engines for stage in PERSON_STAGES) or anyone_seen(analysis):
        return set()
    cuts = sorted((b.frame, b.time) for b in analysis.boundaries if b.kind in SHOT_CHANGE_KINDS)
    edges = [0.0, *(t for _, t in cuts), analysis.video.duration]

    def length(k: int) -> float:  # shot k (1-based, shot_of) runs from the cut before it to the one after
        return edges[min(k, len(edges) - 1)] - edges[min(k - 1, len(edges) - 1)]

    return {k for k in shots if length(k) >= CHECKED_SECONDS}


def anyone_seen(analysis: Analysis) -> bool:
    """Whether one of the three person detectors saw someone in the video, however weakly:
    a face track, a body (the poses stage's), or a person detection in a track or not."""
    return bool(analysis.face_tracks or analysis.poses or any(d.label == "person" for d in analysis.objects))


def keep_agreed_tracks(analysis: Analysis, shots: dict[int, Shot], shot_of: Callable[[int], int]) -> Analysis:
    """``analysis`` with only the object tracks kept by the vote, and the bodies of the shots
    where someone is; the detections of the other tracks stay, with no track (-1), as the
    objects stage leaves a track it was not sure of."""
    kept = {t.id for shot in shots.values() for t in shot.tracks if kept_track(shot, t)}
    shot_less = {t.id for t in analysis.object_tracks} - {t.id for s in shots.values() for t in s.tracks}
    kept |= shot_less  # a track in no sampled shot (a clip shorter than a sample) stays as it was
    empty = nobody(shots)
    shot_at = time_to_shot(analysis, shot_of)
    return replace(analysis, object_tracks=tuple(t for t in analysis.object_tracks if t.id in kept),
                   objects=tuple(d if d.track in kept or d.track < 0 else replace(d, track=-1)
                                 for d in analysis.objects),
                   poses=tuple(p for p in analysis.poses if shot_at(p.start) not in empty))
