"""Adding to the library and keeping it indexed, through the library process (see
work/library_client.py): files and folders are catalogued, what needs analysing goes out as
``analyseRequested`` (the window's analysis queue takes it), saved analyses are indexed
(those saved after an edit once the edits pause). With a cluster address set (Settings >
Cluster), what needs analysing goes to the Ray cluster instead, through the library
process, and each video's state there comes back as ``clusterProgress``."""

from __future__ import annotations

import os

from PySide6.QtCore import QObject, QTimer, Signal

from ..window_settings import cluster_address
from ..work.library_client import LibraryClient

REINDEX_DELAY_MS = 1500  # edits come in bursts: the library takes the last state


class Cataloguing(QObject):
    analyseRequested = Signal(str)  # a catalogued video that needs analysing
    problem = Signal(str)
    message = Signal(str)
    changed = Signal()  # the library's videos or notes changed: show them again
    indexed = Signal()  # what a search finds may have changed too
    clusterProgress = Signal(str, str, str)  # path, what (queued, running, ...: cluster.driver), detail
    clusterStarted = Signal()  # a run on the cluster was asked for
    clusterEnded = Signal(str)  # one ended: what came of it, or why it could not run, in one line

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
        address = cluster_address()
        if address:
            self.message.emit(f"Adding to the library, analysed on the cluster at {address}: {names}"
                              + ("…" if len(paths) > 3 else ""))
            self.send_to_cluster(paths, address)
            return
        self.message.emit(f"Adding to the library: {names}" + ("…" if len(paths) > 3 else ""))
        self.client.request("add", [os.fspath(p) for p in paths], progress=self._on_add_progress,
                            done=self._on_added, error=self.problem.emit)

    def send_to_cluster(self, paths: list[str], address: str) -> None:
        """Catalogue ``paths`` and have what needs analysing analysed on the cluster."""
        self.clusterStarted.emit()
        self.client.request("add_on_cluster", [os.fspath(p) for p in paths], address, None,
                            progress=self._on_add_progress, done=self._on_cluster_done,
                            error=self._on_cluster_error)

    def _on_add_progress(self, payload: tuple) -> None:
        if payload[0] == "cluster":
            _, what, path, detail = payload
            if what == "notice":
                self.message.emit(f"Cluster: {detail}")
            else:
                self.clusterProgress.emit(path, what, detail)
            return
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

    def _on_cluster_done(self, result: dict) -> None:
        problems = [problem for _, problem in result["failed"]]  # each names its file
        problems += [f"{path}: {why}" for path, why in result["skipped"]]
        line = (f"On the cluster: {len(result['indexed'])} indexed, {len(result['failed'])} failed, "
                f"{result['unchanged']} already indexed" + (" (stopped)" if result["stopped"] else ""))
        if result["problem"]:
            waiting = set(result["wanted"]) - set(result["indexed"]) - {path for path, _ in result["failed"]}
            line = (f"{result['problem'].rstrip('.')}. Nothing is lost: {len(waiting)} videos stay in the library "
                    "waiting to be analysed (add them again, or empty Settings > Cluster to analyse them here)")
            problems.insert(0, line)
        if problems:
            self.problem.emit("\n".join(problems))
        if not result["problem"]:
            self.message.emit(line)
        self.clusterEnded.emit(line)
        self.changed.emit()
        if result["indexed"]:
            self.indexed.emit()

    def _on_cluster_error(self, message: str) -> None:
        self.problem.emit(message)
        self.clusterEnded.emit(message)
        self.changed.emit()

    def resume(self) -> None:
        """Queue what was catalogued but not analysed when the window last closed (on the
        cluster when one is set)."""
        self.client.request("resume", done=self._resumed, error=self.problem.emit)
        self.changed.emit()

    def _resumed(self, paths: list[str]) -> None:
        address = cluster_address()
        if address and paths:
            self.send_to_cluster(paths, address)
            return
        for path in paths:
            self.analyseRequested.emit(path)

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
