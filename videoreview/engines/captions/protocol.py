"""What a captioner does, whatever model is behind it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..base import Engine


@dataclass(frozen=True)
class CaptionContext:
    """What is known about a window of frames besides the pixels."""

    identities: tuple[str, ...] = ()  # P-ids visible in the window, most prominent first
    nearby_boundaries: tuple[float, ...] = ()  # seconds
    speech: tuple[str, ...] = ()  # what is said during the window ("P1: ..."), in order
    screen_text: tuple[str, ...] = ()  # lines of text on screen during the window


class FrameMeasurer(Engine, Protocol):
    """The builtin captioner: it measures frames, and the captions stage composes the words
    from the measurements (builtin.py). A VLM (a Captioner) is measured with it too."""

    @property
    def extract(self):
        """The classifier: features_and_probabilities(frames) -> (features, ImageNet probabilities)."""
        ...

    @property
    def labels(self) -> list[str]:
        """The names of the classifier's classes."""
        ...


class Captioner(Engine, Protocol):

    def caption(self, frames: Sequence[np.ndarray], context: CaptionContext | None = None) -> list[str | None]:
        """One caption per frame of a window of 2 to 6 RGB frames (None where the model
        gave nothing usable for that frame)."""
        ...


class BoundaryCaptioner(Engine, Protocol):

    def caption_boundary(self, before: Sequence[np.ndarray], at: np.ndarray, after: Sequence[np.ndarray],
                         context: CaptionContext | None = None) -> tuple[str, str, str] | None:
        """(subject, status before, status after) for the frames around a boundary
        (GEB+ sampling: up to 10 before, 1 at, up to 10 after)."""
        ...
