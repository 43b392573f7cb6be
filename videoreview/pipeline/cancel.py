"""Cooperative cancellation: a job checks its token between batches."""

from __future__ import annotations

import threading

from ..errors import Cancelled


class CancelToken:
    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        """Raise Cancelled if cancel() was called (from any thread)."""
        if self._event.is_set():
            raise Cancelled()
