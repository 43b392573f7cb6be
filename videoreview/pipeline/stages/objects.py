"""The objects stage: COCO objects in frames sampled once a second, followed through each shot.

``compute`` (cached) runs the objects engine on a frame a second, read at most 512 px on
its long side (the detector's input), and looks closer where it is unsure (AdaptiveSampling:
four frames a second while a label it found is not yet sure); boxes are kept in display
pixels. ``apply`` (every time, cheap) links the detections of one label whose boxes
overlap from sample to sample into object tracks, never across a cut (as face tracks),
and lets an object be missed in one sample and stay the same track. Only sure tracks are
kept (confident_track): seen in MIN_DETECTIONS samples or more with a mean score of SURE
(SURE_PERSON for people) or more, or in SEEN_LONG samples with SURE_LONG. Captions,
summaries, the library and the window say every track the Analysis holds; the detections
of the tracks dropped stay, with no track (-1).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ...media import FrameSource, scaled_size
from ...records import Analysis, ObjectDetection, ObjectTrack
from ...tracking import cut_frames, iou
from . import track_edits
from .base import SampledStage
from .cost import StageCost
from .people_seen import PERSON, SharedPeople
from .result import StageResult

SAMPLE_RATE = 1.0
LONG_SIDE = 512  # CenterNet's input side: frames are read no larger
LINK_IOU = 0.3  # boxes of one label in neighbouring samples overlapping this much: the same object
NEAR = 0.75  # or a box of its size this many of its heights away (_likeness)
GAP = 1  # samples an object may be missed in and stay the same track
DUPLICATE = 0.7  # boxes overlapping this much in one sample are one thing (one_per_thing)
# Measured by benchmarks/object_labels.py (39 clips: the caption set, the pose clips, real
# footage; labels once per shot against hand-written ones), NanoDet at one sample a second:
# a mean score of 0.4 said 43 labels, 72 % right, recall 62 %; 0.55 said 22, 95 % right,
# recall 53 %. People are kept from 0.4: the person labels this adds on the set (2 shots
# of 34 wanted) were right; other labels under 0.55 were mostly wrong (a dog on a cat, a
# bowl on coins, a cake on a box).
SURE = 0.55
SURE_PERSON = 0.4
MIN_DETECTIONS = 2
# A thing seen again and again is surer than its mean says: a cup filmed for six seconds
# scores 0.52-0.58 throughout. From SEEN_LONG detections, SURE_LONG is enough (with looking
# closer, below: 27 labels said, 93 % right, 65 % found; with this, 30, 93 %, 68 %; the
# same for 4 to 8 detections and 0.5 to 0.52).
SEEN_LONG = 5
SURE_LONG = 0.5
# Looking closer (AdaptiveSampling), measured the same way: a label's mean score over one sample a
# second is a guess in a short shot (bikes.mp4 cuts every two seconds). Four samples a
# second throughout found 65 % (93 % right) for 3.5 times the detector's work; looking
# closer only at unsure labels finds as many for 1.25 times.
LOOK_RATE = 4.0  # samples a second while a label is unsure
LOOK_WINDOW = 3.0  # seconds of a label's detections that say whether it is sure
LOOK_SAMPLES = 3  # detections of an unsure label in the window after which it is given up


@dataclass(frozen=True)
class ObjectResult(StageResult):
    """Per sample looked at (a dict: ``time``, ``frame``, ``objects``: [label, score, x, y,
    w, h] each) what the detector found."""

    sample_rate: float
    samples: tuple[dict, ...]


class ObjectReader:
    """The stage's samples at the detector's size (media/shared_pass.py)."""

    def __init__(self, stage: ObjectStage, source: FrameSource) -> None:
        info = source.info
        self.stage = stage
        self.indices = source.sample_indices(max(stage.sample_rate, stage.look_rate))
        self.size = scaled_size(info.width, info.height, min(LONG_SIDE, max(info.width, info.height)))
        self.batch = 8
        self.scale = info.width / self.size[0]  # read pixels -> display pixels
        self.closer = AdaptiveSampling(stage.sample_rate, stage.look_rate)
        self.samples: list[dict] = []
        # where the poses and faces stages of this pass learn where people are (people_seen.py)
        self.seen = stage.people.for_source(source) if stage.people is not None else None
        if self.seen is not None:
            self.seen.attach()

    def status(self) -> str:
        return ""  # the pass says "frame N/TOTAL"

    def take(self, batch) -> None:
        for frame_index, time, frame in zip(batch.indices, batch.times, batch.frames):
            if self.closer.due(float(time)):
                found = self.stage.engine.detect(frame)
                objects = [[label, round(score, 3), *(round(v * self.scale, 1) for v in box)]
                           for label, score, box in found]
                self.closer.saw(float(time), objects)
                self.samples.append({"time": round(float(time), 6), "frame": int(frame_index), "objects": objects})
                if self.seen is not None:
                    self.seen.looked(float(time), [tuple(o[2:6]) for o in objects if o[0] == PERSON])
            if self.seen is not None:
                self.seen.known_to(float(time))
        if self.seen is not None and len(batch) and int(batch.indices[-1]) == int(self.indices[-1]):
            self.seen.finish()

    def result(self) -> ObjectResult:
        if self.seen is not None:
            self.seen.finish()
        return ObjectResult(self.stage.sample_rate, tuple(self.samples))


class ObjectStage(SampledStage):
    name = "objects"
    cost = StageCost(0.04, load=0.2)  # 30-61 ms a sample on 6 tuning clips, median 38
    revision = 1  # 1: looks closer at unsure labels (it had been raised in both detectors' versions)
    sample_rate = SAMPLE_RATE
    look_rate = LOOK_RATE  # sample_rate or less: never look closer
    Reader = ObjectReader
    Result = ObjectResult
    # shared with the poses and faces stages of the same analysis (people_seen.share_people):
    # its readers publish the person boxes they find there
    people: SharedPeople | None = None

    def apply(self, analysis: Analysis, result: ObjectResult, previous: Analysis | None) -> Analysis:
        engine = self.engine_tag
        detections, tracks = object_tracks(result.samples, cut_frames(analysis.boundaries),
                                           1.0 / result.sample_rate, analysis.video.duration, engine)
        analysis = replace(analysis, objects=tuple(detections), object_tracks=tuple(tracks))
        return track_edits.replayed(analysis, "objects")  # the reviewer's relabels, deletions, moves


class AdaptiveSampling:
    """Which of the frames offered at ``look_rate`` the detector sees: one each
    ``1 / rate`` seconds, and every one while a label the last of them found is unsure:
    in the last LOOK_WINDOW seconds, seen fewer than MIN_DETECTIONS times or under its SURE
    on average, and fewer than LOOK_SAMPLES times (then the detector is taken to be wrong)."""

    def __init__(self, rate: float, look_rate: float) -> None:
        self.step, self.look_step = 1.0 / rate, 1.0 / max(rate, look_rate)
        self.last = -np.inf
        self.unsure = False
        self.seen: dict[str, list[tuple[float, float]]] = {}  # label -> (time, score) in the window

    def due(self, time: float) -> bool:
        # 0.8: offered frames fall on the video's frames, not exactly 1 / look_rate apart
        return time - self.last >= 0.8 * (self.look_step if self.unsure else self.step)

    def saw(self, time: float, objects: list[list]) -> None:
        """What the detector found at ``time`` ([label, score, x, y, w, h] each)."""
        self.last = time
        labels = set()
        for label, score, *_ in one_per_thing(objects):
            self.seen.setdefault(label, []).append((time, score))
            labels.add(label)
        self.seen = {label: [s for s in seen if time - s[0] <= LOOK_WINDOW] for label, seen in self.seen.items()}
        self.unsure = any(self._unsure(label) for label in labels)

    def _unsure(self, label: str) -> bool:
        scores = [score for _, score in self.seen[label]]
        sure = SURE_PERSON if label == "person" else SURE
        return len(scores) < LOOK_SAMPLES and (len(scores) < MIN_DETECTIONS or np.mean(scores) < sure)


def object_tracks(samples: Sequence[dict], cuts: list[int], step: float, duration: float, engine: str = ""
                  ) -> tuple[list[ObjectDetection], list[ObjectTrack]]:
    """The detections of every sample, each with its track, and the tracks (see above)."""
    cuts = sorted(cuts)
    found: list[tuple[int, dict, list]] = []  # (sample index, sample, [label, score, x, y, w, h])
    members: list[list[int]] = []  # per track: indices into found
    open_tracks: list[dict] = []  # label, box, last sample index, shot, track number
    for i, sample in enumerate(samples):
        shot = bisect.bisect_right(cuts, sample["frame"])
        live = [t for t in open_tracks if t["shot"] == shot and i - t["last"] <= GAP + 1]
        taken: set[int] = set()
        for det in one_per_thing(sample["objects"]):
            label, box = det[0], tuple(det[2:6])
            scored = [(_likeness(t["box"], box), k) for k, t in enumerate(live)
                      if t["label"] == label and k not in taken]
            likeness, k = max(scored, default=(0.0, -1))
            found.append((i, sample, det))
            if likeness > 0:
                taken.add(k)
                live[k].update(box=box, last=i)
                members[live[k]["track"]].append(len(found) - 1)
            else:
                open_tracks.append({"label": label, "box": box, "last": i, "shot": shot, "track": len(members)})
                members.append([len(found) - 1])
        open_tracks = [t for t in open_tracks if i - t["last"] <= GAP]
    # when each cut comes, from the samples' frames and times
    cut_times = [(f, float(np.interp(f, [s["frame"] for s in samples], [s["time"] for s in samples])))
                 for f in cuts] if samples else []
    track_of = [-1] * len(found)
    tracks: list[ObjectTrack] = []
    for indices in members:
        scores = [found[j][2][1] for j in indices]
        if not confident_track(found[indices[0]][2][0], scores):
            continue
        first, last = found[indices[0]], found[indices[-1]]
        end = samples[last[0] + 1]["time"] if last[0] + 1 < len(samples) else min(duration, last[1]["time"] + step)
        end = min([end, *(t for f, t in cut_times if f > last[1]["frame"])])  # it ends with its shot
        for j in indices:
            track_of[j] = len(tracks)
        tracks.append(ObjectTrack(id=len(tracks), label=first[2][0], start=first[1]["time"], end=round(end, 6),
                                  score=round(float(np.mean(scores)), 3), detections=len(indices), engine=engine))
    detections = [ObjectDetection(time=s["time"], frame=s["frame"], label=d[0], box=tuple(d[2:6]), score=d[1],
                                  track=track_of[j]) for j, (_, s, d) in enumerate(found)]
    return detections, tracks


def confident_track(label: str, scores: list[float]) -> bool:
    """Whether a track of ``label`` with these detection scores is sure enough to say."""
    if len(scores) < MIN_DETECTIONS:
        return False
    mean = float(np.mean(scores))
    if label == "person":
        return mean >= SURE_PERSON
    return mean >= SURE or (len(scores) >= SEEN_LONG and mean >= SURE_LONG)


def one_per_thing(objects: list[list]) -> list[list]:
    """A sample's detections, most sure first, one per thing: of two boxes of one label, one
    mostly inside the other (``DUPLICATE`` of the smaller) is the same thing seen twice; of two
    labels on nearly the same box (``DUPLICATE`` IoU), the detector was unsure which it is,
    and the surer is kept."""
    kept: list[list] = []
    for det in sorted(objects, key=lambda d: -d[1]):
        box = tuple(det[2:6])
        if not any(iou(box, tuple(k[2:6])) >= DUPLICATE or (k[0] == det[0] and _inside(box, tuple(k[2:6])))
                   for k in kept):
            kept.append(det)
    return kept


def _inside(a, b) -> bool:
    """Whether the smaller of boxes a and b lies ``DUPLICATE`` or more inside the larger."""
    w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    return w > 0 and h > 0 and w * h >= DUPLICATE * min(a[2] * a[3], b[2] * b[3])


def _likeness(a, b) -> float:
    """How surely box b, a sample later, is the object of box a: their IoU where it is LINK_IOU
    or more; a little (0.01) where b is of a's size and its centre within NEAR of a's height
    (a person walking moves a body height a second, and boxes a second apart need not
    overlap); else 0."""
    overlap = iou(a, b)
    if overlap >= LINK_IOU:
        return overlap
    distance = np.hypot(a[0] + a[2] / 2 - b[0] - b[2] / 2, a[1] + a[3] / 2 - b[1] - b[3] / 2)
    ratio = (a[2] * a[3]) / max(b[2] * b[3], 1e-6)
    return 0.01 if distance <= NEAR * max(a[3], b[3]) and 2 / 3 <= ratio <= 3 / 2 else 0.0
