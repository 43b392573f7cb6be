"""The window's saved Analyses: one JSON per video content hash in the user data directory,
so reopening a video (even moved or renamed) shows its results and the reviewer's edits at once."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import RecordError
from ..paths import library_dir
from ..records import Analysis

if TYPE_CHECKING:
    from .cache import StageCache


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


def saved_for(content_hash: str) -> Analysis | None:
    """The saved Analysis of this content, or None where there is none or it is damaged
    (the analysis that follows rebuilds it)."""
    try:
        return load_saved(content_hash)
    except RecordError:
        return None


def saved_analysis(path: str | os.PathLike, cache: StageCache | None = None) -> Analysis | None:
    """The saved Analysis of this file's content (found again after a move), if any.
    Quick: the content hash comes from the index of ``cache`` (default: the user's stage
    cache) unless the file changed; the analysis that follows then finds it there."""
    from .cache import StageCache

    try:
        content_hash = (cache or StageCache()).content_hash(path)
    except OSError:
        return None  # the analysis will say what is wrong with the file
    return saved_for(content_hash)


def save(analysis: Analysis) -> Path:
    if not analysis.content_hash:
        raise RecordError(None, "an Analysis without a content hash cannot be saved")
    path = saved_path(analysis.content_hash)
    analysis.save(path)
    return path
