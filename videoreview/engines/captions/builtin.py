"""The builtin captioner: structured captions from measurements, no language model.

It says what the builtin engines measured at each sampled frame, and what changed since
the previous one, e.g.

    "Shot 3, close-up: P2 (left); wine glass, candle. P1 left the frame; camera static."

Material: the EfficientNet-Lite0 ImageNet classifier's top labels, the identities whose
faces are visible and where (left / centre / right; close-up, medium or wide by face
size), camera motion and subject motion from optical flow between the sampled frame and
the next one, and the shot number from the boundaries. Identical frames give identical
captions and a caption changes only when a measurement does: no invented progression
(what ProgressCaptioner calls temporal hallucination). The engine is named in every
caption record ("builtin@1"), so nobody mistakes these for a VLM's.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

LABEL_MIN_P = 0.15  # a label is said when the classifier gives it at least this
LABEL_KEEP_P = 0.05  # ...and kept while it stays above this in the same shot (no flicker)
MAX_LABELS = 2
PAN_PX = 0.25  # median flow, pixels per frame at 160 px width, above which the camera moves
# Flow beyond the camera's (98th percentile, so an object of a few % of the frame counts),
# pixels per frame at 160 px width, above which something moves.
MOTION_PX = 0.5


class BuiltinCaptionEngine:
    """Holds the classifier the captions stage measures with; the words are composed below.
    The classifier (and torch) loads on first use: never when the captions come from the cache."""

    name = "builtin"
    version = "1"
    device = "cpu"

    def __init__(self) -> None:
        self._extract = None

    @property
    def extract(self):
        if self._extract is None:
            from ..boundaries.features import FeatureExtractor

            self._extract = FeatureExtractor(size=(224, 126))
        return self._extract

    @functools.cached_property
    def labels(self) -> list[str]:
        from ..boundaries.features import imagenet_labels

        return imagenet_labels()


@dataclass(frozen=True)
class Sample:
    """What was measured at one sampled frame (the cached part of the captions stage)."""

    time: float
    frame: int
    labels: tuple[tuple[str, float], ...]  # top classifier labels with probabilities
    camera: tuple[float, float]  # median optical flow (dx, dy), px per frame at 160 px width
    motion: float  # flow beyond the camera's (98th percentile)


def measure_motion(first: np.ndarray, second: np.ndarray) -> tuple[tuple[float, float], float]:
    """Camera (median flow) and subject motion (98th percentile of the flow left after
    removing the camera's) between two adjacent frames."""
    a = cv2.cvtColor(first, cv2.COLOR_RGB2GRAY)
    b = cv2.cvtColor(second, cv2.COLOR_RGB2GRAY)
    flow = cv2.calcOpticalFlowFarneback(a, b, None, 0.5, 3, 15, 3, 5, 1.2, 0)
    scale = 160.0 / a.shape[1]
    median = np.median(flow.reshape(-1, 2), axis=0)
    residual = np.percentile(np.linalg.norm(flow - median, axis=2), 98)
    return (float(median[0] * scale), float(median[1] * scale)), float(residual * scale)


def camera_phrase(camera: tuple[float, float]) -> str:
    dx, dy = camera
    if max(abs(dx), abs(dy)) < PAN_PX:
        return "camera static"
    # Content moving left means the camera turns right.
    if abs(dx) >= abs(dy):
        return "camera pans right" if dx < 0 else "camera pans left"
    return "camera tilts down" if dy < 0 else "camera tilts up"


@dataclass(frozen=True)
class Person:
    id: str | None
    box: tuple[float, float, float, float]


def where(person: Person, width: float) -> str:
    x, _, w, _ = person.box
    centre = (x + w / 2) / width
    return "left" if centre < 0.38 else "right" if centre > 0.62 else "centre"


def framing(people: list[Person], height: float) -> str:
    if not people:
        return ""
    tallest = max(p.box[3] for p in people) / height
    return "close-up" if tallest >= 0.25 else "medium shot" if tallest >= 0.1 else "wide shot"


def pick_labels(labels, previous: tuple[str, ...], same_shot: bool) -> tuple[str, ...]:
    """Labels worth saying, keeping the previous sample's while they still hold (hysteresis)."""
    probs = dict(labels)
    if same_shot and previous and all(probs.get(name, 0.0) >= LABEL_KEEP_P for name in previous):
        return previous
    return tuple(name for name, p in labels if p >= LABEL_MIN_P)[:MAX_LABELS]


@dataclass(frozen=True)
class State:
    """What a caption says about one sampled frame (also the 'status' of boundary captions)."""

    shot: int
    view: str
    people: tuple[str, ...]  # "P2 (left)", in left-to-right order
    ids: frozenset[str]
    labels: tuple[str, ...]
    camera: str
    moving: bool

    def scene(self) -> str:
        parts = list(self.people) if self.people else ["no people"]
        things = ", ".join(self.labels)
        return ", ".join(parts) + (f"; {things}" if things else "")


def describe(samples: list[Sample], faces_at, shot_of, width: float, height: float) -> list[tuple[State, str]]:
    """(state, caption) for each sample in time order.

    ``faces_at(time)`` gives the Person list seen at a sample; ``shot_of(frame)`` the shot
    number (1-based)."""
    out: list[tuple[State, str]] = []
    previous: State | None = None
    for sample in samples:
        shot = shot_of(sample.frame)
        same_shot = previous is not None and previous.shot == shot
        people = sorted(faces_at(sample.time), key=lambda p: p.box[0])
        named = [p for p in people if p.id]
        unnamed = len(people) - len(named)
        listed = tuple(f"{p.id} ({where(p, width)})" for p in named)
        if unnamed:
            listed += (f"{unnamed} unidentified face" + ("s" if unnamed > 1 else ""),)
        state = State(
            shot=shot, view=framing(people, height), people=listed, ids=frozenset(p.id for p in named),
            labels=pick_labels(sample.labels, previous.labels if previous else (), same_shot),
            camera=camera_phrase(sample.camera), moving=sample.motion >= MOTION_PX,
        )
        changes = []
        if same_shot:
            changes += [f"{pid} entered" for pid in sorted(state.ids - previous.ids)]
            changes += [f"{pid} left the frame" for pid in sorted(previous.ids - state.ids)]
            new = [name for name in state.labels if name not in previous.labels]
            if new:
                changes.append("now " + ", ".join(new))
        motion = state.camera + ("; movement in frame" if state.moving else "")
        head = f"Shot {shot}" + (f", {state.view}" if state.view else "")
        tail = "; ".join(changes + [motion])
        text = f"{head}: {state.scene()}. {tail[0].upper()}{tail[1:]}."
        out.append((state, text))
        previous = state
    return out


def boundary_status(before: State | None, after: State | None) -> tuple[str, str, str]:
    """Builtin GEB+ caption of a boundary: the subject and its state on each side."""
    def subject_of(state: State | None) -> str | None:
        if state is None:
            return None
        if state.people:
            return state.people[0].split(" (")[0]
        return state.labels[0] if state.labels else None

    subject = subject_of(after) or subject_of(before) or "the scene"

    def status(state: State | None) -> str:
        if state is None:
            return "not yet seen"
        return f"{state.view + ', ' if state.view else ''}{state.scene()}; {state.camera}" + (
            ", movement in frame" if state.moving else "")

    return subject, status(before), status(after)
