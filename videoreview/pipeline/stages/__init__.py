"""The stages of an analysis, one module each, and the table that makes them.

Which capabilities an analysis runs, and in which order, comes from the capability table
(engines/registry.py, ``order``); which stages run each is ``STAGE_MAKERS`` below, in
code. What a stage is: base.py.

    boundaries.py    event boundaries                 faces.py, identities.py   faces, who is who
    objects.py       objects, and their tracks         poses.py                  bodies, what they do
    speech.py        what is said                      speakers.py               who says it
    screen_text.py   what is written                   captions.py               the builtin captions
    vlm_captions.py  a VLM's captions                  label_vote.py             what a shot is of
    people_seen.py   the objects stage's people, shared with poses and faces (build_stages wires it)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ...engines import registry
from ...records import Analysis
from .base import Stage, engine_tag
from .people_seen import share_people

# capability key -> (its engine, the engines chosen for every capability, the device) -> its
# stages. Each imports its module when it is called: the window imports the pipeline at
# start-up and needs no stage then (all of them at once took 50 ms of it).


def _boundaries(engine, chosen: dict[str, str], device: str) -> list[Stage]:
    from .boundaries import BoundaryStage

    return [BoundaryStage(engine)]


def _faces(engine, chosen: dict[str, str], device: str) -> list[Stage]:
    from .faces import FaceStage

    return [FaceStage(engine)]


def _objects(engine, chosen: dict[str, str], device: str) -> list[Stage]:
    from .objects import ObjectStage

    return [ObjectStage(engine)]


def _poses(engine, chosen: dict[str, str], device: str) -> list[Stage]:
    from .poses import PoseStage

    return [PoseStage(engine)]


def _speech(engine, chosen: dict[str, str], device: str) -> list[Stage]:
    from .speech import speech_stages

    return speech_stages(engine, chosen.get("faces", "none") != "none")  # who says what, where faces are found


def _screen_text(engine, chosen: dict[str, str], device: str) -> list[Stage]:
    from .screen_text import ScreenTextStage

    return [ScreenTextStage(engine)]


def _captions(engine, chosen: dict[str, str], device: str) -> list[Stage]:
    from .vlm_captions import caption_stages

    stages = caption_stages(engine, device)  # a VLM's has the builtin captioner on the same device measure frames
    image_text = chosen.get("image-text", "none")
    if image_text != "none":  # an image-text model also names what each shot shows (engines/embeddings/naming.py)
        import sys

        from ...engines.embeddings.naming import ShotNamer
        from ...errors import ModelError
        from .captions import name_shots

        try:
            namer = ShotNamer(registry.create("image-text", image_text, device))
        except ModelError as exc:  # the captions go on without names, as frame search goes off (library/frames.py)
            print(f"videoreview: notice: shot names are off: {exc}", file=sys.stderr)
            return stages
        for stage in stages:
            name_shots(stage, namer)
    return stages


STAGE_MAKERS: dict[str, Callable[[object, dict[str, str], str], list[Stage]]] = {
    "boundaries": _boundaries, "faces": _faces, "objects": _objects, "poses": _poses, "speech": _speech,
    "screen-text": _screen_text, "captions": _captions}


def build_stages(engines: dict[str, str], device: str = "auto") -> list[Stage]:
    """Stages in run order for the engines chosen per capability (capability -> engine
    name), their models on ``device`` ("auto": the best present). A capability left out,
    or whose engine is none (``none``), has no stage."""
    stages: list[Stage] = []
    for capability in registry.analysis_capabilities():
        name = engines.get(capability.key)
        engine = registry.create(capability.key, name, device) if name is not None else None
        if engine is not None:
            stages.extend(STAGE_MAKERS[capability.key](engine, engines, device))
    share_people(stages)  # poses and faces look where the objects stage sees people (people_seen.py)
    return stages


DEFAULT_ENGINES: dict[str, str] = registry.default_engines()


def with_stage_engine(analysis: Analysis, stage: Stage, device: str = "") -> Analysis:
    """``analysis`` with the engine that made ``stage``'s result and the device it ran on
    ("" when not known: a result cached before devices were recorded)."""
    engines = {**analysis.engines, stage.name: engine_tag(stage.engine)}
    devices = {**analysis.devices, stage.name: device} if device else analysis.devices
    return replace(analysis, engines=engines, devices=devices)
