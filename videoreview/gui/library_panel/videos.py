"""The library's videos: one row each with its still, name, length, state (the analysis
queue's own while it has the video) and the people in it. Double-click opens a video; its
context menu opens or removes it."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QIcon, QImage, QPixmap
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QMenu

from ...library.catalog_reads import Video
from ...progress import AnalysisProgress
from ...timecode import format_time
from ..labels import identity_label, status_text
from ..work.jobs import AnalysisQueue
from ..work.stills import StillLoader
from .pictures import THUMB, placeholder, video_key


class VideoList(QListWidget):
    openRequested = Signal(str, float)  # path, -1: where it was
    removeRequested = Signal(int)  # the catalog's id of a video to forget

    def __init__(self, queue: AnalysisQueue, stills: StillLoader) -> None:
        super().__init__()
        self.queue = queue
        self.stills = stills
        self.videos: list[Video] = []
        self._rows: dict[str, int] = {}  # video_key(path) -> row
        self._progress: AnalysisProgress | None = None  # of the video being analysed
        self._placeholder = placeholder()
        self.setIconSize(THUMB)
        self.setWordWrap(True)
        self.itemActivated.connect(lambda item: self.openRequested.emit(item.data(Qt.UserRole), -1.0))
        self.setContextMenuPolicy(Qt.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)
        stills.ready.connect(self._on_still)
        queue.progress.connect(self._on_progress)
        queue.queueChanged.connect(self._on_queue_changed)

    def show_videos(self, videos: list[Video]) -> None:
        self.videos = videos
        self._rows = {video_key(video.path): row for row, video in enumerate(videos)}
        self.clear()
        for video in videos:
            item = QListWidgetItem(self._placeholder, "")
            item.setData(Qt.UserRole, video.path)
            item.setData(Qt.UserRole + 1, video.id)
            item.setToolTip(video.path + (f"\n{video.error}" if video.error else ""))
            self.addItem(item)
        self._label_all()
        for video in reversed(videos):  # the loader decodes the newest request first: the top of the list
            if video.duration:
                self.stills.request(video_key(video.path), video.path, video.duration * 0.1)

    def _label_all(self) -> None:
        for row in range(len(self.videos)):
            self._label(row)

    def _label(self, row: int) -> None:
        """Name, length, state (the queue's own where it has the video) and people."""
        video = self.videos[row]
        if self.queue.current is not None and self.queue.current.path == video.path:
            state = status_text("analysing") + (f" {self._progress.fraction:.0%}" if self._progress else "")
        elif any(job.path == video.path for job in self.queue.pending):
            state = "queued"
        else:
            state = status_text(video.status)
        length = format_time(video.duration) if video.duration else ""
        people = ", ".join(identity_label(pid, name) for pid, name in video.identities)
        details = " · ".join(x for x in (length, state, people) if x)
        self.item(row).setText(f"{os.path.basename(video.path)}\n{details}")

    def _on_progress(self, progress: AnalysisProgress) -> None:
        self._progress = progress
        row = self._rows.get(video_key(progress.path))
        if row is not None:
            self._label(row)

    def _on_queue_changed(self) -> None:
        if self.queue.current is None:
            self._progress = None
        self._label_all()

    def _on_still(self, key: str, image: QImage) -> None:
        row = self._rows.get(key)
        if row is not None:
            self.item(row).setIcon(QIcon(QPixmap.fromImage(image)))

    def _menu(self, pos) -> None:
        item = self.itemAt(pos)
        if item is None:
            return
        path, video_id = item.data(Qt.UserRole), item.data(Qt.UserRole + 1)
        menu = QMenu(self)
        menu.setAttribute(Qt.WA_DeleteOnClose)
        menu.addAction("Open", lambda: self.openRequested.emit(path, -1.0))
        menu.addAction("Remove from the library", lambda: self.removeRequested.emit(video_id))
        menu.popup(self.viewport().mapToGlobal(pos))
