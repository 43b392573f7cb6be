"""The face engine protocol: find faces in a frame, turn each into an identity vector.

A face engine is all a video's identities need: the pipeline samples frames, the engine
detects and embeds, tracking and clustering work on the vectors. An ONNX RetinaFace +
ArcFace pair (what MICap uses) fits the same protocol with ``dim = 512`` and a cosine
``same_person`` and ``cluster_distance``; only the dlib engine ships today.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..base import Engine


@dataclass(frozen=True)
class Face:
    box: tuple[float, float, float, float]  # x, y, w, h in the pixels of the frame given
    score: float  # detector confidence; comparable only within one detector
    landmarks: np.ndarray | None = None  # [k, 2] (x, y), engine-specific, for alignment


class FaceEngine(Engine, Protocol):
    dim: int  # length of an identity vector
    # Distance between two identity vectors below which they are very likely one person
    # (Euclidean for dlib, whose own guidance is 0.6).
    same_person: float
    # Average-linkage distance between groups of track mean vectors at which clustering
    # stops merging: below ``same_person`` because means are less noisy than single faces.
    cluster_distance: float

    def detect(self, frame: np.ndarray) -> list[Face]:
        """Faces in one RGB uint8 frame [h, w, 3], most confident first."""
        ...

    def embed(self, frame: np.ndarray, faces: Sequence[Face]) -> np.ndarray:
        """One identity vector per face, float32 [len(faces), dim]."""
        ...

    def crops(self, frame: np.ndarray, faces: Sequence[Face], size: int = 150) -> list[np.ndarray]:
        """Aligned face crops (RGB uint8, size x size): for blur measures and exemplars."""
        ...
