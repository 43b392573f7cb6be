"""The Details panel: what the reviewer selected on the timeline, with its edit controls.
Each capability's page (what a caption, a boundary, an identity, ... shows and its
controls) is declared in its view (``gui/capabilities/<key>.py``) and found by the
selection's kind, the capability key; a keyframe's page is here (details_page.py)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QStackedWidget, QVBoxLayout, QWidget

from ...records import Analysis
from ...timecode import timecode
from ..capability_view import views
from ..colors import EDITED_COLOR
from .details_page import DetailsPage, KeyframePage

PROMPT = "Select a caption, boundary, identity, speech, object, shot tag or person on the timeline."


class DetailsPanel(QWidget):
    """What the reviewer selected on the timeline, with its edit controls. Edits go out as
    one signal, as the Summary panel's do; the window applies them to the document (undoable)."""

    editRequested = Signal(str, object)  # what for the undo menu, change: Analysis -> Analysis
    selectRequested = Signal(str, object)  # after an edit: kind ("" for nothing) and key to select

    def __init__(self, playhead=lambda: 0.0) -> None:
        super().__init__()
        self.playhead = playhead  # () -> seconds: where "Move to playhead" moves a boundary
        self.analysis: Analysis | None = None
        self.kind: str | None = None
        self.key = None
        self.title = QLabel(PROMPT)
        self.title.setWordWrap(True)
        self.badge = QLabel("edited")
        self.badge.setStyleSheet(f"color: white; background: {EDITED_COLOR.name()}; border-radius: 3px; "
                                 "padding: 1px 5px;")
        self.badge.hide()
        self.info = QLabel()
        self.info.setWordWrap(True)
        self.info.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.pages = QStackedWidget()
        self.pages.addWidget(QWidget())  # a page with no controls of its own
        # By selection kind: each capability view's page, and the keyframes'.
        self._pages: dict[str, DetailsPage] = {view.key: view.page(self) for view in views() if view.page}
        self._pages["keyframe"] = KeyframePage(self)
        for page in self._pages.values():
            if page.widget is not None:
                self.pages.addWidget(page.widget)
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.badge)
        layout = QVBoxLayout(self)
        layout.addLayout(head)
        layout.addWidget(self.info)
        layout.addWidget(self.pages)
        layout.addStretch(1)

    def page(self, kind: str) -> DetailsPage | None:
        """The page that shows a selection of ``kind``."""
        return self._pages.get(kind)

    def edit(self, text: str, edit, *args) -> None:
        """Ask for ``edit(analysis, *args)`` as one undoable step named ``text``."""
        self.editRequested.emit(text, lambda analysis: edit(analysis, *args))

    # -- showing a selection ------------------------------------------------------------
    def set_analysis(self, analysis: Analysis | None) -> None:
        self.analysis = analysis
        self.show_item(self.kind, self.key)

    def show_item(self, kind: str | None, key) -> None:
        self.kind, self.key = kind, key
        record = self.record(kind, key)
        if record is None:
            self.kind = self.key = None
            self.title.setText(PROMPT)
            self.info.clear()
            self.badge.hide()
            self.pages.setCurrentIndex(0)
            return
        self.badge.setVisible(bool(getattr(record, "edited", False)))
        page = self._pages[kind]
        page.show(record)
        self.pages.setCurrentWidget(page.widget if page.widget is not None else self.pages.widget(0))

    def record(self, kind: str | None, key):
        """The record a selection of ``kind`` and ``key`` names, or None."""
        page = self._pages.get(kind) if kind is not None else None
        if self.analysis is None or page is None:
            return None
        return page.record(self.analysis, key)

    def time_text(self, seconds: float) -> str:
        return timecode(seconds, self.analysis.video.fps)  # as the transport bar and timeline write times

    def by(self, engine: str, stage: str) -> str:
        """"by ENGINE on cuda": the engine and where its stage ran (the Analysis's devices)."""
        device = self.analysis.devices.get(stage) if self.analysis is not None else None
        return f"by {engine or 'unknown engine'}" + (f" on {device}" if device else "")
