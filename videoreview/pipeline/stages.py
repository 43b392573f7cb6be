"""Pipeline stages: each wraps one engine, computes a JSON-able result, and applies it to an Analysis.

The split between ``compute`` (cached) and ``apply`` (cheap) lets a cached result be
reused without decoding the video, and lets a reviewer's edits survive a re-run:
``apply`` keeps every record the reviewer marked ``edited``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Protocol

from ..engines.base import Engine, ProgressFn
from ..media import FrameSource
from ..media.shared_pass import Mapped
from ..records import Analysis, Boundary
from .cancel import CancelToken


class Stage(Protocol):
    name: str
    engine: Engine

    def compute(self, source: FrameSource, progress: ProgressFn, cancel: CancelToken) -> Any: ...

    def apply(self, analysis: Analysis, result: Any, previous: Analysis | None) -> Analysis: ...

    # Optional: ``prepare(analysis) -> str`` is called before ``compute`` with the Analysis
    # so far, for a stage whose result depends on earlier stages; what it returns (a digest
    # of what it took) joins the cache key.
    #
    # Optional: ``reader(source)`` gives a FrameReader (media/shared_pass.py) whose result
    # is what ``compute`` returns, or None; the runner then reads the frames of all such
    # stages in one decoding pass. Only for stages without ``prepare``.


class BoundaryStage:
    name = "boundaries"

    def __init__(self, engine) -> None:
        self.engine = engine

    def compute(self, source: FrameSource, progress: ProgressFn, cancel: CancelToken) -> list[dict]:
        return [b.to_dict() for b in self.engine.detect(source, progress, cancel)]

    def reader(self, source: FrameSource):
        if not hasattr(self.engine, "reader"):
            return None
        return Mapped(self.engine.reader(source), lambda found: [b.to_dict() for b in found])

    def apply(self, analysis: Analysis, result: list[dict], previous: Analysis | None) -> Analysis:
        found = [Boundary.from_dict(d) for d in result]
        kept = [b for b in previous.boundaries if b.edited] if previous else []
        removed = previous.removed_boundaries if previous else ()
        # A reviewer's boundary replaces whatever the engine put on (or next to) its frame,
        # and an engine boundary the reviewer deleted stays deleted.
        reviewed = {f + d for f in [b.frame for b in kept] + list(removed) for d in (-1, 0, 1)}
        merged = kept + [b for b in found if b.frame not in reviewed]
        return replace(analysis.with_boundaries(merged), removed_boundaries=tuple(removed))


def build_stages(engines: dict[str, str], device: str = "auto") -> list[Stage]:
    """Stages in run order for the engines chosen per capability (capability -> engine
    name), their models on ``device``."""
    from ..engines import registry
    from .captions import CaptionStage
    from .faces import FaceStage

    stages: list[Stage] = []
    if "boundaries" in engines:
        stages.append(BoundaryStage(registry.create("boundaries", engines["boundaries"], device)))
    if "faces" in engines:  # after boundaries: tracks never cross a cut
        stages.append(FaceStage(registry.create("faces", engines["faces"], device)))
    if engines.get("speech", "none") != "none":  # after faces: segments are given to the identities seen
        from .speech import SpeechStage

        stages.append(SpeechStage(registry.create("speech", engines["speech"], device)))
        if "faces" in engines:
            from ..engines.faces.mouth import FaceMesh
            from .speakers import SpeakerStage

            stages.append(SpeakerStage(FaceMesh()))
    if engines.get("screen-text", "none") != "none":
        from .screen_text import ScreenTextStage

        stages.append(ScreenTextStage(registry.create("screen-text", engines["screen-text"], device)))
    if "captions" in engines:  # after faces, speech and text: captions name identities, say what is said
        engine = registry.create("captions", engines["captions"], device)
        if getattr(engine, "kind", "") == "vlm":
            from .vlm_captions import VLMCaptionStage

            # The builtin captioner still measures every frame: keyframe features, and a
            # caption for any frame the model gives nothing usable for.
            stages.append(VLMCaptionStage(engine, CaptionStage(registry.create("captions", "builtin", device))))
        else:
            stages.append(CaptionStage(engine))
    return stages


DEFAULT_ENGINES: dict[str, str] = {"boundaries": "builtin", "faces": "blazeface", "speech": "whisper-base",
                                   "screen-text": "pp-ocrv6", "captions": "builtin"}


def with_stage_engine(analysis: Analysis, stage: Stage) -> Analysis:
    engines = dict(analysis.engines)
    engines[stage.name] = f"{stage.engine.name}@{stage.engine.version}"
    return replace(analysis, engines=engines)
