"""Captions: per-frame progress-aware captions and Kinetic-GEB+ boundary captions.

Protocols (protocol.py) for model captioners; the builtin captioner (builtin.py) writes
structured captions from what the builtin engines measure, with no language model.
"""
