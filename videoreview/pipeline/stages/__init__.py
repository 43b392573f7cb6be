"""The stages of an analysis, one module each, and how they are made.

Which capabilities an analysis runs, in which order, and the Stage class that makes each
one's stages come from its declaration (capabilities.py: ``order``, ``stage``; the class's
``make``). What a stage is: base.py.

    boundaries.py    event boundaries                 faces.py, identities.py   faces, who is who
    objects.py       objects, and their tracks         poses.py                  bodies, what they do
    speech.py        what is said                      speakers.py               who says it
    screen_text.py   what is written                   captions.py               the builtin captions
    vlm_captions.py  a VLM's captions                  label_vote.py             what a shot is of
    people_seen.py   the objects stage's people, shared with poses and faces (build_stages wires it)
"""

from __future__ import annotations

from dataclasses import replace

from ...capabilities import Capability, resolve
from ...engines import registry
from ...records import Analysis
from .base import Stage, engine_tag
from .people_seen import share_people


def stage_class(capability: Capability) -> type[Stage]:
    """The Stage class capabilities.py names for ``capability``; it imports its module only
    now: the window imports the pipeline at start-up and needs no stage then."""
    assert capability.stage is not None, f"{capability.key} runs no stage in an analysis"
    return resolve(capability.stage)


def build_stages(engines: dict[str, str], device: str = "auto") -> list[Stage]:
    """Stages in run order for the engines chosen per capability (capability -> engine
    name), their models on ``device`` ("auto": the best present). A capability left out,
    or whose engine is none (``none``), has no stage."""
    stages: list[Stage] = []
    for capability in registry.analysis_capabilities():
        name = engines.get(capability.key)
        engine = registry.create(capability.key, name, device) if name is not None else None
        if engine is not None:
            stages.extend(stage_class(capability).make(engine, engines, device))
    share_people(stages)  # poses and faces look where the objects stage sees people (people_seen.py)
    return stages


DEFAULT_ENGINES: dict[str, str] = registry.default_engines()


def with_stage_engine(analysis: Analysis, stage: Stage, device: str = "") -> Analysis:
    """``analysis`` with the engine that made ``stage``'s result and the device it ran on
    ("" when not known: a result cached before devices were recorded)."""
    engines = {**analysis.engines, stage.name: engine_tag(stage.engine)}
    devices = {**analysis.devices, stage.name: device} if device else analysis.devices
    return replace(analysis, engines=engines, devices=devices)
