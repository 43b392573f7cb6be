"""Adding to the library and keeping it indexed, through the library process (see
library_client.py): files and folders are catalogued, what needs analysing goes out as
``analyseRequested`` (the window's analysis queue takes it), saved analyses are indexed
(those saved after an edit once the edits pause)."""

from __future__ import annotations

import os

from PySide6.QtCore import QObject, QTimer, Signal

from ..library_client import LibraryClient

REINDEX_DELAY_MS = 1500  # edits come in bursts: the library takes the last state


class Cataloguing(QObject):
    analyseRequested = Signal(str)  # a catalogued video that needs analysing
    problem = Signal(str)
    message = Signal(str)
    changed = Signal()  # the library's videos or notes changed: show them again
    indexed = Signal()  # what a search finds may have changed too

    def __init__(self, client: LibraryClient, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.client = client
        self._to_index: dict[str, str] = {}  # path -> content hash of an edited, saved analysis
        self._timer = QTimer(self, singleShot=True, interval=REINDEX_DELAY_MS, timeout=self.index_pending)

    def add_paths(self, paths: list[str]) -> None:
        """Catalogue files and folders (recursively); what needs analysing is queued as
        soon as it is found, the rest is already searchable."""
        if not paths:
            return
        names = ", ".join(os.path.basename(p.rstrip(os.sep)) or p for p in paths[:3])
        self.message.emit(f"Adding to the library: {names}" + ("…" if len(paths) > 3 else ""))
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
        self.changed.emit()

    def resume(self) -> None:
        """Queue what was catalogued but not analysed when the window last closed."""
        self.client.request("resume", done=lambda paths: [self.analyseRequested.emit(p) for p in paths],
                            error=self.problem.emit)
        self.changed.emit()

    def index(self, path: str, content_hash: str) -> None:
        """A saved analysis (new, or edited in review) goes into the library."""
        self.client.request("index", path, content_hash, done=lambda count: self.indexed.emit(),
                            error=self.problem.emit)

    def index_later(self, path: str, content_hash: str) -> None:
        """An analysis saved after an edit: indexed once the edits pause."""
        self._to_index[path] = content_hash
        self._timer.start()

    def index_pending(self) -> None:
        """Index the edited analyses now (the window is closing)."""
        self._timer.stop()
        for path, content_hash in self._to_index.items():
            self.index(path, content_hash)
        self._to_index.clear()

    def analysis_failed(self, path: str, message: str) -> None:
        self.client.request("failed", path, message, done=lambda _: self.changed.emit(), error=self.problem.emit)

    def remove(self, video_id: int) -> None:
        """Forget a video (the file and its saved analysis stay)."""
        self.client.request("remove", video_id, done=lambda _: self.indexed.emit(), error=self.problem.emit)

    def stop(self) -> None:
        """Stop cataloguing what is being added (the analysis queue is stopped apart)."""
        self.client.stop_adding()
