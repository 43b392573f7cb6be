"""What every engine shares: identity and progress reporting.

An engine declares a name and a version (both go into the Analysis and the cache key),
the device it runs on and why not the one asked for, and ``release()``, which frees its
model. How engines are chosen and made: registry.py.
"""

from __future__ import annotations

from typing import Protocol

from ..progress import ProgressFn, no_progress

__all__ = ["Engine", "ProgressFn", "no_progress"]


class Engine(Protocol):
    """What every capability's protocol extends."""

    name: str
    version: str  # bump when anything that changes the output changes: it is part of the cache key
    device: str  # where it runs ("cpu", "cuda", "server"), once its model has loaded where it was asked
    device_note: str | None  # why it runs on the CPU although CUDA was asked for (placement.py); else None

    def release(self) -> None:
        """Free the model's memory; it loads again on next use. Nothing for an engine without one."""
        ...
