"""How work says how far it is, everywhere: a part of the work reports ``(fraction,
message)`` (ProgressFn: an engine, a reader of the decoding pass, a ViSIL comparison), an
analysis reports ``(stage, fraction, message)`` (StageProgress: the runner, to the command
line's bar and through the window's analysis process to its status bar)."""

from __future__ import annotations

from collections.abc import Callable

# fraction done in [0, 1] and a short message for the user
ProgressFn = Callable[[float, str], None]
# the stage, its fraction done in [0, 1], a short message
StageProgress = Callable[[str, float, str], None]


def no_progress(fraction: float, message: str = "") -> None:
    """A ProgressFn that ignores everything."""
