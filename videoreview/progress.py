"""How work says how far it is, everywhere.

A part of the work reports ``(fraction, message)`` (ProgressFn: an engine, a reader of the
decoding pass, a ViSIL comparison); an analysis's runner reports ``(stage, fraction,
message)`` (StageProgress). Where a person watches an analysis, a ProgressTally turns those
reports into AnalysisProgress records: which video, which stage, how far the stage and the
whole are, the time left. The window's analysis process makes each record and sends it,
as it is, through its pipe to the status bar (pipeline/child.py, gui/work/jobs.py,
gui/work/job_status.py); the command line's bar keeps a tally of its own run
(cli/progress.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

# fraction done in [0, 1] and a short message for the user
ProgressFn = Callable[[float, str], None]
# the stage, its fraction done in [0, 1], a short message
StageProgress = Callable[[str, float, str], None]

# Reading the file's header takes no share of the run: counted as one stage of nine, its
# instant 100 % made the first estimate of a 39-minute video's time left "49 s".
NOT_WORK = "probe"


def no_progress(fraction: float, message: str = "") -> None:
    """A ProgressFn that ignores everything."""


@dataclass(frozen=True)
class AnalysisProgress:
    """How far one video's analysis is, as the status bar and the videos lists show it."""

    path: str  # the video
    stage: str
    stage_fraction: float  # of that stage, in [0, 1]
    fraction: float  # of the whole analysis, in [0, 1]
    message: str = ""
    eta: float | None = None  # seconds left for the whole, None until it can be estimated
    stage_eta: float | None = None  # seconds left for the stage, likewise


class ProgressTally:
    """One analysis's reports so far. The share of it done is the mean of each stage's
    latest fraction (a stage's fraction only grows), not the stage's place in the order:
    stages may run together (one decoding pass serves several). Without ``names``, the
    stages seen so far are the run. The probe (NOT_WORK), and a name not in ``names``
    (the coarse first look), is no part of it."""

    def __init__(self, path: str, names: list[str] | None = None, clock: Callable[[], float] = time.monotonic
                 ) -> None:
        self.path, self.clock = path, clock
        self.names = [n for n in names if n != NOT_WORK] if names is not None else None
        self.done: dict[str, float] = {}  # each stage's own fraction done
        self.started = clock()
        self.stage_started: dict[str, float] = {}

    def update(self, stage: str, fraction: float) -> float:
        """Take a stage's report; the share of the whole done."""
        if stage != NOT_WORK and (self.names is None or stage in self.names):
            self.done[stage] = max(self.done.get(stage, 0.0), _clamp(fraction))
        return sum(self.done.values()) / max(1, len(self.done if self.names is None else self.names))

    def record(self, stage: str, fraction: float, message: str = "") -> AnalysisProgress:
        """Take a stage's report and say where the analysis stands."""
        now = self.clock()
        stage_started = self.stage_started.setdefault(stage, now)
        fraction = _clamp(fraction)
        whole = self.update(stage, fraction)
        return AnalysisProgress(self.path, stage, fraction, whole, message,
                                _time_left(now - self.started, whole), _time_left(now - stage_started, fraction))


def _clamp(fraction: float) -> float:
    return max(0.0, min(1.0, fraction))


def _time_left(elapsed: float, fraction: float) -> float | None:
    if fraction < 0.02 or elapsed < 0.5:
        return None
    return elapsed * (1.0 - fraction) / fraction
