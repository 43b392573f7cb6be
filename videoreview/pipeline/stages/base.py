"""What every stage is (``Stage``), and the shape most of them share (``SampledStage``).

A stage wraps one engine: ``compute`` reads the video and returns its result, of the
stage's ``Result`` type (result.py), which is cached as JSON; ``apply`` makes records of it
in an Analysis, and is cheap, so a cached result is reused without decoding the video and a
reviewer's edits survive a re-run (``apply`` keeps every record the reviewer marked ``edited``).
"""

from __future__ import annotations

from typing import Any

from ...engines.base import Engine, ProgressFn
from ...media import FrameSource
from ...media.shared_pass import FrameReader, read_alone
from ...records import Analysis
from ..cancel import CancelToken
from .cost import FREE
from .result import Untyped


class Stage:
    """What every stage is. The defaults are a stage's that reads the video by itself in
    ``compute``, needs no earlier stage's result and costs nothing the plan need count."""

    name: str
    engine: Engine
    # The version of the stage's own compute, beside its engine's in the cache key
    # (runner.stage_key): raise it when compute makes something else of the same engine.
    revision = 0
    cost = FREE  # what a frame costs it and what it needs to look (cost.py), for the plan
    sample_rate: float | None = None  # samples a second it looks at; None: not sampled
    # Its result depends on the stages before it: the runner calls ``prepare`` with the
    # Analysis so far before ``compute``, and what it returns (a digest of what it took)
    # joins the cache key.
    after_earlier = False
    # What compute returns and apply takes: a frozen dataclass of result.StageResult, which the
    # runner reads back from the cache's JSON; Untyped: the JSON itself.
    Result: Any = Untyped

    @classmethod
    def make(cls, engine: Engine, chosen: dict[str, str], device: str) -> list[Stage]:
        """The stages of its capability (capabilities.py names this class) for ``engine``,
        given the engines chosen for every capability and the device: by default this one."""
        return [cls(engine)]  # type: ignore[call-arg]

    def prepare(self, analysis: Analysis) -> str:
        return ""

    def reader(self, source: FrameSource) -> FrameReader | None:
        """A FrameReader (media/shared_pass.py) whose result is what ``compute`` returns: the
        runner then reads the frames of every such stage in one decoding pass. None: only
        ``compute`` reads. Only for stages not ``after_earlier``."""
        return None

    def warm(self) -> None:
        """Load now the models the stage will surely use, in a background thread while the
        first frames decode (pipeline/warm.py); one that may not need them (a gate may skip
        it) loads nothing. Its engine's loaders must be safe to call from two threads
        (engines/loading.py)."""

    def compute(self, source: FrameSource, progress: ProgressFn, cancel: CancelToken) -> Any:
        """The slow part, cached: a ``Result``, or a Fallback (pipeline/fallback.py)."""
        raise NotImplementedError

    def apply(self, analysis: Analysis, result: Any, previous: Analysis | None) -> Analysis:
        """The cheap part, run every time: ``analysis`` with the records of ``result``, the
        reviewer's edits in ``previous`` kept."""
        raise NotImplementedError


def engine_tag(engine: Engine) -> str:
    """How an Analysis names the engine that made a record: "name@version"."""
    return f"{engine.name}@{engine.version}"


class SampledStage(Stage):
    """A stage that looks at frames sampled at ``sample_rate`` a second, read in the
    runner's one decoding pass (captions, faces, objects, poses, on-screen text). A
    subclass gives ``name``, ``revision``, its default ``sample_rate``, ``Reader`` (a
    FrameReader made with (stage, source)) and ``apply``."""

    sample_rate: float = 1.0  # frames a second
    Reader: type

    def __init__(self, engine, sample_rate: float | None = None) -> None:
        self.engine = engine
        if sample_rate is not None:
            self.sample_rate = sample_rate

    @property
    def engine_tag(self) -> str:
        return engine_tag(self.engine)

    def compute(self, source: FrameSource, progress: ProgressFn, cancel: CancelToken) -> Any:
        return read_alone(source, self.reader(source), progress, cancel)

    def reader(self, source: FrameSource):
        return self.Reader(self, source)

    def warm(self) -> None:
        """Load the engine's model now (pipeline/warm.py), unless the stage needs something
        to be seen first (``cost.needs``: a person, text): then its gate may never let it
        look, and the model loads at the first frame it looks at, as without warming."""
        load = getattr(self.engine, "load", None)
        if load is not None and not self.cost.needs:
            load()
