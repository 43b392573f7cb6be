"""The library panel: search every analysed video by text, the library's videos, and the
analysis queue that fills it.

Searching, cataloguing and indexing happen in the library process (see
library_client.py); analysing stays with the window's analysis queue, so a folder added
here and a video dropped on the window share one queue. Results are moments grouped by
video; double-click opens the video at the moment. Scope "This video" is grounding inside
the open video: ranked timestamps that ▶ / ◀ (F3 / Shift+F3) jump the player through.
The Open notes tab lists reviewers' open notes in every video (what is left to do);
double-click opens the video at the note.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QIcon, QImage, QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QProgressBar,
    QPushButton,
    QTabWidget,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..library.catalog import Video
from ..library.search import LibraryNote, Moment
from ..media import VIDEO_FILE_FILTER
from ..timecode import format_span, format_time
from .colors import tag_icon
from .jobs import AnalysisQueue, JobProgress
from .library_client import LibraryClient
from .stills import StillLoader

TOP = 50  # moments per search
SEARCH_DELAY_MS = 350  # typing pauses this long before a search runs
SCOPES = ("All videos", "This video")
ANYONE = "Anyone"
THUMB = QSize(96, 54)
STATUS_TEXT = {"new": "not analysed yet", "analysing": "analysing", "done": "", "failed": "failed",
               "missing": "file missing"}
KIND_TEXT = {"caption": "caption", "boundary": "event", "summary": "summary", "identity": "person",
             "labels": "labels", "file": "file name", "speech": "said", "text": "on screen", "note": "note"}
NOTES_TAB = 2


def _placeholder() -> QIcon:
    pixmap = QPixmap(THUMB)
    pixmap.fill(QColor("#3a3a3a"))
    return QIcon(pixmap)


class LibraryPanel(QWidget):
    openRequested = Signal(str, float)  # path, seconds (< 0: where it was)
    analyseRequested = Signal(str)  # a catalogued video that needs analysing
    problem = Signal(str)
    message = Signal(str)
    resultsShown = Signal(list)  # the moments of the latest search

    def __init__(self, client: LibraryClient, queue: AnalysisQueue) -> None:
        super().__init__()
        self.client = client
        self.queue = queue
        self.videos: list[Video] = []
        self.moments: list[Moment] = []  # in the order shown (grouped by video)
        self.notes: list[LibraryNote] = []  # the open notes, in the order shown
        self.current_path: str | None = None  # the video open in the window
        self.match = -1  # the result the player was last sent to
        self._search_id = 0
        self._result_items: dict[str, list[QTreeWidgetItem]] = {}  # still key -> its result rows
        self._video_rows: dict[str, int] = {}  # path -> row in the Videos tab
        self._progress: JobProgress | None = None
        self.stills = StillLoader(self, THUMB.height())
        self.stills.ready.connect(self._on_still)
        self._placeholder = _placeholder()
        self.setAcceptDrops(True)

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
        self.results.itemActivated.connect(self._open_result)
        self.results_label = QLabel("Type words to search every analysed video.")
        self.results_label.setWordWrap(True)
        self.previous_button = QToolButton(text="◀", toolTip="The previous match (Shift+F3)")
        self.next_button = QToolButton(text="▶", toolTip="The next match (F3)")
        self.match_label = QLabel("")
        self.previous_button.clicked.connect(lambda: self.jump(-1))
        self.next_button.clicked.connect(lambda: self.jump(1))

        self.notes_list = QTreeWidget()
        self.notes_list.setHeaderHidden(True)
        self.notes_list.setWordWrap(True)
        self.notes_list.itemActivated.connect(self._open_note)
        self.notes_label = QLabel("No open notes.")
        self.notes_label.setWordWrap(True)

        self.video_list = QListWidget()
        self.video_list.setIconSize(THUMB)
        self.video_list.setWordWrap(True)
        self.video_list.itemActivated.connect(lambda item: self.openRequested.emit(item.data(Qt.UserRole), -1.0))
        self.video_list.setContextMenuPolicy(Qt.CustomContextMenu)
        self.video_list.customContextMenuRequested.connect(self._video_menu)

        self.queue_list = QListWidget()
        self.queue_list.setMaximumHeight(80)
        self.queue_label = QLabel()
        self.queue_label.setWordWrap(True)
        self.queue_bar = QProgressBar()
        self.queue_bar.setRange(0, 1000)
        self.queue_bar.setTextVisible(False)
        self.add_button = QPushButton("Add to library")
        add_menu = QMenu(self.add_button)
        add_menu.addAction("Folder…", self.ask_folder)
        add_menu.addAction("Files…", self.ask_files)
        self.add_button.setMenu(add_menu)
        self.add_button.setToolTip("Add a folder (searched recursively) or files; or drop them on this panel")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop analysing the queued videos (the library keeps what is done)")
        self.stop_button.clicked.connect(self.stop)

        self._layout()
        queue.progress.connect(self._on_queue_progress)
        queue.queueChanged.connect(self._show_queue)
        self._show_queue()

    def _layout(self) -> None:
        filters = QHBoxLayout()
        filters.addWidget(self.scope)
        filters.addWidget(self.person, 1)
        jumps = QHBoxLayout()
        jumps.addWidget(self.previous_button)
        jumps.addWidget(self.match_label, 1, Qt.AlignCenter)
        jumps.addWidget(self.next_button)
        search_page = QWidget()
        search_layout = QVBoxLayout(search_page)
        search_layout.setContentsMargins(0, 0, 0, 0)
        search_layout.addWidget(self.results_label)
        search_layout.addWidget(self.results, 1)
        search_layout.addLayout(jumps)
        self.tabs = QTabWidget()
        self.tabs.addTab(search_page, "Results")
        self.tabs.addTab(self.video_list, "Videos")
        notes_page = QWidget()
        notes_layout = QVBoxLayout(notes_page)
        notes_layout.setContentsMargins(0, 0, 0, 0)
        notes_layout.addWidget(self.notes_label)
        notes_layout.addWidget(self.notes_list, 1)
        self.tabs.addTab(notes_page, "Open notes")
        status = QHBoxLayout()
        status.addWidget(self.queue_label, 1)
        status.addWidget(self.stop_button)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)  # it shares the window's width with the video
        layout.addWidget(self.query)
        layout.addLayout(filters)
        layout.addWidget(self.tabs, 1)
        layout.addLayout(status)
        layout.addWidget(self.queue_bar)
        layout.addWidget(self.queue_list)
        layout.addLayout(buttons)

    # -- adding and indexing ----------------------------------------------------------------
    def add_paths(self, paths: list[str]) -> None:
        """Catalogue files and folders (recursively); what needs analysing is queued as
        soon as it is found, the rest is already searchable."""
        if not paths:
            return
        self.message.emit("Adding to the library: " + ", ".join(os.path.basename(p.rstrip(os.sep)) or p
                                                                  for p in paths[:3]) + ("…" if len(paths) > 3 else ""))
        self.client.request("add", [os.fspath(p) for p in paths], progress=self._on_add_progress,
                            done=self._on_added, error=self.problem.emit)

    def _on_add_progress(self, payload: tuple[str, str]) -> None:
        what, path = payload
        if what == "wanted":
            self.analyseRequested.emit(path)
        elif what == "moved":
            self.message.emit(f"{os.path.basename(path)}: known from another place; the library follows it")

    def _on_added(self, result: dict) -> None:
        problems = [problem for _, problem in result["failed"]]  # each names its file
        problems += [f"{path}: {why}" for path, why in result["skipped"]]
        if problems:
            self.problem.emit("\n".join(problems))
        self.message.emit(f"Library: {len(result['wanted'])} to analyse, {result['unchanged']} already indexed")
        self.refresh()

    def resume(self) -> None:
        """Queue what was catalogued but not analysed when the window last closed."""
        self.client.request("resume", done=lambda paths: [self.analyseRequested.emit(p) for p in paths],
                            error=self.problem.emit)
        self.refresh()

    def index(self, path: str, content_hash: str) -> None:
        """A saved analysis (new, or edited in review) goes into the library."""
        self.client.request("index", path, content_hash, done=lambda count: self._on_indexed(),
                            error=self.problem.emit)

    def _on_indexed(self) -> None:
        self.refresh()
        if self.query.text().strip() and self.match < 0:
            self.search()  # the results may have changed (not while the user goes through them)

    def analysis_failed(self, path: str, message: str) -> None:
        self.client.request("failed", path, message, done=lambda _: self.refresh(), error=self.problem.emit)

    def stop(self) -> None:
        self.client.stop_adding()
        self.queue.cancel_all()

    def ask_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a folder of videos to the library")
        if folder:
            self.add_paths([folder])

    def ask_files(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Add videos to the library", "",
                                                f"{VIDEO_FILE_FILTER};;All files (*)")
        self.add_paths(paths)

    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if len(paths) < len(event.mimeData().urls()):
            self.problem.emit("only local files and folders can be added (download the others first)")
        self.add_paths(paths)
        event.acceptProposedAction()

    # -- the videos ----------------------------------------------------------------------------
    def refresh(self) -> None:
        self.client.request("videos", done=self._show_videos, error=self.problem.emit)
        self.client.request("notes", "open", done=self._show_notes, error=self.problem.emit)

    def _show_videos(self, videos: list[Video]) -> None:
        self.videos = videos
        self._video_rows = {video.path: row for row, video in enumerate(videos)}
        self.video_list.clear()
        for video in videos:
            item = QListWidgetItem(self._placeholder, "")
            item.setData(Qt.UserRole, video.path)
            item.setData(Qt.UserRole + 1, video.id)
            item.setToolTip(video.path + (f"\n{video.error}" if video.error else ""))
            self.video_list.addItem(item)
        self._label_videos()
        for video in reversed(videos):  # the loader decodes the newest request first: the top of the list
            if video.duration:
                self.stills.request(f"video|{video.path}", video.path, video.duration * 0.1)
        names = sorted({name for v in videos for _, name in v.identities if name})
        pids = sorted({pid for v in videos for pid, _ in v.identities}, key=lambda p: (len(p), p))
        chosen = self.person.currentText()
        self.person.blockSignals(True)
        self.person.clear()
        self.person.addItems([ANYONE] + names + pids)
        self.person.setCurrentText(chosen)
        self.person.blockSignals(False)

    def _label_videos(self) -> None:
        for row in range(len(self.videos)):
            self._label_video(row)

    def _label_video(self, row: int) -> None:
        """Name, length, state (the queue's own where it has the video) and people."""
        video = self.videos[row]
        if self.queue.current is not None and self.queue.current.path == video.path:
            state = f"analysing {self._progress.fraction:.0%}" if self._progress else "analysing"
        elif any(job.path == video.path for job in self.queue.pending):
            state = "queued"
        else:
            state = STATUS_TEXT.get(video.status, video.status)
        length = format_time(video.duration) if video.duration else ""
        people = ", ".join(f"{pid} {name}" if name else pid for pid, name in video.identities)
        details = " · ".join(x for x in (length, state, people) if x)
        self.video_list.item(row).setText(f"{os.path.basename(video.path)}\n{details}")

    def _video_menu(self, pos) -> None:
        item = self.video_list.itemAt(pos)
        if item is None:
            return
        path, video_id = item.data(Qt.UserRole), item.data(Qt.UserRole + 1)
        menu = QMenu(self)
        menu.setAttribute(Qt.WA_DeleteOnClose)
        menu.addAction("Open", lambda: self.openRequested.emit(path, -1.0))
        menu.addAction("Remove from the library", lambda: self.remove(video_id))
        menu.popup(self.video_list.viewport().mapToGlobal(pos))

    def remove(self, video_id: int) -> None:
        """Forget a video (the file and its saved analysis stay)."""
        self.client.request("remove", video_id, done=lambda _: self._on_indexed(), error=self.problem.emit)

    # -- the open notes ------------------------------------------------------------------------
    def _show_notes(self, notes: list[LibraryNote]) -> None:
        """The open notes grouped by video (the library lists them by video, then time)."""
        self.notes = notes
        self.notes_list.clear()
        self.tabs.setTabText(NOTES_TAB, f"Open notes ({len(notes)})" if notes else "Open notes")
        self.notes_label.setText(f"{len(notes)} open note{'s' * (len(notes) != 1)}" if notes else "No open notes.")
        by_video: dict[str, list[int]] = {}
        for n, note in enumerate(notes):
            by_video.setdefault(note.path, []).append(n)
        for path, numbers in by_video.items():
            count = f"{len(numbers)} open note{'s' * (len(numbers) != 1)}"
            head = QTreeWidgetItem([f"{os.path.basename(path)} — {count}"])
            head.setToolTip(0, path)
            head.setData(0, Qt.UserRole, numbers[0])  # the video's row opens it at its first note
            self.notes_list.addTopLevelItem(head)
            for n in numbers:
                self._add_note_item(head, n, notes[n])
            head.setExpanded(True)

    def _add_note_item(self, head: QTreeWidgetItem, n: int, note: LibraryNote) -> None:
        when = format_span(note.start, note.end)
        snippet = note.text if len(note.text) <= 140 else note.text[:139] + "…"
        item = QTreeWidgetItem(head, [f"{when}  {note.tag}" + (f" · {note.author}" if note.author else "")
                                      + f"\n{snippet}"])
        item.setIcon(0, tag_icon(note.tag))
        item.setToolTip(0, note.text)
        item.setData(0, Qt.UserRole, n)

    def _open_note(self, item: QTreeWidgetItem) -> None:
        note = self.notes[item.data(0, Qt.UserRole)]
        self.openRequested.emit(note.path, note.start)
        self.message.emit(f"Note in {os.path.basename(note.path)} at {format_time(note.start)}: {note.text[:80]}")

    # -- the queue -----------------------------------------------------------------------------
    def _on_queue_progress(self, progress: JobProgress) -> None:
        self._progress = progress
        self.queue_bar.setValue(round(progress.fraction * 1000))
        self.queue_label.setText(f"Analysing {os.path.basename(progress.path)}: {progress.stage} "
                                 f"{progress.stage_fraction:.0%}")
        if self.queue_list.count():
            self.queue_list.item(0).setText(f"{os.path.basename(progress.path)} — {progress.fraction:.0%}")
        if progress.path in self._video_rows:
            self._label_video(self._video_rows[progress.path])

    def _show_queue(self) -> None:
        jobs = self.queue.jobs()
        if self.queue.current is None:
            self._progress = None
        self.queue_list.clear()
        for n, job in enumerate(jobs):
            self.queue_list.addItem(os.path.basename(job.path) + (" — analysing" if n == 0 and self.queue.current
                                                                  else " — queued"))
        idle = not jobs
        self.queue_label.setText("Nothing to analyse." if idle
                                 else f"{len(jobs)} video{'s' * (len(jobs) != 1)} to analyse")
        for widget in (self.queue_bar, self.queue_list, self.stop_button):
            widget.setVisible(not idle)
        self._label_videos()

    # -- searching -----------------------------------------------------------------------------
    def set_current_video(self, path: str | None) -> None:
        self.current_path = path
        if self.scope.currentIndex() == 1 and self.query.text().strip():
            self._timer.start()

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
        self._result_items = {}
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
                self._result_items.setdefault(f"moment|{m.path}|{m.start:.3f}", []).append(item)
                n += 1
            head.setExpanded(True)
        for m in reversed(self.moments):
            self.stills.request(f"moment|{m.path}|{m.start:.3f}", m.path, m.start)
        enabled = bool(self.moments)
        self.previous_button.setEnabled(enabled)
        self.next_button.setEnabled(enabled)
        self.match_label.setText("F3: next match" if enabled else "")
        if self.tabs.currentIndex() != 0:
            self.tabs.setCurrentIndex(0)
        self.resultsShown.emit(self.moments)

    def _on_still(self, key: str, image: QImage) -> None:
        icon = QIcon(QPixmap.fromImage(image))
        if key.startswith("video|"):
            row = self._video_rows.get(key[len("video|"):])
            if row is not None:
                self.video_list.item(row).setIcon(icon)
        for item in self._result_items.get(key, []):
            item.setIcon(0, icon)

    def _open_result(self, item: QTreeWidgetItem) -> None:
        self.go_to(item.data(0, Qt.UserRole))

    def go_to(self, n: int) -> None:
        """Open the n-th result (in the order shown) at its moment."""
        if not 0 <= n < len(self.moments):
            return
        self.match = n
        moment = self.moments[n]
        for item in self._result_items.get(f"moment|{moment.path}|{moment.start:.3f}", []):
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

    def focus_search(self, this_video: bool) -> None:
        self.scope.setCurrentIndex(1 if this_video and self.current_path else 0)
        self.tabs.setCurrentIndex(0)
        self.query.setFocus()
        self.query.selectAll()

    def shutdown(self) -> None:
        self.stills.close()
