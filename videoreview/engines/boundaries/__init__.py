"""Event boundaries: hard cuts, gradual transitions, and generic events (Kinetic-GEB+).

An engine has ``name``, ``version``, ``device`` and
``detect(source: FrameSource, progress, cancel) -> list[Boundary]``.
"""

from __future__ import annotations

from .. import base

CAPABILITY = "boundaries"


def _builtin():
    from .builtin import BuiltinBoundaryEngine  # torch loads only when an engine is made

    return BuiltinBoundaryEngine()


def register_builtin() -> None:
    base.register(CAPABILITY, "builtin", _builtin)
