"""What the analysis queue's news does to the window's open videos: progress goes to the
Videos panel and the status bar, partial and finished Analyses to their documents (and
every analysed video into the library), a video that fails or is cancelled before it ever
had an analysis leaves the window as it was; an engine's notice is said once a session."""

from __future__ import annotations

import os

from ...pipeline.coarse import is_coarse
from ...records import Analysis
from .jobs import JobProgress


class QueueEvents:
    def __init__(self, window) -> None:
        self.window = window
        self._engine_notices: set[str] = set()
        q = window.queue
        q.progress.connect(self._on_progress)
        q.partial.connect(self._on_partial)
        q.finished.connect(self._on_finished)
        q.failed.connect(self._on_failed)
        # Every analysed video goes into the library (a failure is noted there if it is catalogued).
        q.finished.connect(lambda path, analysis: window.library_panel.index(path, analysis.content_hash))
        q.failed.connect(window.library_panel.analysis_failed)
        q.cancelled.connect(self._on_cancelled)
        q.notice.connect(self._engine_notice)
        q.queueChanged.connect(self._on_queue_changed)

    def _on_progress(self, progress: JobProgress) -> None:
        window = self.window
        window.job_status.show_progress(progress, len(window.queue.pending))
        document = window.documents.get(progress.path)
        if document is not None:
            if document.status != "analysing":
                document.set_status("analysing")
            window.videos.update_video(progress.path, "analysing", f"{progress.fraction:.0%}")

    def _on_partial(self, path: str, analysis: Analysis) -> None:
        self.window.job_status.set_coarse(is_coarse(analysis))  # said in the status until the full pass lands
        document = self.window.documents.get(path)
        if document is not None:
            document.show_partial(analysis)

    def _on_finished(self, path: str, analysis: Analysis) -> None:
        window = self.window
        document = window.documents.get(path)
        if document is not None:
            document.finish(analysis)
            window.statusBar().showMessage(f"{os.path.basename(path)}: analysis done", 5000)
            if document is window.current:
                window.tours.start_when_ready()

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
            self.window.statusBar().showMessage(f"{os.path.basename(path)}: analysis cancelled", 5000)

    def _on_queue_changed(self) -> None:
        if self.window.queue.is_idle():
            self.window.job_status.set_idle()

    def _engine_notice(self, message: str) -> None:
        """A chosen model that cannot be used: said once a session, not for every video."""
        if message not in self._engine_notices:
            self._engine_notices.add(message)
            self.window.notice(message)
