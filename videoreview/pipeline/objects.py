"""The objects stage: COCO objects in frames sampled once a second, followed through each shot.

``compute`` (cached) runs the objects engine on each sampled frame, read at most 512 px
on its long side (the detector's input); boxes are kept in display pixels. ``apply``
(every time, cheap) links the detections of one label whose boxes overlap from sample to
sample into object tracks, never across a cut (as face tracks), and lets an object be
missed in one sample and stay the same track. Only sure tracks are kept: seen in
MIN_DETECTIONS samples or more with a mean score of SURE or more. Captions, summaries, the
library and the window say every track the Analysis holds; the detections of the tracks
dropped stay, with no track (-1).
"""

from __future__ import annotations

import bisect
from dataclasses import replace

import numpy as np

from ..engines.base import ProgressFn
from ..engines.faces.tracking import iou
from ..media import FrameSource, scaled_size
from ..media.shared_pass import read_alone
from ..records import Analysis, ObjectDetection, ObjectTrack
from .cancel import CancelToken
from .faces import cut_frames

SAMPLE_RATE = 1.0
LONG_SIDE = 512  # CenterNet's input side: frames are read no larger
LINK_IOU = 0.3  # boxes of one label in neighbouring samples overlapping this much: the same object
GAP = 1  # samples an object may be missed in and stay the same track
# On the caption set, right tracks scored 0.41-0.68 and wrong ones 0.32-0.38 (and a dog on
# a cat 0.44, which the classifier's sure "tabby" overrules in captions: subjects.same_kind);
# a single detection, however sure, was more often wrong than right.
SURE = 0.4
MIN_DETECTIONS = 2


class ObjectStage:
    name = "objects"

    def __init__(self, engine, sample_rate: float = SAMPLE_RATE) -> None:
        self.engine = engine
        self.sample_rate = sample_rate

    def compute(self, source: FrameSource, progress: ProgressFn, cancel: CancelToken) -> dict:
        return read_alone(source, self.reader(source), progress, cancel)

    def reader(self, source: FrameSource) -> ObjectReader:
        return ObjectReader(self, source)

    def apply(self, analysis: Analysis, result: dict, previous: Analysis | None) -> Analysis:
        engine = f"{self.engine.name}@{self.engine.version}"
        detections, tracks = object_tracks(result["samples"], cut_frames(analysis.boundaries),
                                           1.0 / result["sample_rate"], analysis.video.duration, engine)
        return replace(analysis, objects=tuple(detections), object_tracks=tuple(tracks))


class ObjectReader:
    """The stage's samples at the detector's size (media/shared_pass.py)."""

    def __init__(self, stage: ObjectStage, source: FrameSource) -> None:
        info = source.info
        self.stage = stage
        self.indices = source.sample_indices(stage.sample_rate)
        self.size = scaled_size(info.width, info.height, min(LONG_SIDE, max(info.width, info.height)))
        self.batch = 8
        self.scale = info.width / self.size[0]  # read pixels -> display pixels
        self.samples: list[dict] = []

    def take(self, batch) -> None:
        for frame_index, time, frame in zip(batch.indices, batch.times, batch.frames):
            found = self.stage.engine.detect(frame)
            self.samples.append({"time": round(float(time), 6), "frame": int(frame_index), "objects": [
                [label, round(score, 3), *(round(v * self.scale, 1) for v in box)] for label, score, box in found]})

    def result(self) -> dict:
        return {"sample_rate": self.stage.sample_rate, "samples": self.samples}


def object_tracks(samples: list[dict], cuts: list[int], step: float, duration: float, engine: str = ""
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
        for det in sorted(sample["objects"], key=lambda d: -d[1]):
            label, box = det[0], tuple(det[2:6])
            scored = [(iou(t["box"], box), k) for k, t in enumerate(live)
                      if t["label"] == label and k not in taken]
            overlap, k = max(scored, default=(0.0, -1))
            found.append((i, sample, det))
            if overlap >= LINK_IOU:
                taken.add(k)
                live[k].update(box=box, last=i)
                members[live[k]["track"]].append(len(found) - 1)
            else:
                open_tracks.append({"label": label, "box": box, "last": i, "shot": shot, "track": len(members)})
                members.append([len(found) - 1])
        open_tracks = [t for t in open_tracks if i - t["last"] <= GAP]
    track_of = [-1] * len(found)
    tracks: list[ObjectTrack] = []
    for indices in members:
        scores = [found[j][2][1] for j in indices]
        if len(indices) < MIN_DETECTIONS or np.mean(scores) < SURE:
            continue
        first, last = found[indices[0]], found[indices[-1]]
        end = samples[last[0] + 1]["time"] if last[0] + 1 < len(samples) else min(duration, last[1]["time"] + step)
        for j in indices:
            track_of[j] = len(tracks)
        tracks.append(ObjectTrack(id=len(tracks), label=first[2][0], start=first[1]["time"], end=round(end, 6),
                                  score=round(float(np.mean(scores)), 3), detections=len(indices), engine=engine))
    detections = [ObjectDetection(time=s["time"], frame=s["frame"], label=d[0], box=tuple(d[2:6]), score=d[1],
                                  track=track_of[j]) for j, (_, s, d) in enumerate(found)]
    return detections, tracks


def make_stages(engine, chosen: dict[str, str], device: str) -> list[ObjectStage]:
    return [ObjectStage(engine)]
