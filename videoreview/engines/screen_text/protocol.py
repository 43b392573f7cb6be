"""What an on-screen text engine does, whatever model reads the picture."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..base import Engine


@dataclass(frozen=True)
class TextBox:
    text: str
    box: tuple[float, float, float, float]  # x, y, w, h in the pixels of the frame read
    score: float  # the recogniser's confidence, 0..1


class ScreenTextEngine(Engine, Protocol):
    long_side: int  # frames are read with their long side at this many pixels

    def read(self, frame: np.ndarray) -> list[TextBox]:
        """The lines of text in an RGB frame, top to bottom."""
        ...

    def find(self, image: np.ndarray, frame_shape: tuple[int, int] | None = None
             ) -> list[tuple[float, float, float, float]]:
        """Where text is in ``image`` (x, y, w, h in its pixels), found quickly and coarsely
        (large text only), without reading it: to tell whether a frame needs reading.
        ``image`` may be a part of a frame of ``frame_shape`` (height, width): it is looked
        at with the same detail as the whole frame would be."""
        ...
