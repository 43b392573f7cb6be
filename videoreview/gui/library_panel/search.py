"""Searching the library by text: the query and its filters (all videos or the open one,
a person), and the Results tab, moments grouped by video. Double-click opens the video at
the moment. Scope "This video" is grounding inside the open video: ranked timestamps that
▶ / ◀ (F3 / Shift+F3) jump the player through."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QIcon, QImage, QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...library.catalog_reads import Video
from ...library.search import Moment
from ...timecode import format_time
from ..work.library_client import LibraryClient
from ..work.stills import StillLoader
from .pictures import THUMB, moment_key, placeholder

TOP = 50  # moments per search
SEARCH_DELAY_MS = 350  # typing pauses this long before a search runs
SCOPES = ("All videos", "This video")
ANYONE = "Anyone"
KIND_TEXT = {"caption": "caption", "boundary": "event", "summary": "summary", "identity": "person",
             "labels": "labels", "objects": "objects", "tags": "shot tags", "file": "file name", "speech": "said",
             "text": "on screen", "note": "note"}


class SearchPage(QWidget):
    """The Results tab. The query and filters it reads are in ``bar``, which the panel
    places above its tabs."""

    openRequested = Signal(str, float)  # path, seconds
    message = Signal(str)
    resultsShown = Signal(list)  # the moments of the latest search

    def __init__(self, client: LibraryClient, stills: StillLoader) -> None:
        super().__init__()
        self.client = client
        self.stills = stills
        self.moments: list[Moment] = []  # in the order shown (grouped by video)
        self.current_path: str | None = None  # the video open in the window
        self.match = -1  # the result the player was last sent to
        self._search_id = 0
        self._items: dict[str, list[QTreeWidgetItem]] = {}  # moment_key -> its result rows
        self._placeholder = placeholder()
        stills.ready.connect(self._on_still)

        self.query = QLineEdit()
        self.query.setPlaceholderText("Search the library: where does the man start running?")
        self.query.setClearButtonEnabled(True)
        self.scope = QComboBox()
        self.scope.addItems(SCOPES)
        self.scope.setToolTip("All videos, or only the video that is open (its moments, best first)")
        self.person = QComboBox()
        self.person.setEditable(True)
        self.person.addItem(ANYONE)
        self.person.setToolTip("Only moments with this person on screen: P2, or a name given in review")
        for box in (self.scope, self.person):  # the dock can be narrow: long names scroll
            box.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(3)
        self._timer = QTimer(self, singleShot=True, interval=SEARCH_DELAY_MS, timeout=self.search)
        self.query.textChanged.connect(lambda: self._timer.start())
        self.query.returnPressed.connect(self.search)
        self.scope.currentIndexChanged.connect(lambda: self._timer.start())
        self.person.currentTextChanged.connect(lambda: self._timer.start())

        self.results = QTreeWidget()
        self.results.setHeaderHidden(True)
        self.results.setIconSize(THUMB)
        self.results.setWordWrap(True)
        self.results.itemActivated.connect(lambda item: self.go_to(item.data(0, Qt.UserRole)))
        self.results_label = QLabel("Type words to search every analysed video.")
        self.results_label.setWordWrap(True)
        self.previous_button = QToolButton(text="◀", toolTip="The previous match (Shift+F3)")
        self.next_button = QToolButton(text="▶", toolTip="The next match (F3)")
        self.match_label = QLabel("")
        self.previous_button.clicked.connect(lambda: self.jump(-1))
        self.next_button.clicked.connect(lambda: self.jump(1))
        self.bar = self._layout()

    def _layout(self) -> QWidget:
        """Lays out the Results tab; returns the bar with the query and filters."""
        jumps = QHBoxLayout()
        jumps.addWidget(self.previous_button)
        jumps.addWidget(self.match_label, 1, Qt.AlignCenter)
        jumps.addWidget(self.next_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.results_label)
        layout.addWidget(self.results, 1)
        layout.addLayout(jumps)
        filters = QHBoxLayout()
        filters.addWidget(self.scope)
        filters.addWidget(self.person, 1)
        bar = QWidget()
        bar_layout = QVBoxLayout(bar)
        bar_layout.setContentsMargins(0, 0, 0, 0)
        bar_layout.addWidget(self.query)
        bar_layout.addLayout(filters)
        return bar

    def offer_people(self, videos: list[Video]) -> None:
        """The person filter offers everyone in the library: names first, then ids."""
        names = sorted({name for v in videos for _, name in v.identities if name})
        pids = sorted({pid for v in videos for pid, _ in v.identities}, key=lambda p: (len(p), p))
        chosen = self.person.currentText()
        self.person.blockSignals(True)
        self.person.clear()
        self.person.addItems([ANYONE] + names + pids)
        self.person.setCurrentText(chosen)
        self.person.blockSignals(False)

    def set_current_video(self, path: str | None) -> None:
        self.current_path = path
        if self.scope.currentIndex() == 1 and self.query.text().strip():
            self._timer.start()

    def search_again(self) -> None:
        """After the library changed: the results may have too (not while the user goes through them)."""
        if self.query.text().strip() and self.match < 0:
            self.search()

    def search(self) -> None:
        self._timer.stop()
        text = self.query.text().strip()
        if not text:
            self._show_results([], "Type words to search every analysed video.")
            return
        video = None
        if self.scope.currentIndex() == 1:
            if self.current_path is None:
                self._show_results([], "Open a video to search inside it.")
                return
            video = self.current_path
        person = self.person.currentText().strip()
        person = None if person in ("", ANYONE) else person
        request_id = self.client.request("search", text, TOP, video, person,
                                         done=lambda moments: self._on_found(request_id, moments),
                                         error=lambda message: self._on_found(request_id, [], message))
        self._search_id = request_id
        self.results_label.setText("Searching…")

    def _on_found(self, request_id: int, moments: list[Moment], problem: str = "") -> None:
        if request_id != self._search_id:
            return  # an older search, overtaken by the user's typing
        if problem:
            self._show_results([], problem)
        elif not moments:
            self._show_results([], "No matches.")
        else:
            count = len({m.video_id for m in moments})
            self._show_results(moments, f"{len(moments)} moments in {count} video{'s' * (count != 1)}")

    def _show_results(self, moments: list[Moment], text: str) -> None:
        self.results_label.setText(text)
        self.results.clear()
        self.match = -1
        by_video: dict[int, list[Moment]] = {}
        for m in moments:  # videos in the order of their best moment
            by_video.setdefault(m.video_id, []).append(m)
        self.moments = [m for group in by_video.values() for m in group]
        self._items = {}
        n = 0
        for group in by_video.values():
            head = QTreeWidgetItem([f"{os.path.basename(group[0].path)} — {len(group)} "
                                    f"moment{'s' * (len(group) != 1)}"])
            head.setToolTip(0, group[0].path)
            head.setData(0, Qt.UserRole, n)
            self.results.addTopLevelItem(head)
            for m in group:
                snippet = m.text if len(m.text) <= 140 else m.text[:139] + "…"
                item = QTreeWidgetItem(head, [f"{format_time(m.start)}–{format_time(m.end)}  "
                                              f"{KIND_TEXT.get(m.kind, m.kind)}\n{snippet}"])
                item.setIcon(0, self._placeholder)
                item.setToolTip(0, m.text)
                item.setData(0, Qt.UserRole, n)
                self._items.setdefault(moment_key(m.path, m.start), []).append(item)
                n += 1
            head.setExpanded(True)
        for m in reversed(self.moments):
            self.stills.request(moment_key(m.path, m.start), m.path, m.start)
        enabled = bool(self.moments)
        self.previous_button.setEnabled(enabled)
        self.next_button.setEnabled(enabled)
        self.match_label.setText("F3: next match" if enabled else "")
        self.resultsShown.emit(self.moments)

    def _on_still(self, key: str, image: QImage) -> None:
        items = self._items.get(key, [])
        if items:
            icon = QIcon(QPixmap.fromImage(image))
            for item in items:
                item.setIcon(0, icon)

    def go_to(self, n: int) -> None:
        """Open the n-th result (in the order shown) at its moment."""
        if not 0 <= n < len(self.moments):
            return
        self.match = n
        moment = self.moments[n]
        for item in self._items.get(moment_key(moment.path, moment.start), []):
            if item.data(0, Qt.UserRole) == n:
                self.results.setCurrentItem(item)
        self.openRequested.emit(moment.path, moment.start)
        self.match_label.setText(f"match {n + 1} of {len(self.moments)}")
        self.message.emit(f"Match {n + 1} of {len(self.moments)}: {os.path.basename(moment.path)} "
                          f"at {format_time(moment.start)}")

    def jump(self, step: int) -> None:
        """Next / previous match, wrapping around."""
        if self.moments:
            n = self.match + step if self.match >= 0 else (0 if step > 0 else len(self.moments) - 1)
            self.go_to(n % len(self.moments))

    def focus(self, this_video: bool) -> None:
        """Ready for typing a query, in the open video or in all."""
        self.scope.setCurrentIndex(1 if this_video and self.current_path else 0)
        self.query.setFocus()
        self.query.selectAll()
