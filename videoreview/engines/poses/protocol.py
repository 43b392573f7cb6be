"""What a poses engine does, whatever model finds the bodies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..base import Engine


@dataclass(frozen=True, eq=False)  # eq on arrays would be ambiguous
class Person:
    score: float  # the model's person score, 0..1
    box: tuple[float, float, float, float]  # x, y, w, h in frame pixels
    keypoints: np.ndarray  # float32 [17, 3]: x, y (frame pixels), score; in COCO's order (decode.KEYPOINTS)


class PoseEngine(Engine, Protocol):
    def people(self, frame: np.ndarray) -> list[Person]:
        """The people's bodies in an RGB uint8 frame, most confident first."""
        ...
