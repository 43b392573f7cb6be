"""How much of a run is done, for progress bars."""

from __future__ import annotations


class Overall:
    """The share of a run done, from its stages' own fractions. Stages may run together
    (one decoding pass serves several), so it is the mean of each stage's latest fraction
    (a stage's fraction only grows), not the stage's place in the order."""

    def __init__(self, names: list[str]) -> None:
        self.names = list(names)
        self.done: dict[str, float] = {}

    def update(self, stage: str, fraction: float) -> float:
        if stage in self.names:
            self.done[stage] = max(self.done.get(stage, 0.0), max(0.0, min(1.0, fraction)))
        return sum(self.done.values()) / max(1, len(self.names))
