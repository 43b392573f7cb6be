"""Captions: per-frame progress-aware captions and Kinetic-GEB+ boundary captions.

Protocols (protocol.py) for model captioners; the builtin captioner (builtin.py) writes
short sentences from what the builtin engines measure, with no language model;
the VLM engine (vlm.py) runs LLaVA-OneVision or Qwen2-VL from a local folder.
"""
