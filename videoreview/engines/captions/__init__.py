"""Captions: per-frame progress-aware captions and Kinetic-GEB+ boundary captions.

Protocols (protocol.py) for model captioners; the builtin captioner (builtin.py) writes
structured captions from what the builtin engines measure, with no language model.
"""

from __future__ import annotations

from .. import base

CAPABILITY = "captions"


def _builtin():
    from .builtin import BuiltinCaptionEngine  # torch loads only when an engine is made

    return BuiltinCaptionEngine()


def register_builtin() -> None:
    base.register(CAPABILITY, "builtin", _builtin)
