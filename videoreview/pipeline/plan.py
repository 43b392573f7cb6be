"""A plan for each video, made before the frame pass: which stages run, at what rate, and
what each should cost, within a budget.

Each stage declares its cost (pipeline/stages/cost.py): seconds on 2 cores per frame it
looks at, seconds to load its models, and what must be seen or heard where it looks. The
plan adds them up for this video from the probe (its length, frame count, picture size,
whether it has sound) and the stages already in the cache (they cost nothing). The
stages' gates then decide, as the pass goes, where each really looks: faces and poses
where a person is seen, on-screen text where something text-like is.

With a budget (``speed``: the analysis should take at most the video's length divided by
it), the stages that declare a coarse rate are given fewer samples a second, in proportion,
down to that rate, until the estimate fits. Without one every stage keeps the rate measured
to lose nothing. The cache key holds a lowered rate, so a later analysis with a larger
budget computes again only the stages this one left coarse.

After the run the plan holds the seconds each stage spent (``spent``), beside what was
estimated: the Analysis keeps both (``Analysis.plan``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from ..records import AnalysisPlan, StagePlan, VideoInfo
from .stages.cost import NEEDS, REFERENCE_CORES, StageCost

# Decoding and scaling in the pass's thread: seconds a decoded pixel on 2 cores (a 14 s
# 1280x720 H.264 clip: FFmpeg decodes it in 0.77 s, 2.4e-9 s a pixel; the pass also
# scales each frame to each reader's size).
DECODE_PER_PIXEL = 3.0e-9


def rate_of(stage) -> float | None:
    """Samples a second a stage looks at; the boundaries' appearance features for the
    boundary stage (its cut score reads every frame)."""
    rate = stage.sample_rate
    if rate is None:
        rate = getattr(getattr(stage, "engine", None), "sample_rate", None)
    return float(rate) if isinstance(rate, (int, float)) else None


def make_plan(info: VideoInfo, stages: Sequence, *, cores: int, device: str = "cpu",
              cached: Iterable[str] = (), speed: float | None = None) -> AnalysisPlan:
    """The plan for ``info`` with ``stages`` (those named in ``cached`` come from the cache)
    on ``cores`` cores; ``speed``: the budget, as a multiple of realtime (None: no budget)."""
    cached = set(cached)
    scale = REFERENCE_CORES / max(1, cores)
    decode = info.frame_count * info.width * info.height * DECODE_PER_PIXEL * scale
    planned = [_stage_plan(stage, info, scale, stage.name in cached) for stage in stages]
    budget = info.duration / speed if speed else None
    if budget is not None:
        planned = _within(planned, {s.name: s.cost for s in stages}, budget - decode, scale)
    return AnalysisPlan(cores=cores, device=device, budget=budget, decode_estimated=round(decode, 2),
                        estimated=round(decode + _pass_seconds(planned), 2), stages=tuple(planned))


def _stage_plan(stage, info: VideoInfo, scale: float, cached: bool) -> StagePlan:
    cost, rate = stage.cost, rate_of(stage)
    plan = StagePlan(stage=stage.name, rate=rate, default_rate=rate, needs=cost.needs, beside=cost.beside)
    if cached:
        return replace(plan, note="from the cache")
    if cost.needs == "voice" and not info.has_audio:
        return replace(plan, note="no sound track")
    return replace(plan, estimated=round(_seconds(cost, rate, info, scale), 2))


def _seconds(cost: StageCost, rate: float | None, info: VideoInfo, scale: float) -> float:
    units = {"sampled": info.duration * (rate or 0.0), "decoded": info.frame_count, "audio": info.duration}[cost.unit]
    return (units * cost.per_unit + cost.load) * scale


def _pass_seconds(planned: Sequence[StagePlan]) -> float:
    """The frame pass's stages, one after another in the readers' thread; the stages beside
    it (speech) are left out: they overlap the pass."""
    return sum(p.estimated for p in planned if not p.beside)


def _within(planned: list[StagePlan], costs: dict[str, StageCost], room: float, scale: float) -> list[StagePlan]:
    """``planned`` with the rates of the stages that may go coarser lowered in proportion,
    each to its coarse rate at most, so that the pass's estimate fits in ``room`` seconds."""
    lowerable = [p for p in planned if p.estimated and p.rate and costs[p.stage].coarse_rate is not None
                 and not p.beside]
    fixed = _pass_seconds(planned) - sum(p.estimated for p in lowerable)
    flexible = sum(p.estimated for p in lowerable)
    if not lowerable or fixed + flexible <= room:
        return planned
    share = max(0.0, room - fixed) / flexible
    lowered = {}
    for p in lowerable:
        cost = costs[p.stage]
        rate = max(cost.coarse_rate, round(p.rate * share, 2))
        if rate < p.rate:
            load = cost.load * scale  # loading the models costs the same at any rate
            estimated = round((p.estimated - load) * rate / p.rate + load, 2)
            lowered[p.stage] = replace(p, rate=rate, estimated=estimated,
                                       note=f"coarse: {rate:g} a second, not {p.rate:g}, to fit the budget")
    return [lowered.get(p.stage, p) for p in planned]


def apply_rates(plan: AnalysisPlan, stages: Sequence) -> dict[str, float]:
    """Give each stage the rate the plan gives it; returns the rates they had, by stage
    name, for ``restore_rates`` (stages are reused from one video to the next)."""
    had = {}
    by_name = {p.stage: p for p in plan.stages}
    for stage in stages:
        planned = by_name.get(stage.name)
        if planned and planned.rate != planned.default_rate and stage.sample_rate is not None:
            had[stage.name] = stage.sample_rate
            stage.sample_rate = planned.rate
    return had


def restore_rates(stages: Sequence, had: dict[str, float]) -> None:
    for stage in stages:
        if stage.name in had:
            stage.sample_rate = had[stage.name]


def with_spent(plan: AnalysisPlan, spent: dict[str, float], total: float) -> AnalysisPlan:
    """``plan`` with the seconds each stage spent (by stage name) and the whole analysis's."""
    stages = tuple(replace(p, spent=round(spent[p.stage], 2)) if p.stage in spent else p for p in plan.stages)
    return replace(plan, stages=stages, spent=round(total, 2))


def describe(plan: AnalysisPlan, duration: float) -> list[str]:
    """The plan as lines of text: the budget, then a row per stage."""
    budget = (f"budget {plan.budget:.1f} s ({duration / plan.budget:g}x realtime)" if plan.budget
              else "no budget: every stage at its full rate")
    lines = [f"plan for {duration:.1f} s of video on {plan.cores} cores ({plan.device}): {budget}; "
             f"estimated {plan.estimated:.1f} s, of it decoding {plan.decode_estimated:.1f} s"]
    for p in plan.stages:
        rate = f"{p.rate:g}/s" if p.rate else "-"
        gate = f"where {NEEDS[p.needs]}" if p.needs and not p.note else ""
        spent = f", spent {p.spent:.1f} s" if p.spent is not None else ""
        where = " (beside the frame pass)" if p.beside else ""
        lines.append(f"  {p.stage:<12} {rate:>6}  {p.estimated:6.1f} s{spent}{where}  "
                     + "; ".join(t for t in (p.note, gate) if t))
    return lines
