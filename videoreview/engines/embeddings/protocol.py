"""What an image-text engine does for frame search: frames and queries in one space."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from ..base import Engine


class ImageTextEngine(Engine, Protocol):
    size: int  # frames are best decoded at size x size
    # sigmoid(score * logit_scale + logit_bias) is the model's probability of a match
    logit_scale: float
    logit_bias: float

    def embed_images(self, frames: Sequence[np.ndarray]) -> np.ndarray:
        """One unit-length vector per RGB uint8 frame, float32 [n, dim]."""
        ...

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        """One unit-length vector per text, float32 [n, dim]."""
        ...
