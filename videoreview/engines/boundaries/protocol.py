"""What a boundary engine does, whatever finds the boundaries."""

from __future__ import annotations

from typing import Protocol

from ...media import FrameSource
from ...records import Boundary
from ..base import Engine, ProgressFn


class BoundaryEngine(Engine, Protocol):

    def detect(self, source: FrameSource, progress: ProgressFn, cancel) -> list[Boundary]:
        """Hard cuts, gradual transitions and generic events of a video, in time order.
        ``cancel.check()`` raises Cancelled when the user cancels."""
        ...
