"""Pipeline stages: each wraps one engine, computes a JSON-able result, and applies it to an Analysis.

The split between ``compute`` (cached) and ``apply`` (cheap) lets a cached result be
reused without decoding the video, and lets a reviewer's edits survive a re-run:
``apply`` keeps every record the reviewer marked ``edited``.

Which stages run, and in which order, comes from the capability table
(engines/registry.py): each capability with a stage names the function in this package
that makes its stages, ``make_stages(engine, chosen, device)``.
"""

from __future__ import annotations

import importlib
from dataclasses import replace
from typing import Any, Protocol

from ..engines import registry
from ..engines.base import Engine, ProgressFn
from ..media import FrameSource
from ..records import Analysis
from .cancel import CancelToken


class Stage(Protocol):
    name: str
    engine: Engine
    # Of the stage's own compute, with the engine's version in the cache key: raise it when
    # compute makes something else of the same engine (0: never changed).
    revision: int

    def compute(self, source: FrameSource, progress: ProgressFn, cancel: CancelToken) -> Any: ...

    def apply(self, analysis: Analysis, result: Any, previous: Analysis | None) -> Analysis: ...

    # Optional: ``prepare(analysis) -> str`` is called before ``compute`` with the Analysis
    # so far, for a stage whose result depends on earlier stages; what it returns (a digest
    # of what it took) joins the cache key.
    #
    # Optional: ``reader(source)`` gives a FrameReader (media/shared_pass.py) whose result
    # is what ``compute`` returns, or None; the runner then reads the frames of all such
    # stages in one decoding pass. Only for stages without ``prepare``.


def build_stages(engines: dict[str, str], device: str = "auto") -> list[Stage]:
    """Stages in run order for the engines chosen per capability (capability -> engine
    name), their models on ``device`` ("auto": the best present). A capability left out,
    or whose engine is none (``none``), has no stage."""
    stages: list[Stage] = []
    for capability in registry.analysis_capabilities():
        name = engines.get(capability.key)
        engine = registry.create(capability.key, name, device) if name is not None else None
        if engine is not None:
            stages.extend(_stage_maker(capability.stage)(engine, engines, device))
    return stages


def _stage_maker(where: str):
    module, _, function = where.partition(":")
    return getattr(importlib.import_module(f"{__package__}.{module}"), function)


DEFAULT_ENGINES: dict[str, str] = registry.default_engines()


def with_stage_engine(analysis: Analysis, stage: Stage, device: str = "") -> Analysis:
    """``analysis`` with the engine that made ``stage``'s result and the device it ran on
    ("" when not known: a result cached before devices were recorded)."""
    engines = {**analysis.engines, stage.name: f"{stage.engine.name}@{stage.engine.version}"}
    devices = {**analysis.devices, stage.name: device} if device else analysis.devices
    return replace(analysis, engines=engines, devices=devices)
