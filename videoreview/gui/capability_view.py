"""What a capability shows in the window, and where to find it: each capability the
window shows has one module, ``gui/capabilities/<key with "_" for "-">.py``, that declares
``VIEW = CapabilityView(...)``: its timeline tracks and their place, its Details panel page
and its overlay over the picture. ``views()`` finds those modules by the capability keys
(``capabilities.KEYS``), so a new capability's window part is one new module.

This module is what the timeline, the video view and the Details panel ask for the views.
It imports the view modules by name at run time: they sit above those three (they name
their tracks, overlay items and pages), which never import them."""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from functools import cache

from .. import capabilities

PACKAGE = "videoreview.gui.capabilities"


@dataclass(frozen=True)
class OverlayPart:
    """A capability's overlay over the picture. The View menu's action and its key, the
    transport bar's toggle and the saved setting (``overlay/NAME``) follow from it."""

    button: str  # the transport bar's toggle
    menu: str  # the View menu's checkable action
    key: str  # its shortcut
    item: type  # the scene item that draws it (a video_overlays.Overlay): made with its z
    z: float  # above the items of lower z
    place: int  # its place in the View menu and on the bar, left to right


@dataclass(frozen=True)
class CapabilityView:
    """What one capability shows in the window."""

    key: str  # the capability (capabilities.KEYS); also the kind of what its tracks select
    tracks: tuple[type, ...] = ()  # its timeline tracks (timeline/tracks' Track classes), top to bottom
    row: int = 0  # where its tracks go among the timeline's (tracks/__init__.py's fixed rows), top to bottom
    page: type | None = None  # its Details panel page (a panels/details_page.DetailsPage), None: none
    overlay: OverlayPart | None = None  # what it draws over the picture, None: nothing


def module_name(key: str) -> str:
    """Where a capability's view is declared: ``videoreview.gui.capabilities.<key>`` with "_" for "-"."""
    return f"{PACKAGE}.{key.replace('-', '_')}"


@cache
def views() -> tuple[CapabilityView, ...]:
    """The views of the capabilities that have one, in capabilities.KEYS's order. Called
    only at run time (never while modules load): a view module imports the classes it names."""
    found = []
    for key in capabilities.KEYS:
        name = module_name(key)
        if importlib.util.find_spec(name) is None:
            continue  # a capability the window does not show (the summary writer, the scorer)
        view = importlib.import_module(name).VIEW
        if view.key != key:
            raise ValueError(f"{name} declares the view of {view.key!r}, not {key!r}")
        found.append(view)
    return tuple(found)


def view_of(key: str) -> CapabilityView | None:
    return next((view for view in views() if view.key == key), None)
