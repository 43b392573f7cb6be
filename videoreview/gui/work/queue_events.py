"""What the analysis queue's news does to the window's open videos: progress goes to the
Videos panel (the status bar takes it from the queue itself: job_status.py), partial and
finished Analyses to their documents (and every analysed video into the library), a video
that fails or is cancelled before it ever had an analysis leaves the window as it was; an
engine's notice is said once a session."""

from __future__ import annotations

import os
from typing import Any, Protocol

from ...progress import AnalysisProgress
from ...records import Analysis
from .jobs import AnalysisQueue


class OpenVideos(Protocol):
    """What the queue's news needs of the window: its open videos (gui/document.py's
    VideoDocument), and ways to speak."""

    documents: dict[str, Any]
    current: Any

    def close_document(self, document) -> None: ...

    def notice(self, message: str) -> None: ...

    def say(self, message: str) -> None:
        """A short message in the status bar, for a few seconds."""
        ...


class VideoList(Protocol):
    def update_video(self, path: str, status: str, detail: str = "") -> None: ...


class Library(Protocol):
    def index(self, path: str, content_hash: str) -> None: ...

    def analysis_failed(self, path: str, message: str) -> None: ...


class QueueEvents:
    def __init__(self, queue: AnalysisQueue, window: OpenVideos, videos: VideoList, library_panel: Library,
                 tours) -> None:
        """``tours``: the window's TourLauncher (gui/tour.py), which may start its tour once a
        video is analysed."""
        self.queue, self.window, self.videos = queue, window, videos
        self.tours = tours
        self._engine_notices: set[str] = set()
        q = queue
        q.progress.connect(self._on_progress)
        q.partial.connect(self._on_partial)
        q.finished.connect(self._on_finished)
        q.failed.connect(self._on_failed)
        # Every analysed video goes into the library (a failure is noted there if it is catalogued).
        # The library process reads the saved file: sending it the Analysis would pickle it
        # here, on the window's GIL (50 ms for a two-hour video): work that process is there to take.
        q.finished.connect(lambda path, analysis: library_panel.index(path, analysis.content_hash))
        q.failed.connect(library_panel.analysis_failed)
        q.cancelled.connect(self._on_cancelled)
        q.notice.connect(self._engine_notice)

    def _on_progress(self, progress: AnalysisProgress) -> None:
        document = self.window.documents.get(progress.path)
        if document is not None:
            if document.status != "analysing":
                document.set_status("analysing")
            self.videos.update_video(progress.path, "analysing", f"{progress.fraction:.0%}")

    def _on_partial(self, path: str, analysis: Analysis) -> None:
        document = self.window.documents.get(path)
        if document is not None:
            document.show_partial(analysis)

    def _on_finished(self, path: str, analysis: Analysis) -> None:
        document = self.window.documents.get(path)
        if document is not None:
            document.finish(analysis)
            self.window.say(f"{os.path.basename(path)}: analysis done")
            if document is self.window.current:
                self.tours.start_when_ready()

    def _on_failed(self, path: str, message: str) -> None:
        """Not a usable video: it leaves the window as it was before it was dropped."""
        self.window.notice(message)
        document = self.window.documents.get(path)
        if document is None:
            return
        document.abandon("failed", message)
        if document.analysis is None:  # nothing was there before it
            self.window.close_document(document)

    def _on_cancelled(self, path: str) -> None:
        document = self.window.documents.get(path)
        if document is None:
            return
        document.abandon("cancelled")
        if document.analysis is None:
            self.window.say(f"{os.path.basename(path)}: analysis cancelled")

    def _engine_notice(self, message: str) -> None:
        """A chosen model that cannot be used: said once a session, not for every video."""
        if message not in self._engine_notices:
            self._engine_notices.add(message)
            self.window.notice(message)
