"""How much of a run is done, for progress bars."""

from __future__ import annotations

# Reading the file's header takes no share of the run: counted as one stage of nine, its
# instant 100 % made the first estimate of a 39-minute video's time left "49 s".
NOT_WORK = "probe"


class Overall:
    """The share of a run done, from its stages' own fractions. Stages may run together
    (one decoding pass serves several), so it is the mean of each stage's latest fraction
    (a stage's fraction only grows), not the stage's place in the order. Without ``names``,
    the stages seen so far are the run. The probe (NOT_WORK) is no part of it."""

    def __init__(self, names: list[str] | None = None) -> None:
        self.names = [n for n in names if n != NOT_WORK] if names is not None else None
        self.done: dict[str, float] = {}  # each stage's own fraction done

    def update(self, stage: str, fraction: float) -> float:
        if stage != NOT_WORK and (self.names is None or stage in self.names):
            self.done[stage] = max(self.done.get(stage, 0.0), max(0.0, min(1.0, fraction)))
        return sum(self.done.values()) / max(1, len(self.done if self.names is None else self.names))
