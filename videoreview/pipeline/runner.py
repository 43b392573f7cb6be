"""Run the stages over one video: probe, then each stage from cache or from its engine."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import replace

from ..engines.placement import wants_cuda
from ..errors import MediaError
from ..media import FrameSource, open_video, probe
from ..media.shared_pass import read_together
from ..records import Analysis
from ..summary.builder import ENGINE as BUILTIN_WRITER
from ..summary.builder import build
from .background_stages import BackgroundStages, locked
from .cache import StageCache
from .cancel import CancelToken
from .coarse import look_first
from .edits import set_summaries
from .fallback import FallbackResult
from .plan import apply_rates, make_plan, restore_rates, with_spent
from .stages import DEFAULT_ENGINES, Stage, build_stages, with_stage_engine
from .warm import load_in_background

# stage name, fraction of that stage done in [0, 1], message
PipelineProgress = Callable[[str, float, str], None]


def _ignore(stage: str, fraction: float, message: str) -> None:
    pass


def analyze(
    path: str | os.PathLike,
    engines: dict[str, str] | None = None,
    *,
    progress: PipelineProgress | None = None,
    cancel: CancelToken | None = None,
    cache: StageCache | None = None,
    use_cache: bool = True,
    backend: str = "auto",
    previous: Analysis | None = None,
    stages: list[Stage] | None = None,
    on_stage: Callable[[Analysis], None] | None = None,
    notice: Callable[[str], None] | None = None,
    decode: str = "auto",
    speed: float | None = None,
    coarse_first: bool = False,
) -> Analysis:
    """Analyse one video. Raises MediaError for a file that is not a usable video,
    Cancelled when ``cancel`` is set; in both cases nothing in the cache is changed.
    ``on_stage`` gets the Analysis so far after the probe and after each stage, so a
    window can fill in as results arrive; ``notice`` gets a line for each chosen model
    that failed on the way (its stage then finished with the builtin engine), and for each
    stage that runs on the CPU although CUDA was asked for. ``decode``: "auto" decodes on
    the GPU (NVDEC) when a stage runs on CUDA, "cpu" always in software. ``speed``: the
    plan's budget, as a multiple of realtime (pipeline/plan.py; None: every stage at its
    full rate); the Analysis keeps the plan with the seconds each stage spent. ``coarse_first``
    (the window's): before the full pass, ``on_stage`` gets a coarse Analysis of the whole
    video (pipeline/coarse.py), which the stages' records then replace; the Analysis
    returned is the same."""
    progress = progress or _ignore
    on_stage = on_stage or (lambda analysis: None)
    notice = notice or (lambda text: None)
    cancel = cancel or CancelToken()
    cache = cache or StageCache()
    stages = stages if stages is not None else build_stages(engines or DEFAULT_ENGINES)

    started = time.perf_counter()
    progress("probe", 0.0, "probing")
    info = _probed(path)
    progress("probe", 1.0, f"{info.duration:.1f} s, {info.frame_count} frames")
    content_hash = cache.content_hash(path)
    # The reviewer's notes are theirs: analysis never changes them (nor which they deleted).
    analysis = Analysis(video=info, content_hash=content_hash, notes=previous.notes if previous else (),
                        deleted_notes=previous.deleted_notes if previous else ())
    on_stage(analysis)

    hardware = "cuda" if decode == "auto" and any(wants_cuda(s.engine.device) for s in stages) \
        else None
    source: FrameSource | None = None
    background: BackgroundStages | None = None
    warming = load_in_background([])
    spent: dict[str, float] = {}  # stage name -> seconds inside its work
    lowered: dict[str, float] = {}
    try:
        # Stages that need no earlier results: from the cache, else read in one pass, and
        # those that read no frames (speech) in a thread beside that pass (background_stages.py).
        independent = [stage for stage in stages if not hasattr(stage, "prepare")]
        known = _cached(independent, cache, content_hash) if use_cache else {}
        read = [stage for stage in independent if stage.name not in known]
        warming = load_in_background(read)  # their models load while the first frames decode (warm.py)
        plan = make_plan(info, stages, cores=os.cpu_count() or 1, device="cuda" if hardware else "cpu",
                         cached=known, speed=speed)
        lowered = apply_rates(plan, stages)
        if coarse_first:  # the window's timeline, whole and coarse, before the pass (coarse.py)
            on_stage = look_first(path, analysis, stages, known, plan, on_stage, progress, cancel, previous)
        if len(read) > 1:
            source = open_video(path, backend=backend, hardware=hardware)
            readers = [stage for stage in read if hasattr(stage, "reader")]
            if readers and len(readers) < len(read):
                progress = locked(progress)
                background = BackgroundStages([stage for stage in read if stage not in readers], source, progress,
                                              cancel, spent)
            for name, result in _read_in_one_pass(source, readers, progress, cancel, spent).items():
                known[name] = (result, "")
        for stage in stages:
            cancel.check()
            prepare = getattr(stage, "prepare", None)
            key = stage_key(stage, content_hash, prepare(analysis) if prepare else "")
            result, device = known.pop(stage.name, (None, ""))
            if result is None and prepare and use_cache:
                result, device = cache.get_entry(*key) or (None, "")
            if result is None:
                if source is None:
                    source = open_video(path, backend=backend, hardware=hardware)

                def stage_progress(fraction: float, message: str = "", _name: str = stage.name) -> None:
                    progress(_name, fraction, message)

                try:
                    if background is not None and stage.name in background:
                        result = background.result(stage.name)
                    else:
                        stage_progress(0.0, "starting")
                        begun = time.perf_counter()
                        result = stage.compute(source, stage_progress, cancel)
                        spent[stage.name] = time.perf_counter() - begun
                except FallbackResult as fell:  # not cached: the model is asked again next time
                    notice(fell.notice)
                    stage_progress(1.0, "done (builtin)")
                    applied = fell.stage.apply(analysis, fell.result, previous)
                    analysis = with_stage_engine(applied, fell.stage, _ran_on(fell.stage, notice))
                    on_stage(analysis)
                    continue
                cancel.check()  # a stage cancelled in its last batch must not be cached as finished
                device = _ran_on(stage, notice)
                cache.put(*key, result, device=device)
                stage_progress(1.0, "done")
            elif stage in read:
                device = _ran_on(stage, notice)
                cache.put(*key, result, device=device)
                progress(stage.name, 1.0, "done")
            else:
                progress(stage.name, 1.0, "from cache")
            analysis = with_stage_engine(stage.apply(analysis, result, previous), stage, device)
            on_stage(analysis)
        if source is not None and hardware:
            analysis = _decoded_on(analysis, source, notice)
        analysis = replace(analysis, plan=with_spent(plan, spent, time.perf_counter() - started))
    finally:
        warming.close()  # starts no further load; waits for none
        restore_rates(stages, lowered)
        if background is not None:
            background.close()  # after a failure or cancellation: stops what still runs, then waits
        if source is not None:
            source.close()
    return _carry_summaries(analysis, previous)


def _probed(path: str | os.PathLike):
    """The probe's VideoInfo of ``path``; MediaError where no frame decodes."""
    info = probe(path)
    if info.frame_count == 0:
        raise MediaError(path, "no decodable video frames")
    return info


def _cached(stages: list[Stage], cache: StageCache, content_hash: str) -> dict[str, tuple[object, str]]:
    """Stage name -> (result, device it ran on) of those of ``stages`` (none with
    ``prepare``) whose result the cache holds."""
    known = {}
    for stage in stages:
        entry = cache.get_entry(*stage_key(stage, content_hash))
        if entry is not None:
            known[stage.name] = entry
    return known


def plan_for(path: str | os.PathLike, stages: list[Stage], *, cache: StageCache | None = None,
             use_cache: bool = True, speed: float | None = None):
    """(VideoInfo, AnalysisPlan) of ``path``: the plan ``analyze`` would follow, made
    without analysing. Raises MediaError as ``analyze`` does."""
    cache = cache or StageCache()
    info = _probed(path)
    independent = [stage for stage in stages if not hasattr(stage, "prepare")]
    known = _cached(independent, cache, cache.content_hash(path)) if use_cache else {}
    return info, make_plan(info, stages, cores=os.cpu_count() or 1, cached=known, speed=speed)


def _decoded_on(analysis: Analysis, source: FrameSource, notice: Callable[[str], None]) -> Analysis:
    """The Analysis with where the frames were decoded; NVDEC that would not start is said once."""
    note = source.hardware_note
    if note and ("decode", note) not in _SAID:
        _SAID.add(("decode", note))
        notice(f"decoding runs on the CPU: {note}")
    return replace(analysis, devices={**analysis.devices, "decode": source.decoded_on})


_SAID: set[tuple[str, str]] = set()  # (stage, why it left the GPU) already said in this process


def _ran_on(stage: Stage, notice: Callable[[str], None]) -> str:
    """Where ``stage``'s engine ran; the first time it runs on the CPU although CUDA was
    asked for, ``notice`` says why (engines/placement.py)."""
    note = stage.engine.device_note
    if note and (stage.name, note) not in _SAID:
        _SAID.add((stage.name, note))
        notice(f"{stage.name} runs on the CPU: {note}")
    return stage.engine.device or ""


def stage_key(stage: Stage, content_hash: str, depends: str = "") -> tuple:
    """Where a stage's result is cached: the video, the stage, its engine and their versions."""
    version = f"{stage.engine.version}~{stage.revision}" if stage.revision else stage.engine.version
    rate = getattr(stage, "sample_rate", None)
    if rate is not None and rate != getattr(type(stage), "sample_rate", rate):  # a plan's coarse rate
        version = f"{version}@{rate:g}/s"
    version = f"{version}+{depends}" if depends else version
    return (content_hash, stage.name, stage.engine.name, version)


def _read_in_one_pass(source: FrameSource, stages: list[Stage], progress: PipelineProgress,
                      cancel: CancelToken, spent: dict[str, float]) -> dict[str, object]:
    """The results of the stages that read frames at fixed times, from one decoding pass
    (media/shared_pass.py), by stage name. Stages without a reader are left out."""
    readers = {stage.name: stage.reader(source) for stage in stages if hasattr(stage, "reader")}
    readers = {name: reader for name, reader in readers.items() if reader is not None}
    if not readers:
        return {}
    for name in readers:
        progress(name, 0.0, "starting")
    reports = [lambda fraction, message="", _name=name: progress(_name, fraction, message) for name in readers]
    seconds = [0.0] * len(readers)
    results = read_together(source, list(readers.values()), reports, cancel, seconds)
    spent.update(zip(readers, seconds))
    cancel.check()  # cancelled in the last batch: nothing is kept
    return dict(zip(readers, results))


def _carry_summaries(analysis: Analysis, previous: Analysis | None) -> Analysis:
    """The summaries ``previous`` had, in the same formats: a reviewer's edited ones as
    they are, the others built again from this Analysis (its keyframes may have changed).
    A VLM's text is kept while the same keyframes are chosen: rebuilding needs the model."""
    if previous is None or not previous.summaries:
        return analysis
    kept = replace(analysis, summaries=previous.summaries)
    rebuilt = []
    for old in previous.summaries:
        new = build(analysis, old.format, len(old.keyframe_frames))
        by_model = old.engine != BUILTIN_WRITER and old.keyframe_frames == new.keyframe_frames
        rebuilt.append(old if by_model else new)
    return set_summaries(kept, rebuilt)
