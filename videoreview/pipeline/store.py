"""The window's saved Analyses: one JSON per video content hash in the user data directory,
so reopening a video (even moved or renamed) shows its results and the reviewer's edits at once."""

from __future__ import annotations

from pathlib import Path

from ..errors import RecordError
from ..paths import library_dir
from ..records import Analysis


def saved_dir() -> Path:
    return library_dir() / "analyses"


def saved_path(content_hash: str) -> Path:
    return saved_dir() / f"{content_hash}.analysis.json"


def load_saved(content_hash: str) -> Analysis | None:
    """The saved Analysis, or None when there is none. A damaged file raises RecordError
    naming it (it is left in place for the user to look at)."""
    path = saved_path(content_hash)
    if not path.exists():
        return None
    return Analysis.load(path)


def save(analysis: Analysis) -> Path:
    if not analysis.content_hash:
        raise RecordError(None, "an Analysis without a content hash cannot be saved")
    path = saved_path(analysis.content_hash)
    analysis.save(path)
    return path
