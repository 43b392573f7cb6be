"""What a page of the Details panel is: for one kind of selection (a capability's, by its
key; a keyframe), how to find the record a selected key names and how to show it, with
the page's own edit controls. A capability's page is declared in its view
(``gui/capabilities/<key>.py``); the panel (details_panel.py) makes one of each."""

from __future__ import annotations

from PySide6.QtWidgets import QVBoxLayout, QWidget


class DetailsPage:
    """One kind of selection's page. ``panel`` is the Details panel: its ``analysis``, the
    selected ``key``, its ``title`` and ``info`` labels, ``time_text``, ``by``, ``edit``
    (an undoable edit) and ``selectRequested``."""

    def __init__(self, panel) -> None:
        self.panel = panel
        self.widget: QWidget | None = self.build()  # None: no controls of its own

    def build(self) -> QWidget | None:
        """The page's controls (made once, filled by ``show``)."""
        return None

    def record(self, analysis, key):
        """The record ``key`` names in ``analysis``, or None."""
        return None

    def show(self, record) -> None:
        """Say what ``record`` is in the panel's title and info, and fill the controls."""


def find(items, attribute: str, key):
    """The first of ``items`` whose ``attribute`` is ``key``, or None."""
    return next((item for item in items if getattr(item, attribute) == key), None)


def page_layout(page: QWidget) -> QVBoxLayout:
    """A page's layout, flush with the panel's."""
    layout = QVBoxLayout(page)
    layout.setContentsMargins(0, 0, 0, 0)
    return layout


class KeyframePage(DetailsPage):
    """A keyframe: where it is and why it was picked; no controls."""

    def record(self, analysis, key):
        return find(analysis.keyframes, "frame", key)

    def show(self, keyframe) -> None:
        panel = self.panel
        panel.title.setText(f"<b>Keyframe</b> at {panel.time_text(keyframe.time)} (frame {keyframe.frame})")
        panel.info.setText(keyframe.reason or "")
