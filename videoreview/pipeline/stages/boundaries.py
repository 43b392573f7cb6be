"""The boundaries stage: hard cuts, gradual transitions and events, the reviewer's
boundaries kept."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...engines.base import ProgressFn
from ...engines.boundaries.protocol import BoundaryEngine
from ...media import FrameSource
from ...media.shared_pass import Mapped
from ...records import Analysis, Boundary
from ..cancel import CancelToken
from .base import Stage
from .cost import StageCost
from .result import StageResult


@dataclass(frozen=True)
class BoundaryResult(StageResult):
    """The boundaries the engine found; the cache keeps them as a list of Boundary dicts."""

    boundaries: tuple[Boundary, ...]

    def to_json(self) -> list[dict]:
        return [b.to_dict() for b in self.boundaries]

    @classmethod
    def from_json(cls, data) -> BoundaryResult:
        return cls(tuple(Boundary.from_dict(d) for d in data))


class BoundaryStage(Stage):
    name = "boundaries"
    # the cut score on every decoded frame, EfficientNet-Lite0 at 5/s, TransNetV2 where unsure
    # (median 1.6 ms a decoded frame on 6 tuning clips, 0.8-9.4 ms: TransNetV2's windows vary)
    cost = StageCost(0.002, load=0.3, unit="decoded")
    Result = BoundaryResult

    def __init__(self, engine: BoundaryEngine) -> None:
        self.engine = engine

    def compute(self, source: FrameSource, progress: ProgressFn, cancel: CancelToken) -> BoundaryResult:
        return BoundaryResult(tuple(self.engine.detect(source, progress, cancel)))

    def warm(self) -> None:
        """Load now what the pass needs from its first frame (pipeline/warm.py)."""
        load = getattr(self.engine, "load", None)
        if load is not None:
            load()

    def reader(self, source: FrameSource):
        if not hasattr(self.engine, "reader"):
            return None
        return Mapped(self.engine.reader(source), lambda found: BoundaryResult(tuple(found)))

    def apply(self, analysis: Analysis, result: BoundaryResult, previous: Analysis | None) -> Analysis:
        found = list(result.boundaries)
        kept = [b for b in previous.boundaries if b.edited] if previous else []
        removed = previous.removed_boundaries if previous else ()
        # A reviewer's boundary replaces whatever the engine put on (or next to) its frame,
        # and an engine boundary the reviewer deleted stays deleted.
        reviewed = {f + d for f in [b.frame for b in kept] + list(removed) for d in (-1, 0, 1)}
        merged = kept + [b for b in found if b.frame not in reviewed]
        return replace(analysis.with_boundaries(merged), removed_boundaries=tuple(removed))
