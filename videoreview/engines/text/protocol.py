"""What an on-screen text engine does, whatever model reads the picture."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np


@dataclass(frozen=True)
class TextBox:
    text: str
    box: tuple[float, float, float, float]  # x, y, w, h in the pixels of the frame read
    score: float  # the recogniser's confidence, 0..1


class TextEngine(Protocol):
    name: str
    version: str
    device: str
    long_side: int  # frames are read with their long side at this many pixels

    def read(self, frame: np.ndarray) -> list[TextBox]:
        """The lines of text in an RGB frame, top to bottom."""
        ...
