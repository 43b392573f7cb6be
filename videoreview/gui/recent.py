"""The recently opened videos, newest first, kept in the window settings."""

from __future__ import annotations

from .window_settings import window_settings

MAX_RECENT = 10


def recent_files() -> list[str]:
    value = window_settings().value("recent", [])
    return [value] if isinstance(value, str) else list(value or [])


def remember(path: str) -> None:
    window_settings().setValue("recent", [path] + [p for p in recent_files() if p != path][:MAX_RECENT - 1])
