"""The analysis's tracks in one shape for every writer: objects (label: the COCO label),
faces (label "face", attribute identity: the reviewer's name for it, else its P-id) and
bodies (label "person", attribute identity where a face named it, with their keypoints).
Boxes are (x, y, w, h) in the video's display pixels; keys are frame numbers. A track's
boxes are those of the samples it was seen in (objects once a second, faces twice, bodies
five times): no box is made up between them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ..records import Analysis

Box = tuple[float, float, float, float]
CAPABILITIES = ("objects", "faces", "poses")


@dataclass(frozen=True)
class Track:
    capability: str  # "objects", "faces" or "poses"
    id: int  # the track's id in the Analysis (ObjectTrack.id, FaceTrack.id, PoseTrack.id)
    label: str
    boxes: dict[int, Box]  # frame -> box, in frame order
    attributes: dict[str, str] = field(default_factory=dict)
    keypoints: dict[int, tuple[float, ...]] = field(default_factory=dict)  # frame -> 17 x (x, y, score)

    @property
    def first(self) -> int:
        return next(iter(self.boxes))

    @property
    def last(self) -> int:
        return next(reversed(self.boxes))


def tracks(analysis: Analysis) -> list[Track]:
    """Every object, face and body track with boxes, in that order, each by id."""
    return [*object_tracks(analysis), *face_tracks(analysis), *body_tracks(analysis)]


def _boxes(items) -> dict[int, dict[int, Box]]:
    by_track: dict[int, dict[int, Box]] = defaultdict(dict)
    for item in sorted(items, key=lambda i: i.frame):
        if item.track >= 0:
            by_track[item.track][item.frame] = tuple(item.box)
    return by_track


def object_tracks(analysis: Analysis) -> list[Track]:
    boxes = _boxes(analysis.objects)
    return [Track("objects", t.id, t.label, boxes[t.id]) for t in analysis.object_tracks if boxes.get(t.id)]


def identity_name(analysis: Analysis, identity: str | None) -> str:
    """What a file calls an identity: the reviewer's name for it, else its P-id ("" for none)."""
    return analysis.person_name(identity) if identity else ""


def face_tracks(analysis: Analysis) -> list[Track]:
    boxes = _boxes(analysis.faces)
    return [Track("faces", t.id, "face", boxes[t.id], {"identity": identity_name(analysis, t.identity)})
            for t in analysis.face_tracks if boxes.get(t.id)]


def body_tracks(analysis: Analysis) -> list[Track]:
    boxes = _boxes(analysis.pose_samples)
    points: dict[int, dict[int, tuple[float, ...]]] = defaultdict(dict)
    for sample in analysis.pose_samples:
        points[sample.track][sample.frame] = sample.keypoints
    return [Track("poses", t.id, "person", boxes[t.id], {"identity": identity_name(analysis, t.identity)},
                  points[t.id]) for t in analysis.poses if boxes.get(t.id)]
