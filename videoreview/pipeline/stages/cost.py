"""What a stage declares about its cost, for the plan (pipeline/plan.py): seconds a frame
it looks at, seconds to load its models, what must be in the picture or the sound for it
to look, and how coarse a tight budget may make it."""

from __future__ import annotations

from dataclasses import dataclass

# What a stage needs where it looks; the stage's gate decides it as the pass goes.
NEEDS = {
    "": "",
    "person": "a person seen (the objects stage's person detections)",
    "text": "text-like structure in the picture",
    "voice": "a voice (Whisper's voice activity filter, on the sound track)",
}
# What a stage's frames are counted in.
UNITS = ("sampled", "decoded", "audio")

REFERENCE_CORES = 2  # the costs below were measured on 2 cores
# Each stage's cost is the median seconds a unit it spent on the corpus's six tuning clips of
# `benchmarks/bench_pipeline.py --real` (it prints them), on a quiet machine; a gated stage's
# is where its gate is open throughout (a person in every frame, text on every sample).


@dataclass(frozen=True)
class StageCost:
    """Seconds on 2 cores (REFERENCE_CORES) per unit: a sampled frame looked at
    ("sampled"), a decoded frame ("decoded": the cut score reads every one) or a second of
    sound ("audio"). ``coarse_rate``: the fewest samples a second a tight budget may give
    the stage (None: its rate is never lowered). ``beside``: it runs in a thread beside
    the frame pass (speech), so it shares the cores but not the pass's clock."""

    per_unit: float
    load: float = 0.0
    needs: str = ""
    unit: str = "sampled"
    coarse_rate: float | None = None
    beside: bool = False

    def __post_init__(self) -> None:
        if self.needs not in NEEDS:
            raise ValueError(f"unknown need {self.needs!r}")
        if self.unit not in UNITS:
            raise ValueError(f"unknown unit {self.unit!r}")


FREE = StageCost(0.0)  # a stage that works on earlier results only (speakers, label votes)
