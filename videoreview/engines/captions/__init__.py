"""Captions: per-frame progress-aware captions and Kinetic-GEB+ boundary captions.

Protocols (protocol.py) for model captioners; the builtin captioner (builtin.py) writes
structured captions from what the builtin engines measure, with no language model;
the VLM engine (vlm.py) runs LLaVA-OneVision or Qwen2-VL from a local folder.
"""

from __future__ import annotations

from .. import base

CAPABILITY = "captions"


def _builtin():
    from .builtin import BuiltinCaptionEngine  # torch loads only when an engine is made

    return BuiltinCaptionEngine()


def _vlm(path: str):
    from .vlm import VLMEngine  # transformers loads only when a VLM is chosen

    return VLMEngine(path)


def register_builtin() -> None:
    base.register(CAPABILITY, "builtin", _builtin)
    base.register_loader(CAPABILITY, "vlm", _vlm)  # --engines captions=vlm:FOLDER
