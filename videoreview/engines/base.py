"""What every engine shares: identity and progress reporting.

An engine declares a name and a version (both go into the Analysis and the cache key),
and the device it runs on. How engines are chosen and made: registry.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

# fraction done in [0, 1] and a short message for the user
ProgressFn = Callable[[float, str], None]


def no_progress(fraction: float, message: str = "") -> None:
    """A ProgressFn that ignores everything."""


class Engine(Protocol):
    name: str
    version: str
    device: str
