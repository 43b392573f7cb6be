"""The timeline's tracks, top to bottom. Each track paints its row, says what is under a
click and what its tooltip reads, and paints its name in the header column (base.py's
``Track``). The fixed tracks (the ruler, the thumbnails, the notes, the keyframes) are
listed here with their rows; a capability's tracks come from its view
(``gui/capabilities/<key>.py``: ``tracks`` at ``row``), placed among them by row.

A track paints only the time range it is given (the damaged part of the view plus its
``margin_px``), slicing the index's sorted arrays with searchsorted; where more items
than pixels are in view it draws one mark per pixel column instead of one per item.
"""

from __future__ import annotations

from functools import cache

from ...capability_view import views
from .base import KEY_THUMB_H, RULER_H, THUMBNAIL_H, Hit, Track
from .markers import KeyframeTrack
from .notes import NotesTrack
from .ruler import RulerTrack, ruler_steps
from .strip import ThumbnailTrack

# The tracks of no capability, by row; the capabilities' rows go between (boundaries 30 ... faces 90).
FIXED: tuple[tuple[int, type[Track]], ...] = ((0, RulerTrack), (10, ThumbnailTrack), (20, NotesTrack),
                                              (100, KeyframeTrack))


@cache
def tracks() -> tuple[type[Track], ...]:
    """Every track, top to bottom: the fixed ones and each capability view's, by row."""
    placed = [*FIXED, *((view.row, track) for view in views() for track in view.tracks)]
    return tuple(track for _, track in sorted(placed, key=lambda row_track: row_track[0]))


def __getattr__(name: str):
    if name == "TRACKS":  # found at first use: the views name classes of this package
        return tracks()
    raise AttributeError(name)


__all__ = ["KEY_THUMB_H", "RULER_H", "THUMBNAIL_H", "TRACKS", "Hit", "Track", "ruler_steps", "tracks"]
