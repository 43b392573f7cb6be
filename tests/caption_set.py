"""The caption evaluation set: short clips made from real photographs that ship in the test
dependencies (scikit-image's data, matplotlib's and scikit-learn's sample images), filmed by a virtual camera
(zoom, pan, shake, a passing occlusion, cuts), each shot with hand-written labels: the
words a caption may use for its subject at any level of the hierarchy, and other words
that are true of it (videoreview/metrics/caption_sense.py scores captions against them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from videos import encode_frames

SIZE, FPS = (640, 360), 25
# The engines the set is analysed with: the builtin defaults but speech (the clips are silent).
ENGINES = {"boundaries": "builtin", "faces": "blazeface", "objects": "nanodet", "poses": "movenet",
           "screen-text": "pp-ocrv6", "captions": "builtin"}


@dataclass(frozen=True)
class Shot:
    photo: str
    motion: str  # "zoom-in", "zoom-out", "pan", "shake", "static"
    seconds: float
    subject: tuple[str, ...]  # words that name what the shot shows, at any level
    also: tuple[str, ...] = ()  # other words that are true of it
    occlusion: bool = False  # a dark bar sweeps across in the middle third
    # Whether the builtin engines can name the subject at all: an ImageNet class or a
    # WordNet category above one, a face or text. The moon, galaxies and coins are none.
    known: bool = True


CAT = ("cat", "domestic cat", "house cat", "tabby", "tabby cat", "tiger cat", "egyptian cat", "feline", "kitten",
       "pet", "animal", "mammal", "carnivore")
COFFEE = ("coffee", "espresso", "cappuccino", "cup", "coffee cup", "coffee mug", "mug", "beverage", "drink",
          "saucer", "cup of coffee")
MOTORCYCLE = ("motorcycle", "motorbike", "moped", "motor scooter", "scooter", "vehicle", "motor vehicle",
              "wheeled vehicle", "bike")
PEOPLE = ("person", "man", "woman")

CLIPS: dict[str, list[Shot]] = {
    "cat-zoom": [Shot("chelsea", "zoom-in", 6.0, CAT)],
    "coffee-pan": [Shot("coffee", "pan", 6.0, COFFEE, ("spoon", "table", "plate", "dish", "tableware"))],
    "motorcycle-shake": [Shot("motorcycle", "shake", 6.0, MOTORCYCLE, ("wheel", "tire", "engine"))],
    "cameraman-zoom-out": [Shot("camera", "zoom-out", 6.0, ("camera", "tripod", "photographer", "cameraman")
                                + PEOPLE, ("coat", "overcoat", "trench coat", "grass", "field", "lens"))],
    "astronaut-occluded": [Shot("astronaut", "pan", 6.0, ("astronaut", "space suit", "spacesuit", "helmet")
                                + PEOPLE, ("flag", "space shuttle", "shuttle"), occlusion=True)],
    "rocket-zoom": [Shot("rocket", "zoom-in", 6.0, ("rocket", "space shuttle", "shuttle", "missile", "spacecraft",
                                                    "launch pad", "launching pad"), ("tower", "projectile"))],
    "officer-shake": [Shot("grace", "shake", 6.0, ("officer", "uniform", "military uniform", "suit") + PEOPLE,
                           ("bow tie", "necktie", "tie", "flag", "medal"))],
    "clock-pan": [Shot("clock", "pan", 6.0, ("clock", "wall clock", "analog clock", "timepiece", "timekeeper"))],
    "coins-zoom": [Shot("coins", "zoom-in", 6.0, ("coin", "money", "currency"), known=False)],
    "page-pan": [Shot("page", "pan", 6.0, ("page", "text", "document", "paper", "book", "web site", "website",
                                           "menu", "book jacket", "crossword puzzle", "crossword"))],
    "moon-static": [Shot("moon", "static", 6.0, ("moon", "crater", "planet", "space", "sky"), known=False)],
    "galaxies-zoom": [Shot("hubble", "zoom-in", 6.0, ("galaxy", "galaxies", "space", "star", "sky", "night sky"),
                           known=False)],
    # scikit-learn's two sample photographs: the Summer Palace's tower over a lake, a dahlia.
    "palace-pan": [Shot("china", "pan", 6.0, ("pagoda", "temple", "tower", "palace", "building", "structure",
                                              "architecture"),
                        ("lake", "lakeside", "lakeshore", "tree", "water", "sky", "boat", "roof"))],
    "flower-zoom": [Shot("flower", "zoom-in", 6.0, ("dahlia", "flower", "blossom", "bloom", "plant", "petal"),
                         ("leaf", "leaves", "garden"))],
    "cuts": [Shot("chelsea", "static", 3.0, CAT), Shot("coffee", "zoom-in", 3.0, COFFEE, ("spoon", "tableware")),
             Shot("motorcycle", "pan", 3.0, MOTORCYCLE, ("wheel", "tire", "engine"))],
}


def photo(name: str) -> np.ndarray:
    """An RGB photograph by name."""
    import matplotlib.cbook
    import skimage.data

    if name == "grace":
        path = matplotlib.cbook.get_sample_data("grace_hopper.jpg", asfileobj=False)
        image = cv2.cvtColor(cv2.imread(path), cv2.COLOR_BGR2RGB)
    elif name == "motorcycle":
        image = skimage.data.stereo_motorcycle()[0]
    elif name in ("china", "flower"):
        from sklearn.datasets import load_sample_image

        image = load_sample_image(f"{name}.jpg")
    elif name == "hubble":
        image = skimage.data.hubble_deep_field()
    else:
        image = getattr(skimage.data, name)()
    return np.stack([image] * 3, axis=-1) if image.ndim == 2 else image[:, :, :3]


def _windows(shape, motion: str, frames: int, seed: int) -> np.ndarray:
    """The camera's window (x, y, w, h) in the photo for each frame: 16:9, inside it."""
    h, w = shape[:2]
    full_w = min(w, h * 16 / 9)
    full = np.array([(w - full_w) / 2, (h - full_w * 9 / 16) / 2, full_w, full_w * 9 / 16])
    t = np.linspace(0, 1, frames)[:, None]

    def around(scale, cx=0.5, cy=0.5):
        ww, hh = full[2] * scale, full[3] * scale
        return np.array([full[0] + (full[2] - ww) * cx, full[1] + (full[3] - hh) * cy, ww, hh])

    if motion == "zoom-in":
        return (1 - t) * around(1.0) + t * around(0.6)
    if motion == "zoom-out":
        return (1 - t) * around(0.6) + t * around(1.0)
    if motion == "pan":
        return (1 - t) * around(0.75, 0.0) + t * around(0.75, 1.0)
    if motion == "shake":
        jitter = np.random.default_rng(seed).normal(0, 0.02, (frames, 2)) * full[2:]
        base = around(0.85)
        return np.column_stack([base[0] + jitter[:, 0], base[1] + jitter[:, 1], np.full(frames, base[2]),
                                np.full(frames, base[3])])
    return np.repeat(around(0.9)[None], frames, axis=0)


def frames_of(shot: Shot, seed: int = 0):
    image = photo(shot.photo)
    count = int(round(shot.seconds * FPS))
    for k, (x, y, w, h) in enumerate(_windows(image.shape, shot.motion, count, seed)):
        scale_x, scale_y = SIZE[0] / w, SIZE[1] / h
        matrix = np.array([[scale_x, 0, -x * scale_x], [0, scale_y, -y * scale_y]], np.float32)
        frame = cv2.warpAffine(image, matrix, SIZE, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REFLECT)
        if shot.occlusion and count / 3 <= k < 2 * count / 3:
            left = int((k - count / 3) / (count / 3) * (SIZE[0] + 160)) - 160
            frame[:, max(0, left):max(0, left + 160)] = (35, 35, 40)
        yield frame


def make_clip(folder: Path, name: str) -> tuple[Path, Path]:
    """The clip and its labels file ({"shots": [{start, end, subject, also, known}]})."""
    shots = CLIPS[name]
    path = folder / f"{name}.mp4"

    def frames():
        for n, shot in enumerate(shots):
            yield from frames_of(shot, seed=n)

    encode_frames(path, frames(), FPS)
    labels, start = [], 0.0
    for shot in shots:
        labels.append({"start": start, "end": start + shot.seconds, "subject": list(shot.subject),
                       "also": list(shot.also),
                       "known": shot.known})
        start += shot.seconds
    labels_path = folder / f"{name}.labels.json"
    labels_path.write_text(json.dumps({"shots": labels}, indent=1))
    return path, labels_path


def scored_captions(path: Path, labels_path: Path, stages, cache=None):
    """(SenseScore, [(time, caption)]) of a clip analysed with ``stages``."""
    from videoreview.metrics.caption_sense import score, shot_labels
    from videoreview.pipeline import analyze

    captions = [(c.time, c.text) for c in analyze(path, stages=stages, cache=cache).captions]
    return score(captions, shot_labels(json.loads(labels_path.read_text()))), captions
