"""Lazy model loaders that two threads may call at once: the runner's background load
(pipeline/warm.py) and the first frame that needs the model.

An engine's loader method is decorated with ``loads_once``: one lock per engine, so a
caller that comes while the model is loading waits for that load instead of making a
second one. A load made ahead of need (inside ``loading_ahead``) that fails keeps its
exception, and the first caller that needs the model gets that exception, where it would
have been raised had nothing loaded ahead; a later caller loads afresh, as before.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import Protocol


class Owner(Protocol):
    closed: bool  # once closed, the failures of its loads are no longer anyone's to hear


class _Guard:
    def __init__(self) -> None:
        self.lock = threading.RLock()  # re-entrant: a loader may call another guarded one of its engine
        self.failed: tuple[Exception, TracebackType | None, Owner] | None = None


_ahead = threading.local()  # .owner: the background load this thread runs, while it runs one
_making = threading.Lock()


def _guard(engine) -> _Guard:
    guard = engine.__dict__.get("_load_guard")
    if guard is None:
        with _making:
            guard = engine.__dict__.setdefault("_load_guard", _Guard())
    return guard


def loads_once(load):
    """Decorator of an engine's lazy loader method: see the module's docstring."""

    @functools.wraps(load)
    def guarded(self, *args, **kwargs):
        guard = _guard(self)
        with guard.lock:
            if guard.failed is not None:
                error, inside, owner = guard.failed
                guard.failed = None
                if not owner.closed:
                    raise error.with_traceback(inside)  # this caller's frames, then the loader's
            try:
                return load(self, *args, **kwargs)
            except Exception as exc:
                owner = getattr(_ahead, "owner", None)
                if owner is not None and not owner.closed:
                    guard.failed = (exc, exc.__traceback__, owner)  # from here in: not the background's caller
                raise

    return guarded


@contextmanager
def loading_ahead(owner: Owner) -> Iterator[None]:
    """Loads made in this thread inside are ahead of need, for ``owner``: the failure of one
    is kept for the first caller that needs the model while ``owner`` is open."""
    _ahead.owner = owner
    try:
        yield
    finally:
        _ahead.owner = None
