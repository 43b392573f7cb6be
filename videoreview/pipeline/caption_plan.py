"""Which frames a captioning VLM sees: the per-shot plan for slow devices, or every sample.

On CUDA and on a model server the VLM captions every 1-fps sample (ProgressCaptioner's
sliding 2-frame window) and every boundary from up to 21 frames: the dense mode
(pipeline/stages/vlm_captions.py). On a CPU that takes many times the video's length, so
there the VLM gets a budget of seconds (BUDGET_PER_VIDEO_SECOND of the video's length) and
``plan_per_shot`` spends it where it matters, in this order:

  1. every shot a window of FIRST_FRAMES frames spread over it (one for a one-sample shot),
     longest shots first: every shot is said in the model's words before any gets more;
  2. those windows grown to WINDOW_FRAMES frames spread evenly over the shot (ProgressCaptioner's
     longest window, one request whose captions say how the action progressed), longest first;
  3. one subject / before / after caption per boundary, from BOUNDARY_SIDE frames each side,
     in the order given (the stage puts events first: a change inside a shot, which no
     window shows as such, before cuts, whose two sides the windows already describe);
  4. more windows in the shots with the most samples no window has seen yet (a shot without
     a window first), each of up to WINDOW_FRAMES of those samples spread evenly over them,
     until every sample is seen.

A step that does not fit in what is left of the budget is skipped (a later, cheaper one may
still fit). A positive budget always buys one window, the longest shot's: whoever chose a VLM
sees what it says even on a clip too short to afford it, and the first window is where the
stage measures the model's real cost. A budget of 0 buys nothing.

The plan is made again after every request with the seconds measured so far (``done`` and
``spent``): what was asked stays, the rest follows the measured cost.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..models.advice import VLM_SHARE

# VLM seconds allowed per second of video where the plan is per shot: the share of a clip's
# length the offer weighs a model's cost against (models/advice.py VLM_SHARE, and why).
BUDGET_PER_VIDEO_SECOND = VLM_SHARE
WINDOW_FRAMES = 6  # the most frames of one caption window (ProgressCaptioner: windows of 2 to 6)
FIRST_FRAMES = 2  # every shot's window starts at this many frames (a pair shows a progression)
BOUNDARY_SIDE = 2  # frames before and after a boundary's own (GEB+ takes up to 10 each side)
BOUNDARY_FRAMES = 2 * BOUNDARY_SIDE + 1
RULES = 1  # the version of these rules: it joins the stage's cache key

PLAN_MESSAGE = "plan: "  # a progress message that starts so is the plan, a line worth keeping
WINDOW_MESSAGE = "window "  # ... and one that starts so, a window's progress


@dataclass(frozen=True)
class Costs:
    """What the VLM costs on this device, in seconds (estimated or measured)."""

    frame: float  # a frame of a caption window
    boundary: float  # a boundary's caption (BOUNDARY_FRAMES frames and a short reply)


@dataclass(frozen=True)
class Job:
    """One request: a caption window of one shot, or one boundary's caption."""

    kind: str  # "window" or "boundary"
    shot: int = -1  # window: its shot's index in ``shots``
    samples: tuple[int, ...] = ()  # window: the samples it captions, in time order
    boundary: int = -1  # boundary: the boundary (as the caller names it: its frame)

    def cost(self, costs: Costs) -> float:
        return len(self.samples) * costs.frame if self.kind == "window" else costs.boundary


@dataclass(frozen=True)
class ShotPlan:
    jobs: tuple[Job, ...]  # in the order they are asked; those already done first
    estimated: float  # seconds for them all: those done as they took, the others as estimated

    @property
    def windows(self) -> list[Job]:
        return [job for job in self.jobs if job.kind == "window"]

    @property
    def boundaries(self) -> list[Job]:
        return [job for job in self.jobs if job.kind == "boundary"]


def spread(samples: Sequence[int], count: int) -> tuple[int, ...]:
    """``count`` of ``samples`` spread evenly over them: the middle one of each of ``count``
    equal stretches (all of them when there are no more than ``count``)."""
    n = len(samples)
    if count >= n:
        return tuple(samples)
    return tuple(samples[int((i + 0.5) * n / count)] for i in range(count))


def plan_per_shot(shots: Sequence[Sequence[int]], boundaries: Sequence[int], budget: float, costs: Costs,
                  done: Sequence[Job] = (), spent: float = 0.0) -> ShotPlan:
    """The per-shot plan (the module's docstring): ``shots`` are each shot's samples in time
    order (any numbering, e.g. positions in the sample list), ``boundaries`` the boundaries
    in the order they matter, ``budget`` the VLM's seconds, ``costs`` the estimate of what
    each request costs. ``done``: the jobs already asked, which took ``spent`` seconds."""
    jobs = list(done)
    if budget <= 0:
        return ShotPlan(tuple(jobs), spent)
    left = budget - spent
    seen: dict[int, set[int]] = {k: set() for k in range(len(shots))}
    for job in done:
        if job.kind == "window":
            seen[job.shot].update(job.samples)
    asked = {job.boundary for job in done if job.kind == "boundary"}
    order = sorted((k for k in range(len(shots)) if shots[k]), key=lambda k: (-len(shots[k]), k))

    def affordable(frames: int) -> int:
        """How many of ``frames`` more window frames fit in what is left."""
        if costs.frame <= 0:
            return frames
        return max(0, min(frames, math.floor(left / costs.frame + 1e-9)))

    sizes: dict[int, int] = {}  # shot -> frames of its first window, for shots without one yet
    for k in order:  # 1. a first window for every shot, longest first
        if seen[k]:
            continue
        size = min(FIRST_FRAMES, len(shots[k]))
        if affordable(size) == size or not (done or sizes):  # the first window of all is always bought
            sizes[k] = size
            left -= size * costs.frame
    for k in order:  # 2. ... grown to WINDOW_FRAMES, longest first
        if k in sizes:
            more = affordable(min(WINDOW_FRAMES, len(shots[k])) - sizes[k])
            sizes[k] += more
            left -= more * costs.frame
    for k in order:
        if k in sizes:
            window = spread(shots[k], sizes[k])
            jobs.append(Job("window", shot=k, samples=window))
            seen[k].update(window)
    for boundary in boundaries:  # 3. a caption for each boundary
        if boundary not in asked and costs.boundary <= left:
            jobs.append(Job("boundary", boundary=boundary))
            left -= costs.boundary
    while True:  # 4. more windows where the most samples are unseen
        unseen = {k: [s for s in shots[k] if s not in seen[k]] for k in order}
        k = min((k for k in order if unseen[k]), key=lambda k: (bool(seen[k]), -len(unseen[k]), -len(shots[k]), k),
                default=None)
        if k is None:
            break
        size = affordable(min(WINDOW_FRAMES, len(unseen[k])))
        if size == 0:
            break
        window = spread(unseen[k], size)
        jobs.append(Job("window", shot=k, samples=window))
        seen[k].update(window)
        left -= size * costs.frame
    new = sum(job.cost(costs) for job in jobs[len(done):])
    return ShotPlan(tuple(jobs), spent + new)


def plan_mode(device: str) -> str:
    """"dense" where the VLM runs on CUDA or a model server, "per-shot" elsewhere (a CPU,
    Apple's MPS): the dense mode asks for a window per sample, which only a GPU affords."""
    return "dense" if device.startswith("cuda") or device == "server" else "per-shot"


def plan_line(model: str, shots: int, plan: ShotPlan, budget: float) -> str:
    """The plan in a line: "SmolVLM2 per shot, 12 shots, 14 windows (70 frames), 3 boundaries,
    about 95 s of 180 s budget"."""
    windows = plan.windows
    frames = sum(len(w.samples) for w in windows)
    return (f"{model} per shot, {_count(shots, 'shot')}, {_count(len(windows), 'window')} "
            f"({_count(frames, 'frame')}), {_count(len(plan.boundaries), 'boundary', 'boundaries')}, "
            f"about {plan.estimated:.0f} s of {budget:.0f} s budget")


def _count(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"
