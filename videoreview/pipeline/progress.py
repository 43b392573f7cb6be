"""How much of a run is done, for progress bars."""

from __future__ import annotations


class Overall:
    """The share of a run done, from its stages' own fractions. Stages may run together
    (one decoding pass serves several), so it is the mean of each stage's latest fraction
    (a stage's fraction only grows), not the stage's place in the order. Without ``names``,
    the stages seen so far are the run."""

    def __init__(self, names: list[str] | None = None) -> None:
        self.names = list(names) if names is not None else None
        self.done: dict[str, float] = {}  # each stage's own fraction done

    def update(self, stage: str, fraction: float) -> float:
        if self.names is None or stage in self.names:
            self.done[stage] = max(self.done.get(stage, 0.0), max(0.0, min(1.0, fraction)))
        return sum(self.done.values()) / max(1, len(self.done if self.names is None else self.names))
