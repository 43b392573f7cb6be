"""Run the stages over one video: probe, then each stage from cache or from its engine."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import replace

from ..engines.placement import wants_cuda
from ..errors import MediaError, RecordError
from ..media import FrameSource, open_video, probe
from ..media.shared_pass import read_together
from ..progress import StageProgress
from ..records import Analysis, AnalysisPlan
from ..summary.builder import ENGINE as BUILTIN_WRITER
from ..summary.builder import build
from .background_stages import BackgroundStages, locked
from .cache import StageCache
from .cancel import CancelToken
from .coarse import look_first
from .edits import set_summaries
from .fallback import Fallback
from .plan import apply_rates, make_plan, restore_rates, with_spent
from .stages import DEFAULT_ENGINES, Stage, build_stages, with_stage_engine
from .stages.result import as_json
from .warm import load_in_background


def _ignore(stage: str, fraction: float, message: str) -> None:
    pass


def analyze(
    path: str | os.PathLike,
    engines: dict[str, str] | None = None,
    *,
    progress: StageProgress | None = None,
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
    stages = stages if stages is not None else build_stages(engines or DEFAULT_ENGINES)
    on_stage = on_stage or (lambda analysis: None)
    run = _Run(path, stages, cache or StageCache(), use_cache, backend, progress or _ignore,
               cancel or CancelToken(), notice or (lambda text: None), previous)
    started = time.perf_counter()
    analysis = run.begin()
    on_stage(analysis)
    try:
        plan = run.plan(analysis.video, decode, speed)
        if coarse_first:  # the window's timeline, whole and coarse, before the pass (coarse.py)
            on_stage = look_first(path, analysis, stages, run.known, plan, on_stage, run.progress, run.cancel,
                                  previous)
        run.read_ahead()
        for stage in stages:
            analysis = run.add(stage, analysis)
            on_stage(analysis)
        analysis = run.finish(analysis, plan, started)
    finally:
        run.close()
    return _carry_summaries(analysis, previous)


class _Run:
    """One analysis under way: the stages' results as they come (from the cache, the one
    decoding pass, the thread beside it, or each stage's own compute), and what it holds
    open until ``close``."""

    def __init__(self, path, stages: list[Stage], cache: StageCache, use_cache: bool, backend: str,
                 progress: StageProgress, cancel: CancelToken, notice: Callable[[str], None],
                 previous: Analysis | None) -> None:
        self.path, self.stages, self.cache, self.use_cache, self.backend = path, stages, cache, use_cache, backend
        self.progress, self.cancel, self.notice, self.previous = progress, cancel, notice, previous
        self.content_hash = ""
        self.hardware: str | None = None  # "cuda": decode on the GPU
        self.known: dict[str, tuple[object, str]] = {}  # stage name -> (result, device) found ahead
        self.read: list[Stage] = []  # the stages read ahead (not cached, needing no earlier result)
        self.spent: dict[str, float] = {}  # stage name -> seconds inside its work
        self.lowered: dict[str, float] = {}  # the rates the plan changed (plan.restore_rates)
        self.source: FrameSource | None = None
        self.background: BackgroundStages | None = None
        self.warming = load_in_background([])

    def begin(self) -> Analysis:
        """The probe's Analysis: the video's facts, its content hash, the reviewer's notes and track edits."""
        self.progress("probe", 0.0, "probing")
        info = _probed(self.path)
        self.progress("probe", 1.0, f"{info.duration:.1f} s, {info.frame_count} frames")
        self.content_hash = self.cache.content_hash(self.path)
        previous = self.previous  # the reviewer's notes are theirs: analysis never changes them
        # nor their track corrections, which the objects and poses stages replay (track_edits.py)
        return Analysis(video=info, content_hash=self.content_hash, notes=previous.notes if previous else (),
                        deleted_notes=previous.deleted_notes if previous else (),
                        track_edits=previous.track_edits if previous else ())

    def plan(self, info, decode: str, speed: float | None) -> AnalysisPlan:
        """Which stages come from the cache and which are read ahead; their models start
        loading (warm.py); the plan, its rates given to the stages."""
        if decode == "auto" and any(wants_cuda(stage.engine.device) for stage in self.stages):
            self.hardware = "cuda"
        self.known = _cached(self.stages, self.cache, self.content_hash) if self.use_cache else {}
        self.read = [stage for stage in self.stages if not stage.after_earlier and stage.name not in self.known]
        self.warming = load_in_background(self.read)  # while the first frames decode
        plan = make_plan(info, self.stages, cores=os.cpu_count() or 1, device=self.hardware or "cpu",
                         cached=self.known, speed=speed)
        self.lowered = apply_rates(plan, self.stages)
        return plan

    def read_ahead(self) -> None:
        """The stages that read frames at fixed times in one decoding pass, and those beside
        it (speech) in a thread meanwhile (background_stages.py); one stage alone is left
        to its own compute."""
        if len(self.read) < 2:
            return
        frames = [stage for stage in self.read if not stage.cost.beside]
        if frames and len(frames) < len(self.read):
            self.progress = locked(self.progress)
            self.background = BackgroundStages([s for s in self.read if s not in frames], self.opened(),
                                               self.progress, self.cancel, self.spent)
        for name, result in _read_in_one_pass(self.opened(), frames, self.progress, self.cancel,
                                              self.spent).items():
            self.known[name] = (result, "")

    def opened(self) -> FrameSource:
        if self.source is None:
            self.source = open_video(self.path, backend=self.backend, hardware=self.hardware)
        return self.source

    def add(self, stage: Stage, analysis: Analysis) -> Analysis:
        """``analysis`` with ``stage``'s records: its result found ahead, cached, or computed
        now (and cached, unless it is a Fallback's)."""
        self.cancel.check()
        key = stage_key(stage, self.content_hash, stage.prepare(analysis) if stage.after_earlier else "")
        result, device = self.known.pop(stage.name, (None, ""))
        if result is None and stage.after_earlier and self.use_cache:
            result, device = _cache_entry(self.cache, stage, key) or (None, "")
        fresh = result is None or stage in self.read
        if result is None:
            result = self._computed(stage)
            if isinstance(result, Fallback):  # not cached: the model is asked again next time
                self.notice(result.notice)
                self.progress(stage.name, 1.0, "done (builtin)")
                applied = result.stage.apply(analysis, result.result, self.previous)
                return with_stage_engine(applied, result.stage, _ran_on(result.stage, self.notice))
            self.cancel.check()  # a stage cancelled in its last batch must not be cached as finished
        if fresh:
            device = _ran_on(stage, self.notice)
            self.cache.put(*key, as_json(result), device=device)
            self.progress(stage.name, 1.0, "done")
        else:
            self.progress(stage.name, 1.0, "from cache")
        return with_stage_engine(stage.apply(analysis, result, self.previous), stage, device)

    def _computed(self, stage: Stage):
        """``stage``'s result from the thread beside the pass, or from its own compute."""
        if self.background is not None and stage.name in self.background:
            return self.background.result(stage.name)
        self.progress(stage.name, 0.0, "starting")
        begun = time.perf_counter()
        result = stage.compute(self.opened(), lambda fraction, message="": self.progress(stage.name, fraction,
                                                                                        message), self.cancel)
        self.spent[stage.name] = time.perf_counter() - begun
        return result

    def finish(self, analysis: Analysis, plan: AnalysisPlan, started: float) -> Analysis:
        """``analysis`` with where its frames were decoded and the plan with what was spent."""
        if self.source is not None and self.hardware:
            analysis = _decoded_on(analysis, self.source, self.notice)
        return replace(analysis, plan=with_spent(plan, self.spent, time.perf_counter() - started))

    def close(self) -> None:
        self.warming.close()  # starts no further load; waits for none
        restore_rates(self.stages, self.lowered)
        if self.background is not None:
            self.background.close()  # after a failure or cancellation: stops what still runs, then waits
        if self.source is not None:
            self.source.close()


def _probed(path: str | os.PathLike):
    """The probe's VideoInfo of ``path``; MediaError where no frame decodes."""
    info = probe(path)
    if info.frame_count == 0:
        raise MediaError(path, "no decodable video frames")
    return info


def _cached(stages: list[Stage], cache: StageCache, content_hash: str) -> dict[str, tuple[object, str]]:
    """Stage name -> (result, device it ran on) of those of ``stages`` whose result the
    cache holds, of the ones needing no earlier result (the others' keys need that result)."""
    known = {}
    for stage in (stage for stage in stages if not stage.after_earlier):
        entry = _cache_entry(cache, stage, stage_key(stage, content_hash))
        if entry is not None:
            known[stage.name] = entry
    return known


def _cache_entry(cache: StageCache, stage: Stage, key: tuple) -> tuple[object, str] | None:
    """(``stage``'s cached result as its Result type, the device it ran on), or None where
    the cache holds none, or JSON its Result cannot read (a miss: the stage runs again)."""
    entry = cache.get_entry(*key)
    if entry is None:
        return None
    try:
        return stage.Result.from_json(entry[0]), entry[1]
    except RecordError:
        return None


def plan_for(path: str | os.PathLike, stages: list[Stage], *, cache: StageCache | None = None,
             use_cache: bool = True, speed: float | None = None):
    """(VideoInfo, AnalysisPlan) of ``path``: the plan ``analyze`` would follow, made
    without analysing. Raises MediaError as ``analyze`` does."""
    cache = cache or StageCache()
    info = _probed(path)
    known = _cached(stages, cache, cache.content_hash(path)) if use_cache else {}
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
    rate, default = stage.sample_rate, type(stage).sample_rate
    if None not in (rate, default) and rate != default:  # a plan's coarse rate
        version = f"{version}@{rate:g}/s"
    version = f"{version}+{depends}" if depends else version
    return (content_hash, stage.name, stage.engine.name, version)


def _read_in_one_pass(source: FrameSource, stages: list[Stage], progress: StageProgress,
                      cancel: CancelToken, spent: dict[str, float]) -> dict[str, object]:
    """The results of the stages that read frames at fixed times, from one decoding pass
    (media/shared_pass.py), by stage name. Stages whose reader is None are left out."""
    readers = {stage.name: stage.reader(source) for stage in stages}
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
