"""Test clips with real faces: photographs shipped in installed packages, composited into shots.

The people: Grace Hopper (matplotlib's sample_data/grace_hopper.jpg) and astronaut
Eileen Collins (scikit-image's data/astronaut.png), both public-domain photographs.
Each shot pastes them at a chosen face size and place on a plain background that
differs per shot, drifting a little every frame; a reappearance changes the pose
(mirror image, a few degrees of roll), size and exposure so it is not a pixel copy.
Ground truth: the true face box of every person in every frame. A placement can talk: its
mouth opens and closes (a dark ellipse between the lips, 4 times a second) while it does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from videos import encode_frames


@dataclass(frozen=True)
class Person:
    image: np.ndarray  # RGB head-and-shoulders crop
    face: tuple[float, float, float, float]  # x, y, w, h of the face inside ``image``
    mouth: tuple[float, float, float]  # x, y of the lips' middle and the mouth's width inside ``image``


@cache
def people() -> dict[str, Person]:
    import matplotlib.cbook
    import skimage.data

    grace = cv2.cvtColor(cv2.imread(matplotlib.cbook.get_sample_data("grace_hopper.jpg", asfileobj=False)),
                         cv2.COLOR_BGR2RGB)
    astronaut = skimage.data.astronaut()
    # Face boxes found by dlib's HOG detector on the full photographs, shifted into the crops.
    return {
        # Mouths found by MediaPipe's face mesh (landmarks 13, 14, 61 and 291) on the crops.
        "grace": Person(np.ascontiguousarray(grace[60:480, 100:460]), (80.0, 79.0, 187.0, 187.0),
                        (168.7, 218.5, 72.2)),
        "eileen": Person(np.ascontiguousarray(astronaut[10:260, 110:340]), (65.0, 66.0, 91.0, 91.0),
                         (113.0, 135.7, 44.3)),
    }


@dataclass(frozen=True)
class Placement:
    person: str
    x: float  # face centre, fraction of the frame width
    y: float  # face centre, fraction of the frame height
    face: int  # face height in pixels
    mirror: bool = False
    roll: float = 0.0  # degrees
    gain: float = 1.0  # exposure
    drift: float = 1.0  # pixels per frame to the right
    talking: tuple[tuple[float, float], ...] = ()  # seconds within the shot when the mouth moves


@dataclass(frozen=True)
class Shot:
    seconds: float
    placements: tuple[Placement, ...]
    background: tuple[int, int, int] = (70, 90, 110)


@dataclass
class FaceVideo:
    path: Path
    fps: float
    size: tuple[int, int]
    frame_count: int
    cut_frames: tuple[int, ...]
    boxes: list[list[tuple[str, tuple[float, float, float, float]]]] = field(default_factory=list)  # per frame

    def person_at(self, frame: int, box, min_iou: float = 0.3) -> str | None:
        """The true person whose face overlaps ``box`` in ``frame``."""
        from videoreview.tracking import iou

        best, best_overlap = None, min_iou
        for name, true_box in self.boxes[frame]:
            overlap = iou(true_box, box)
            if overlap >= best_overlap:
                best, best_overlap = name, overlap
        return best


def _talking(person: Person, t: float) -> np.ndarray:
    """The person's picture with the mouth open by |sin| of 4 Hz at ``t`` seconds."""
    image = person.image.copy()
    x, y, width = person.mouth
    opening = 0.3 * abs(np.sin(2 * np.pi * 2.0 * t))
    cv2.ellipse(image, (int(x), int(y)), (int(width * 0.4), max(1, int(width * opening))), 0, 0, 360,
                (60, 20, 25), -1, cv2.LINE_AA)
    return image


def _paste(canvas: np.ndarray, p: Placement, dx: float, t: float = 0.0):
    person = people()[p.person]
    scale = p.face / person.face[3]
    talking = any(a <= t < b for a, b in p.talking)
    image = cv2.resize(_talking(person, t) if talking else person.image, None, fx=scale, fy=scale,
                       interpolation=cv2.INTER_AREA)
    fx, fy, fw, fh = (v * scale for v in person.face)
    if p.mirror:
        image = image[:, ::-1]
        fx = image.shape[1] - fx - fw
    if p.roll:
        centre = (fx + fw / 2, fy + fh / 2)
        matrix = cv2.getRotationMatrix2D(centre, p.roll, 1.0)
        image = cv2.warpAffine(np.ascontiguousarray(image), matrix, (image.shape[1], image.shape[0]),
                               borderMode=cv2.BORDER_REPLICATE)
    image = np.clip(image.astype(np.float32) * p.gain, 0, 255).astype(np.uint8)
    h, w = canvas.shape[:2]
    left = int(round(p.x * w - fx - fw / 2 + dx))
    top = int(round(p.y * h - fy - fh / 2))
    x0, y0 = max(0, left), max(0, top)
    x1, y1 = min(w, left + image.shape[1]), min(h, top + image.shape[0])
    canvas[y0:y1, x0:x1] = image[y0 - top:y1 - top, x0 - left:x1 - left]
    return (left + fx, top + fy, fw, fh)


def make_face_video(path: Path, shots: list[Shot], size: tuple[int, int] = (640, 360), fps: float = 25) -> FaceVideo:
    video = FaceVideo(path, fps, size, 0, ())
    cuts = []

    def frames():
        for n, shot in enumerate(shots):
            if n:
                cuts.append(len(video.boxes))
            for k in range(int(round(shot.seconds * fps))):
                canvas = np.empty((size[1], size[0], 3), np.uint8)
                canvas[:] = shot.background
                canvas[:, :, 0] = np.linspace(shot.background[0], 255 - shot.background[0], size[0]).astype(np.uint8)
                video.boxes.append([(p.person, _paste(canvas, p, k * p.drift, k / fps)) for p in shot.placements])
                yield canvas

    encode_frames(path, frames(), fps)  # streamed: a long 720p clip never sits in memory
    video.frame_count, video.cut_frames = len(video.boxes), tuple(cuts)
    return video


# The set used by the tests: a scene of two people, and a second clip of the same people.
SCENE = [
    Shot(2.0, (Placement("grace", 0.5, 0.45, 110),), (60, 80, 100)),
    Shot(2.0, (Placement("eileen", 0.45, 0.45, 100),), (150, 120, 60)),
    Shot(2.0, (Placement("grace", 0.27, 0.5, 90, mirror=True), Placement("eileen", 0.73, 0.5, 90)), (40, 140, 90)),
    Shot(2.0, (Placement("grace", 0.6, 0.5, 130, roll=6, gain=0.85),), (120, 60, 140)),
]
SECOND_CLIP = [
    Shot(2.0, (Placement("eileen", 0.55, 0.5, 120, mirror=True, gain=1.1),), (30, 60, 160)),
    Shot(2.0, (Placement("grace", 0.4, 0.45, 100, roll=-5),), (170, 150, 120)),
]
