"""The Summaries panel's exports: the PDF report (on a thread of its own, background.py's
ThreadTask: decoding a hundred pictures takes seconds), subtitles and OpenTimelineIO
markers. Each writes atomically and ends in one line: where it went, or the file and the
problem."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QObject, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFileDialog, QMenu, QPushButton

from ...errors import VideoReviewError
from ..background import ThreadTask

EXPORT_ERRORS = (OSError, ValueError, VideoReviewError)


def export_problem(exc: Exception) -> str:
    return getattr(exc, "strerror", None) or str(exc)


class SummaryExports(QObject):
    """Its buttons go on the panel's toolbar; it reads the panel's video, summary and comparison."""

    pdfExported = Signal(str, bool)  # path, whether it was written

    def __init__(self, panel) -> None:
        super().__init__(panel)
        self.panel = panel
        self.reveal_exports = True  # tests turn off opening the export's folder
        self.pdf_running: ThreadTask | None = None
        self.pdf_path = ""
        self.pdf_button = QPushButton("PDF…")
        self.pdf_button.setToolTip("A report: the summary marked 'in report' and the last ViSIL comparison")
        self.pdf_button.clicked.connect(lambda: self._ask_and_export("pdf"))
        self.subtitles_button = QPushButton("Subtitles")
        self.subtitles_button.setToolTip("SRT or WebVTT (by the file's suffix) of what is said, of the "
                                         "frame captions or of the boundary captions")
        menu = QMenu(self.subtitles_button)
        self.subtitle_actions = {
            "speech": menu.addAction("What is said…", lambda: self._ask_and_export("subtitles", "speech")),
            "captions": menu.addAction("Frame captions…", lambda: self._ask_and_export("subtitles", "captions")),
            "boundaries": menu.addAction("Boundary captions…",
                                         lambda: self._ask_and_export("subtitles", "boundaries")),
        }
        self.subtitles_button.setMenu(menu)
        self.otio_button = QPushButton("OTIO markers…")
        self.otio_button.setToolTip("OpenTimelineIO markers for editors: boundaries and keyframes")
        self.otio_button.clicked.connect(lambda: self._ask_and_export("otio"))

    def set_enabled(self, ready: bool) -> None:
        for button in (self.subtitles_button, self.otio_button):
            button.setEnabled(ready)
        self.pdf_button.setEnabled(ready and self.pdf_running is None)

    def default_export_path(self, suffix: str) -> str:
        video = Path(self.panel.path)
        return str(video.with_name(video.stem + suffix))

    def ask_save_path(self, title: str, default: str, filters: str) -> str:
        """The file to write ('' when the reviewer cancels); tests replace this."""
        path, _ = QFileDialog.getSaveFileName(self.panel, title, default, filters)
        return path

    def _ask_and_export(self, what: str, which: str = "captions") -> None:
        if self.panel.analysis is None:
            return
        title, suffix, filters = {
            "pdf": ("Export the summary report", ".pdf", "PDF (*.pdf)"),
            "subtitles": ("Export subtitles", ".srt", "SubRip (*.srt);;WebVTT (*.vtt)"),
            "otio": ("Export OpenTimelineIO markers", ".otio", "OpenTimelineIO (*.otio)"),
        }[what]
        path = self.ask_save_path(title, self.default_export_path(suffix), filters)
        if not path:
            return
        if what == "subtitles":
            self.export_subtitles(path, which)
        else:
            {"pdf": self.export_pdf, "otio": self.export_otio}[what](path)

    def export_pdf(self, path: str) -> bool:
        """Write the PDF report on a thread of its own (decoding 100 pictures takes seconds);
        ``pdfExported`` tells when it is done. False if one is being written already."""
        from ...summary.export import write_pdf

        if self.pdf_running is not None:
            return False
        if Path(path).suffix.lower() != ".pdf" and not Path(path).is_dir():
            path += ".pdf"
        analysis, video, summary = self.panel.analysis, self.panel.path, self.panel.report_summary()
        comparison = self.panel.comparisons.get(video)
        task = ThreadTask(lambda: write_pdf(analysis, path, video_path=video, summary=summary, comparison=comparison)
                          or [], EXPORT_ERRORS, export_problem)
        task.done.connect(self._on_pdf_exported)  # a slot of this GUI-thread object: queued to the GUI thread
        self.pdf_path = path
        self.pdf_running = task
        self.panel.say(f"Writing {path}…")
        self.panel.update_enabled()
        task.start()
        return True

    @Slot(object, str)
    def _on_pdf_exported(self, warnings: list | None, problem: str) -> None:
        path = self.pdf_path
        self.pdf_running.wait()
        self.pdf_running.deleteLater()
        self.pdf_running = None
        if problem:
            self._export_failed(path, problem)
        else:
            self._exported(path, warnings or [])
        self.panel.update_enabled()
        self.pdfExported.emit(path, not problem)

    def export_subtitles(self, path: str, which: str = "captions") -> bool:
        """SRT, or WebVTT for a .vtt path, of the frame captions, the boundary captions or
        (``which`` "speech") what is said."""
        from ...summary.export import boundary_cues, caption_cues, speech_cues, write_srt, write_vtt

        if Path(path).suffix.lower() not in (".srt", ".vtt"):
            path += ".srt"
        cues = {"captions": caption_cues, "boundaries": boundary_cues, "speech": speech_cues}[which](
            self.panel.analysis)
        write = write_vtt if path.lower().endswith(".vtt") else write_srt
        return self._export(path, lambda p: write(cues, p))

    def export_otio(self, path: str) -> bool:
        from ...summary.export import write_otio

        if Path(path).suffix.lower() != ".otio":
            path += ".otio"
        analysis = self.panel.analysis
        return self._export(path, lambda p: write_otio(analysis, p))

    def _export(self, path: str, write) -> bool:
        """Write with ``write(path)`` (the writers are atomic: a failure leaves no half file);
        then show where it went, or one message naming the file and the problem."""
        try:
            warnings = write(path) or []
        except EXPORT_ERRORS as exc:
            return self._export_failed(path, export_problem(exc))
        return self._exported(path, warnings)

    def _exported(self, path: str, warnings: list[str]) -> bool:
        done = f"Wrote {path}" + (f" ({'; '.join(warnings)})" if warnings else "")
        self.panel.say(done)
        self.panel.message.emit(done)
        self.reveal(path)
        return True

    def _export_failed(self, path: str, problem: str) -> bool:
        message = f"{path}: cannot be written ({problem})"
        self.panel.say(message, error=True)
        self.panel.problem.emit(message)
        return False

    def reveal(self, path: str) -> None:
        """Open the folder the export went to (not in tests nor without a display)."""
        if not self.reveal_exports or os.environ.get("QT_QPA_PLATFORM") == "offscreen":
            return
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(Path(path).parent)))

    def shutdown(self) -> None:
        """At quit: finish a PDF being written."""
        if self.pdf_running is not None:
            self.pdf_running.wait()
