"""Layouts by task, in the spirit of Resolve's pages: Review (the picture large, the
timeline under it, details and notes as tabs beside it), Library (search and results
large, the picture beside them) and Summaries (keyframes, ViSIL and exports under the
picture). One key (Ctrl+1/2/3) or one click on the switcher in the menu bar's corner
changes layout. Each layout remembers the arrangement it was left in (settings.ini,
``layouts/<name>/...``); Reset layout brings back its default. The first run opens in
Review."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QButtonGroup, QHBoxLayout, QToolButton, QWidget

from .window_settings import window_settings

LAYOUTS = ("review", "library", "summaries")
TITLES = {"review": "Review", "library": "Library", "summaries": "Summaries"}
KEYS = {"review": "Ctrl+1", "library": "Ctrl+2", "summaries": "Ctrl+3"}
STATE_VERSION = 2  # saveState's version: states saved before layouts existed are not restored

# Shares of the window in each default (the rest goes to the picture).
SIDE_W = (0.22, 260, 360)  # Review's column of tabs: share of the width, least and most pixels
TIMELINE_H = 0.25  # Review: the timeline's share of the middle's height
LIBRARY_W = 0.45  # Library: the search panel's share of the width
SUMMARIES_H = 0.55  # Summaries: the summaries' share of the height


def _clamp_share(total: int, share: tuple[float, int, int]) -> int:
    fraction, least, most = share
    return max(least, min(most, round(total * fraction)))


class Layouts(QObject):
    """The window's layouts: which is current, switching, remembering, resetting."""

    changed = Signal(str)

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.current: str | None = None
        self.on_default = False  # the current layout is its default, untouched since: re-fit when first shown

    # -- switching -----------------------------------------------------------------------
    def start(self) -> None:
        """The layout the window last closed in (Review on the first run)."""
        name = str(window_settings().value("layouts/current", "review"))
        self.switch(name if name in LAYOUTS else "review")

    def switch(self, name: str) -> None:
        if name not in LAYOUTS:
            raise ValueError(f"unknown layout {name!r}; one of {', '.join(LAYOUTS)}")
        if name == self.current:
            return
        self.window.picture_modes.leave_full_screen()  # (a layout is of the whole window)
        if self.current is not None:
            self.remember()
        self.current = name
        s = window_settings()
        state, splitter = s.value(f"layouts/{name}/state"), s.value(f"layouts/{name}/splitter")
        if state is not None and self.window.restoreState(state, STATE_VERSION):
            if splitter is not None:
                self.window.splitter.restoreState(splitter)
            self.on_default = False
        else:
            self.apply_default()
        s.setValue("layouts/current", name)
        self.changed.emit(name)

    def remember(self) -> None:
        """Keep the current layout's arrangement for the next time it is chosen."""
        if self.current is None:
            return
        s = window_settings()
        s.setValue(f"layouts/{self.current}/state", self.window.saveState(STATE_VERSION))
        s.setValue(f"layouts/{self.current}/splitter", self.window.splitter.saveState())
        s.setValue("layouts/current", self.current)
        s.sync()

    def reset(self) -> None:
        """The current layout as it first was."""
        s = window_settings()
        s.remove(f"layouts/{self.current}")
        self.apply_default()

    # -- the defaults --------------------------------------------------------------------
    def apply_default(self) -> None:
        for dock in self._docks():
            dock.setFloating(False)
        getattr(self, f"_default_{self.current}")()
        self.on_default = True

    def _docks(self):
        w = self.window
        return [w.videos_dock, w.library_dock, w.details_dock, w.notes_dock, w.identities_dock, w.summaries_dock]

    def _side_tabs(self) -> list:
        """Details, Notes, Identities and the open videos as tabs in one column on the right."""
        w = self.window
        tabs = [w.details_dock, w.notes_dock, w.identities_dock, w.videos_dock]
        for dock in tabs:
            w.addDockWidget(Qt.RightDockWidgetArea, dock)
        for dock in tabs[1:]:
            w.tabifyDockWidget(tabs[0], dock)
        return tabs

    def _split(self, timeline_share: float) -> None:
        """The picture over the timeline, the timeline taking ``timeline_share`` of the height."""
        splitter = self.window.splitter
        total = max(1, sum(splitter.sizes()) or splitter.height() or self.window.height())
        timeline = round(total * timeline_share)
        splitter.setSizes([total - timeline, timeline])

    def _default_review(self) -> None:
        w = self.window
        for dock in self._side_tabs():
            dock.show()
        w.details_dock.raise_()
        w.library_dock.hide()
        w.summaries_dock.hide()
        w.resizeDocks([w.details_dock], [_clamp_share(w.width(), SIDE_W)], Qt.Horizontal)
        self._split(TIMELINE_H)

    def _default_library(self) -> None:
        w = self.window
        self._one_dock(w.library_dock, Qt.LeftDockWidgetArea, round(w.width() * LIBRARY_W), TIMELINE_H)

    def _default_summaries(self) -> None:
        w = self.window
        # The keyframes are in the summaries: the timeline folds away (drag it back).
        self._one_dock(w.summaries_dock, Qt.BottomDockWidgetArea, round(w.height() * SUMMARIES_H), 0.0)

    def _one_dock(self, shown, area, size: int, timeline_share: float) -> None:
        """``shown`` alone in ``area``, ``size`` pixels across it; the other docks closed."""
        w = self.window
        for dock in self._side_tabs():
            dock.hide()
        for dock in (w.library_dock, w.summaries_dock):
            if dock is not shown:
                dock.hide()
        w.addDockWidget(area, shown)
        shown.show()
        across = Qt.Horizontal if area in (Qt.LeftDockWidgetArea, Qt.RightDockWidgetArea) else Qt.Vertical
        w.resizeDocks([shown], [size], across)
        self._split(timeline_share)


class LayoutSwitcher(QWidget):
    """Review | Library | Summaries: one click each, in the menu bar's corner."""

    def __init__(self, layouts: Layouts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 6, 0)
        row.setSpacing(2)
        self.group = QButtonGroup(self)
        self.buttons: dict[str, QToolButton] = {}
        for name in LAYOUTS:
            button = QToolButton()
            button.setText(TITLES[name])
            button.setCheckable(True)
            button.setAutoRaise(True)
            button.setToolTip(f"{TITLES[name]} layout ({KEYS[name]})")
            button.clicked.connect(lambda _on, n=name: layouts.switch(n))
            self.group.addButton(button)
            row.addWidget(button)
            self.buttons[name] = button
        layouts.changed.connect(self.show_current)

    def show_current(self, name: str) -> None:
        self.buttons[name].setChecked(True)
