"""What a speech engine does, whatever model hears the sound."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ...records import TranscriptSegment
from ..base import Engine, ProgressFn


@dataclass(frozen=True)
class Transcript:
    segments: tuple[TranscriptSegment, ...]  # in time order; words carry their own times
    language: str  # ISO 639-1 code, detected unless it was given
    language_probability: float


class SpeechEngine(Engine, Protocol):
    rate: int  # samples per second the engine takes (mono float32)

    def transcribe(self, samples: np.ndarray, progress: ProgressFn, cancel,
                   language: str | None = None) -> Transcript:
        """Segments of speech in ``samples`` (times in seconds from sample 0), skipping
        silence and noise. ``language`` None: detect it. ``cancel.check()`` raises
        Cancelled when the user cancels."""
        ...
