"""The overlays over the picture, one row each: the View menu's action and its key, the
transport bar's toggle, the view's overlay and its saved setting (``overlay/NAME``) all
come from here. A capability whose results are drawn over the picture has a row naming
it (tests/test_capabilities.py checks that the rows name capabilities that exist)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OverlayRow:
    name: str  # the view's overlay (video_view.py), the setting's name
    button: str  # the transport bar's toggle
    menu: str  # the View menu's checkable action
    key: str  # its shortcut
    capability: str | None  # the capability whose results it draws (capabilities.py); None: the reviewer's


# In the View menu's order, which is the bar's.
OVERLAYS: tuple[OverlayRow, ...] = (
    OverlayRow("captions", "Captions", "Caption overlay", "Alt+1", "captions"),
    OverlayRow("boundaries", "Boundaries", "Boundary overlay", "Alt+2", "boundaries"),
    OverlayRow("faces", "Faces", "Face boxes", "Alt+3", "faces"),
    OverlayRow("speech", "Speech", "Speech subtitles", "Alt+4", "speech"),
    OverlayRow("notes", "Notes", "Notes and drawings", "Alt+5", None),
    OverlayRow("objects", "Objects", "Object boxes", "Alt+6", "objects"),
)
OVERLAY_NAMES = tuple(row.name for row in OVERLAYS)
