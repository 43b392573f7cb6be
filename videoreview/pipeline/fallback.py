"""When a chosen model fails in the middle of an analysis (a model server stops answering,
a model folder will not load), the stage finishes with its builtin engine and says so,
as the engine choices do for a model that cannot be used at all."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Fallback:
    """What a stage's ``compute`` returns in place of its result where its model failed:
    ``stage`` (the builtin stage) applies ``result``, ``notice`` says what failed and what
    stands instead. The runner does not cache it: the model is asked again next time."""

    stage: Any
    result: Any
    notice: str
