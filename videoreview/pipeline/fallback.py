"""When a chosen model fails in the middle of an analysis (a model server stops answering,
a model folder will not load), the stage finishes with its builtin engine and says so,
as the engine choices do for a model that cannot be used at all."""

from __future__ import annotations


class FallbackResult(Exception):
    """Raised by a stage's ``compute``: ``stage`` (the builtin stage) applies ``result``,
    ``notice`` says what failed and what stands instead. The runner does not cache it:
    the model is asked again next time."""

    def __init__(self, stage, result, notice: str) -> None:
        super().__init__(notice)
        self.stage, self.result, self.notice = stage, result, notice
