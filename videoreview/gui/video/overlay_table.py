"""The overlays over the picture, one row each: the View menu's action and its key, the
transport bar's toggle, the view's overlay item and its saved setting (``overlay/NAME``)
all come from here. A capability's row comes from its view's ``overlay``
(``gui/capabilities/<key>.py``), named by its key; the reviewer's notes have theirs here."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from ..capability_view import views
from .video_overlays import NotesOverlay


@dataclass(frozen=True)
class OverlayRow:
    name: str  # the view's overlay (video_view.py), the setting's name: the capability's key
    button: str  # the transport bar's toggle
    menu: str  # the View menu's checkable action
    key: str  # its shortcut
    capability: str | None  # the capability whose results it draws (capabilities.py); None: the reviewer's
    item: type  # the scene item that draws it (video_overlays.Overlay)
    z: float  # above the items of lower z


NOTES = OverlayRow("notes", "Notes", "Notes and drawings", "Alt+5", None, NotesOverlay, 5)
NOTES_PLACE = 5  # in the View menu, among the capabilities' overlays


@cache
def overlay_rows() -> tuple[OverlayRow, ...]:
    """In the View menu's order, which is the bar's."""
    placed = [(NOTES_PLACE, NOTES)]
    for view in views():
        part = view.overlay
        if part is not None:
            placed.append((part.place, OverlayRow(view.key, part.button, part.menu, part.key, view.key, part.item,
                                                  part.z)))
    return tuple(row for _, row in sorted(placed, key=lambda place_row: place_row[0]))


def overlay_names() -> tuple[str, ...]:
    return tuple(row.name for row in overlay_rows())


def __getattr__(name: str):
    if name == "OVERLAYS":  # found at first use: the views name classes of this package
        return overlay_rows()
    if name == "OVERLAY_NAMES":
        return overlay_names()
    raise AttributeError(name)
