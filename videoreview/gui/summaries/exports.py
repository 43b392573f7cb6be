"""The Summaries panel's exports, every format from the exports table by the file's suffix:
the PDF report (on a thread of its own, work/background.py's ThreadTask: decoding a hundred
pictures takes seconds), subtitles, and the rest (the Analysis JSON, a CSV of the
boundaries, OpenTimelineIO markers...). Each writes atomically and ends in one line: where
it went, or the file and the problem."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QObject, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFileDialog, QMenu, QPushButton

from ...errors import VideoReviewError
from ...summary.export.files import EXPORTS, Options, export_analysis
from ..work.background import ThreadTask

EXPORT_ERRORS = (OSError, ValueError, VideoReviewError)
SUBTITLE_SUFFIXES = (".srt", ".vtt")
MORE = tuple(s for s in EXPORTS if s not in (".pdf", *SUBTITLE_SUFFIXES))  # the More menu's formats


def export_problem(exc: Exception) -> str:
    return getattr(exc, "strerror", None) or str(exc)


class SummaryExports(QObject):
    """Its buttons go on the panel's toolbar; it reads the panel's video, summary and
    comparison. Every format comes from the exports table (summary/export/files.py): the
    PDF and subtitles have buttons of their own, the rest are in the More menu."""

    pdfExported = Signal(str, bool)  # path, whether it was written

    def __init__(self, panel) -> None:
        super().__init__(panel)
        self.panel = panel
        self.reveal_exports = True  # tests turn off opening the export's folder
        self.pdf_running: ThreadTask | None = None
        self.pdf_path = ""
        self.pdf_button = QPushButton("PDF…")
        self.pdf_button.setToolTip("A report: the summary marked 'in report' and the last ViSIL comparison")
        self.pdf_button.clicked.connect(lambda: self._ask_and_export((".pdf",)))
        self.subtitles_button = QPushButton("Subtitles")
        self.subtitles_button.setToolTip("SRT or WebVTT (by the file's suffix) of what is said, of the "
                                         "frame captions or of the boundary captions")
        menu = QMenu(self.subtitles_button)
        self.subtitle_actions = {which: menu.addAction(text, lambda w=which: self._ask_and_export(SUBTITLE_SUFFIXES, w))
                                 for which, text in (("speech", "What is said…"), ("captions", "Frame captions…"),
                                                     ("boundaries", "Boundary captions…"))}
        self.subtitles_button.setMenu(menu)
        self.more_button = QPushButton("More")
        self.more_button.setToolTip("The other formats: " + ", ".join(
            f"{export.label} ({suffix})" for suffix, export in EXPORTS.items() if suffix in MORE))
        menu = QMenu(self.more_button)
        self.export_actions = {suffix: menu.addAction(f"{EXPORTS[suffix].label[0].upper()}"
                                                      f"{EXPORTS[suffix].label[1:]}…",
                                                      lambda s=suffix: self._ask_and_export((s,)))
                               for suffix in MORE}
        self.more_button.setMenu(menu)

    def set_enabled(self, ready: bool) -> None:
        for button in (self.subtitles_button, self.more_button):
            button.setEnabled(ready)
        self.pdf_button.setEnabled(ready and self.pdf_running is None)

    def default_export_path(self, suffix: str) -> str:
        video = Path(self.panel.path)
        return str(video.with_name(video.stem + suffix))

    def ask_save_path(self, title: str, default: str, filters: str) -> str:
        """The file to write ('' when the reviewer cancels); tests replace this."""
        path, _ = QFileDialog.getSaveFileName(self.panel, title, default, filters)
        return path

    def _ask_and_export(self, suffixes: tuple[str, ...], subtitles: str = "captions") -> None:
        if self.panel.analysis is None:
            return
        filters = ";;".join(f"{EXPORTS[s].label} (*{s})" for s in suffixes)
        path = self.ask_save_path(f"Export {EXPORTS[suffixes[0]].label}", self.default_export_path(suffixes[0]),
                                  filters)
        if path:
            self.export(path, subtitles, suffixes)

    def export(self, path: str, subtitles: str = "captions", suffixes: tuple[str, ...] = tuple(EXPORTS)) -> bool:
        """Write the open video's analysis to ``path`` in the format its suffix names (the
        first of ``suffixes`` added when it names none of them); ``subtitles``: what
        subtitles say. The PDF is written on a thread of its own (decoding 100 pictures
        takes seconds): ``pdfExported`` tells when it is done, and False means one is
        being written already."""
        if Path(path).suffix.lower() not in suffixes and not Path(path).is_dir():
            path += suffixes[0]
        if Path(path).suffix.lower() == ".pdf" or Path(path).is_dir():
            return self._export_pdf(path)
        try:
            warnings = export_analysis(self.panel.analysis, path, Options(subtitles))
        except EXPORT_ERRORS as exc:
            return self._export_failed(path, export_problem(exc))
        return self._exported(path, warnings)

    def _export_pdf(self, path: str) -> bool:
        if self.pdf_running is not None:
            return False
        analysis, video = self.panel.analysis, self.panel.path
        options = Options(video_path=video, summary=self.panel.report_summary(),
                          comparison=self.panel.comparisons.get(video))
        task = ThreadTask(lambda: EXPORTS[".pdf"].write(analysis, path, options) or [], EXPORT_ERRORS,
                          export_problem)
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
