"""What an objects engine does, whatever model looks at the picture."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ..base import Engine

Detection = tuple[str, float, tuple[float, float, float, float]]  # COCO label, score, (x, y, w, h) in frame pixels


class ObjectEngine(Engine, Protocol):
    def detect(self, frame: np.ndarray) -> list[Detection]:
        """The objects in an RGB uint8 frame, most confident first."""
        ...
