"""The library panel itself: the search bar over three tabs (Results, Videos, Open notes),
the analysis queue under them and the Add button; each part is a module of this package."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QMenu, QPushButton, QTabWidget, QVBoxLayout, QWidget

from ...library.search import LibraryNote
from ...media import VIDEO_FILE_FILTER
from ..work.jobs import AnalysisQueue
from ..work.library_client import LibraryClient
from ..work.stills import StillLoader
from .cataloguing import Cataloguing
from .open_notes import OpenNotes
from .pictures import THUMB
from .queue_status import QueueStatus
from .search import SearchPage
from .videos import VideoList

RESULTS_TAB, VIDEOS_TAB, NOTES_TAB = range(3)


class LibraryPanel(QWidget):
    openRequested = Signal(str, float)  # path, seconds (< 0: where it was)
    analyseRequested = Signal(str)  # a catalogued video that needs analysing
    problem = Signal(str)
    message = Signal(str)

    def __init__(self, client: LibraryClient, queue: AnalysisQueue) -> None:
        super().__init__()
        self.client = client
        self.queue = queue
        self.stills = StillLoader(self, THUMB.height())  # for the videos list and the results
        self.cataloguing = Cataloguing(client, self)
        self.search_page = SearchPage(client, self.stills)
        self.video_list = VideoList(queue, self.stills)
        self.notes_page = OpenNotes()
        self.queue_status = QueueStatus(queue)
        self.add_button = QPushButton("Add to library")
        add_menu = QMenu(self.add_button)
        add_menu.addAction("Folder…", self.ask_folder)
        add_menu.addAction("Files…", self.ask_files)
        self.add_button.setMenu(add_menu)
        self.add_button.setToolTip("Add a folder (searched recursively) or files; or drop them on this panel")
        self.setAcceptDrops(True)
        self._layout()

        for part in (self.search_page, self.video_list, self.notes_page):
            part.openRequested.connect(self.openRequested)
        for part in (self.search_page, self.notes_page, self.cataloguing):
            part.message.connect(self.message)
        self.cataloguing.problem.connect(self.problem)
        self.cataloguing.analyseRequested.connect(self.analyseRequested)
        self.cataloguing.changed.connect(self.refresh)
        self.cataloguing.indexed.connect(self._on_indexed)
        self.search_page.resultsShown.connect(lambda: self.tabs.setCurrentIndex(RESULTS_TAB))
        self.video_list.removeRequested.connect(self.cataloguing.remove)
        self.queue_status.stopRequested.connect(self.stop)
        self.cataloguing.clusterStarted.connect(self.queue_status.cluster_started)
        self.cataloguing.clusterProgress.connect(self.queue_status.show_cluster)
        self.cataloguing.clusterEnded.connect(self.queue_status.cluster_ended)

    def _layout(self) -> None:
        self.tabs = QTabWidget()
        self.tabs.addTab(self.search_page, "Results")
        self.tabs.addTab(self.video_list, "Videos")
        self.tabs.addTab(self.notes_page, "Open notes")
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)  # it shares the window's width with the video
        layout.addWidget(self.search_page.bar)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.queue_status)
        layout.addLayout(buttons)

    # What the window asks of the library.
    def add_paths(self, paths: list[str]) -> None:
        self.cataloguing.add_paths(paths)

    def resume(self) -> None:
        self.cataloguing.resume()

    def index(self, path: str, content_hash: str) -> None:
        self.cataloguing.index(path, content_hash)

    def index_later(self, path: str, content_hash: str) -> None:
        self.cataloguing.index_later(path, content_hash)

    def analysis_failed(self, path: str, message: str) -> None:
        self.cataloguing.analysis_failed(path, message)

    def refresh(self) -> None:
        self.client.request("videos", done=self._show_videos, error=self.problem.emit)
        self.client.request("notes", "open", done=self._show_notes, error=self.problem.emit)

    def set_current_video(self, path: str | None) -> None:
        self.search_page.set_current_video(path)

    def jump(self, step: int) -> None:
        self.search_page.jump(step)

    def focus_search(self, this_video: bool) -> None:
        self.tabs.setCurrentIndex(RESULTS_TAB)
        self.search_page.focus(this_video)

    def stop(self) -> None:
        self.cataloguing.stop()
        self.queue.cancel_all()

    def shutdown(self) -> None:
        self.cataloguing.index_pending()
        self.stills.close()

    def _on_indexed(self) -> None:
        self.refresh()
        self.search_page.search_again()

    def _show_videos(self, videos) -> None:
        self.video_list.show_videos(videos)
        self.search_page.offer_people(videos)

    def _show_notes(self, notes: list[LibraryNote]) -> None:
        self.notes_page.show_notes(notes)
        self.tabs.setTabText(NOTES_TAB, f"Open notes ({len(notes)})" if notes else "Open notes")

    # Adding files and folders.
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
