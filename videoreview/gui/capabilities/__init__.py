"""Each capability's part of the window, one module per capability the window shows,
named by its key with "_" for "-" (``screen_text.py`` for "screen-text"). A module
declares ``VIEW = CapabilityView(...)``: its key, its timeline tracks and their ``row``,
its Details panel page and its overlay over the picture (capability_view.py).

Nothing lists these modules: ``views()`` finds them by the keys of capabilities.KEYS, and
the timeline, the Details panel and the video view take what they show from the views.
A new capability's window part is a new module here."""

from ..capability_view import CapabilityView, OverlayPart, module_name, view_of, views

__all__ = ["CapabilityView", "OverlayPart", "module_name", "view_of", "views"]
