"""The Summaries panel: the open video's summaries side by side (keyframes, editable
text, ViSIL score), comparing them by ViSIL in the background, and the exports.

Summaries are records of the Analysis: building them and editing their text are edits of
the document (undoable, saved), asked of the window through ``editRequested``. Writing
them with a VLM and a ViSIL comparison run in a child process (gui.work.model_job); a
comparison's result is kept per video while the window is open and shown as a table and
a plot of ViSIL against token cost (results.py).
"""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QImage
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from ...pipeline import edits
from ...records import Analysis, Summary
from ...summary.compare import Comparison, Reference
from ...summary.formats import formats_to_build, summaries_to_build
from ..document import VideoDocument
from ..work.model_job import ModelJob, scoring_request, writing_request
from ..work.thumbnails import ThumbnailLoader
from .column import COLUMN_WIDTH, THUMB_HEIGHT, SummaryColumn
from .exports import SummaryExports
from .model_choice import ModelChoice
from .reference_dialog import ReferenceDialog
from .results import ComparisonView


def _spacer() -> QWidget:
    spacer = QWidget()
    spacer.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Preferred)
    return spacer


class SummaryPanel(QWidget):
    editRequested = Signal(str, object)  # undo text, change: Analysis -> Analysis
    seekRequested = Signal(float)
    message = Signal(str)  # for the status bar
    problem = Signal(str)  # an export that failed: one line naming the file

    def __init__(self) -> None:
        super().__init__()
        self.document: VideoDocument | None = None
        self.columns: list[SummaryColumn] = []
        self.comparisons: dict[str, Comparison] = {}  # video path -> the last comparison
        self.references: dict[str, Reference] = {}  # video path -> the reviewer's reference
        self.report_choice: dict[str, int] = {}  # video path -> summary index for the PDF
        self.loader: ThumbnailLoader | None = None
        self.job = ModelJob(self)
        self.job.progress.connect(self._on_progress)
        self.job.finished.connect(self._on_job_finished)
        self.job.failed.connect(self._on_job_failed)
        self.job.cancelled.connect(self._on_job_cancelled)
        self._shown_structure: tuple = ()
        self.exports = SummaryExports(self)
        self.comparison_view = ComparisonView()
        self.comparison_view.cancel_button.clicked.connect(self.job.cancel)
        self._report_group = QButtonGroup(self)
        self._report_group.idClicked.connect(self._on_report_picked)

        self._make_controls()
        splitter = QSplitter(Qt.Horizontal)
        splitter.addWidget(self._columns_area())
        splitter.addWidget(self.comparison_view)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([3000, 2000])  # shares: the labels' size hints would give the results nearly all
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self._toolbar())
        layout.addWidget(splitter, 1)
        self.set_document(None)

    # -- construction -------------------------------------------------------------------
    def _make_controls(self) -> None:
        self.build_button = QPushButton("Build summaries")
        self.build_button.setToolTip("Text only, 1 keyframe + text and 3 keyframes + text (and the extra one); "
                                     "summaries you edited are kept")
        self.build_button.clicked.connect(self.build)
        self.extra = QSpinBox()
        self.extra.setRange(0, 12)
        self.extra.setSpecialValueText("no extra")
        self.extra.setPrefix("+ ")
        self.extra.setSuffix(" keyframes")
        self.extra.setToolTip("Also build a summary with this many keyframes")
        self.writer = ModelChoice("builtin", "A VLM model folder to write summaries with", "summaries")
        self.writer.setToolTip("Who writes the text: builtin (from the analysis) or a VLM model folder "
                               "(ViSIL's summary prompt, in the background)")
        self.scorer = ModelChoice("builtin (approximate)", "A VLM model folder to score with", "scoring")
        self.scorer.setToolTip("The scorer: builtin (no language model, approximate) or a VLM model folder")
        self.scorer.chosen.connect(lambda _: self._show_reference())
        self.reference_button = QPushButton("Reference…")
        self.reference_button.setToolTip("The detailed description summaries are measured against")
        self.reference_button.clicked.connect(self._edit_reference)
        self.compute_button = QPushButton("Compute ViSIL")
        self.compute_button.clicked.connect(self.compute_visil)

    def _toolbar(self) -> QToolBar:
        """Build | score | export, in one row across the panel (what does not fit goes
        under the bar's » button, so the panel never holds the window wider)."""
        bar = QToolBar()
        for widget in (self.build_button, self.extra, QLabel(" by "), self.writer, None, QLabel("Scorer "),
                       self.scorer, self.reference_button,
                       self.compute_button, _spacer(), QLabel("Export: "), self.exports.pdf_button,
                       self.exports.subtitles_button, self.exports.more_button):
            bar.addSeparator() if widget is None else bar.addWidget(widget)
        return bar

    def _columns_area(self) -> QScrollArea:
        self.columns_box = QWidget()
        self.columns_layout = QHBoxLayout(self.columns_box)
        self.columns_layout.setContentsMargins(0, 0, 0, 0)
        self.columns_layout.addStretch(1)
        self.empty = QLabel()
        self.empty.setWordWrap(True)
        self.columns_layout.insertWidget(0, self.empty)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setWidget(self.columns_box)
        self.scroll.setMinimumWidth(COLUMN_WIDTH + 24)  # one summary at least
        return self.scroll

    # -- the document shown -----------------------------------------------------------------
    @property
    def analysis(self) -> Analysis | None:
        return self.document.analysis if self.document is not None else None

    @property
    def path(self) -> str | None:
        return self.document.path if self.document is not None else None

    def set_document(self, document: VideoDocument | None) -> None:
        if self.document is not None:
            self.document.changed.disconnect(self._on_changed)
            self.document.statusChanged.disconnect(self._on_changed)
        self.document = document
        if document is not None:
            document.changed.connect(self._on_changed)
            document.statusChanged.connect(self._on_changed)
        if self.loader is not None:
            self.loader.close()
            self.loader = None
        self._shown_structure = ()
        self._on_changed()

    def _request_thumbnails(self, frames: list[int]) -> None:
        """Keyframe thumbnails, decoded by a loader of the panel's own (the timeline's asks
        for strip frames at its own size, and newer requests replace older queued ones)."""
        if self.loader is None:
            self.loader = ThumbnailLoader(self.document.path, self)
            self.loader.ready.connect(self._on_thumbnail)
        self.loader.request(frames, THUMB_HEIGHT)

    def _on_changed(self, *_) -> None:
        """The Analysis or its status changed: show its summaries, the last comparison."""
        analysis = self.analysis
        summaries = analysis.summaries if analysis is not None else ()
        structure = (self.path, analysis is None, tuple((s.format, s.keyframe_frames) for s in summaries))
        if structure != self._shown_structure:
            self._rebuild_columns(analysis)
            self._shown_structure = structure
        comparison = self.comparisons.get(self.path) if self.path else None
        for column, summary in zip(self.columns, summaries):
            column.show_summary(summary, comparison)
        self._show_report_choice()
        self.comparison_view.show_comparison(comparison)
        self._show_reference()
        self.update_enabled()

    def _rebuild_columns(self, analysis: Analysis | None) -> None:
        for column in self.columns:
            self._report_group.removeButton(column.report)
            column.deleteLater()
        self.columns = []
        summaries = analysis.summaries if analysis is not None else ()
        for index, summary in enumerate(summaries):
            column = SummaryColumn(index, summary, analysis)
            column.textCommitted.connect(lambda i, text, path=self.path: self._on_text_committed(path, i, text))
            column.seekRequested.connect(self.seekRequested)
            self._report_group.addButton(column.report, index)
            self.columns_layout.insertWidget(index, column)
            self.columns.append(column)
        self.empty.setVisible(not self.columns)
        self.empty.setText("Open a video to summarise it." if analysis is None else
                           "No summaries yet: Build summaries makes them from the analysis "
                           "(text only, 1 keyframe + text, 3 keyframes + text).")
        frames = sorted({f for s in summaries for f in s.keyframe_frames})
        if frames:
            self._request_thumbnails(frames)

    def _on_thumbnail(self, frame: int, image: QImage) -> None:
        for column in self.columns:
            column.set_thumbnail(frame, image)

    def update_enabled(self) -> None:
        ready = self.analysis is not None and not self.document.busy
        running = self.job.running
        for widget in (self.build_button, self.extra, self.writer):
            widget.setEnabled(ready and not running)
        self.compute_button.setEnabled(ready and bool(self.analysis.summaries) and not running)
        self.compute_button.setToolTip("" if self.analysis is None or self.analysis.summaries
                                       else "Build the summaries first")
        self.exports.set_enabled(ready)
        self.comparison_view.progress.setVisible(running)
        self.comparison_view.cancel_button.setVisible(running)

    # -- building and editing -----------------------------------------------------------------
    def build(self) -> bool:
        """Build the summaries: at once with the builtin writer, in the background with a VLM."""
        if self.analysis is None or self.document.busy or self.job.running:
            return False
        extra = self.extra.value()
        if self.writer.is_builtin():
            self.editRequested.emit("Build summaries",
                                    lambda a: edits.set_summaries(a, summaries_to_build(a, extra)))
            return True
        formats = formats_to_build(extra)
        self._start(writing_request(self.analysis, self.path, formats, self.writer.spec(), self.document),
                    f"Writing {len(formats)} summaries with {self.writer.currentText()}…")
        return True

    def _on_written(self, summaries: list[Summary], document: VideoDocument) -> None:
        # Applied to the document it was asked for, even if another video is shown now.
        problem = document.edit("Build summaries", lambda a: edits.set_summaries(a, summaries))
        if problem:
            self.say(f"The summaries were written but not kept: {problem}", error=True)
            return
        self.say(f"Wrote {len(summaries)} summaries with {summaries[0].engine if summaries else 'the model'}.")
        self.message.emit(f"{os.path.basename(document.path)}: summaries written")

    def _on_text_committed(self, path: str, index: int, text: str) -> None:
        if path != self.path:  # a column of the video shown before, losing focus as it goes
            return
        self.editRequested.emit("Edit summary", lambda a: edits.edit_summary_text(a, index, text))

    def report_summary(self) -> Summary | None:
        """The summary the PDF shows: the one marked, else the first with keyframes and text."""
        summaries = self.analysis.summaries if self.analysis is not None else ()
        index = self.report_choice.get(self.path)
        if index is not None and index < len(summaries):
            return summaries[index]
        return next((s for s in summaries if s.format == "keyframes+text"), summaries[0] if summaries else None)

    def _show_report_choice(self) -> None:
        chosen = self.report_summary()
        for column in self.columns:
            column.report.setChecked(column.summary is chosen)

    def _on_report_picked(self, index: int) -> None:
        if self.path is not None:
            self.report_choice[self.path] = index

    # -- ViSIL ------------------------------------------------------------------------------------
    def scorer_spec(self) -> str:
        return self.scorer.spec()

    def set_scorer(self, spec: str) -> None:
        """Choose the scorer ("builtin" or a model folder) and remember it."""
        self.scorer.choose(spec)

    def set_writer(self, spec: str) -> None:
        """Choose who writes the summaries ("builtin" or a model folder) and remember it."""
        self.writer.choose(spec)

    def _default_reference(self) -> str:
        return ("the builtin frame captions joined" if self.scorer.is_builtin()
                else "the model's own description of the video")

    def set_reference(self, reference: Reference | None) -> None:
        """The reviewer's reference description for the video shown (None: the default)."""
        if self.path is None:
            return
        if reference is None:
            self.references.pop(self.path, None)
        else:
            self.references[self.path] = reference
        self._show_reference()

    def _show_reference(self) -> None:
        reference = self.references.get(self.path) if self.path else None
        if reference is None:
            self.comparison_view.reference_label.setText(f"Reference: default ({self._default_reference()})")
        else:
            words = len(reference.text.split())
            self.comparison_view.reference_label.setText(f"Reference: {reference.origin} ({words} words)")

    def _edit_reference(self) -> None:
        if self.path is None:
            return
        dialog = ReferenceDialog(self.references.get(self.path), self._default_reference(), self)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        path = self.path
        dialog.accepted.connect(lambda: path == self.path and self.set_reference(dialog.reference()))
        dialog.open()  # not exec(): the window keeps running

    def compute_visil(self) -> bool:
        analysis = self.analysis
        if analysis is None or self.document.busy or self.job.running:
            return False
        if not analysis.summaries:
            self.say("Build the summaries first: there is nothing to score yet.", error=True)
            return False
        request = scoring_request(analysis, self.path, analysis.summaries, self.scorer_spec(),
                                  self.references.get(self.path))
        self._start(request, f"Scoring {len(analysis.summaries)} summaries with {self.scorer.currentText()}…")
        return True

    def _start(self, request, message: str) -> None:
        self.job.start(request)
        self.comparison_view.progress.setValue(0)
        self.say(message)
        self.update_enabled()

    def _on_progress(self, fraction: float, message: str) -> None:
        self.comparison_view.progress.setValue(round(max(0.0, min(1.0, fraction)) * 1000))
        self.say(f"{self._job_name()}: {message}")

    def _job_name(self) -> str:
        request = self.job.request
        return "ViSIL" if request is None or request.what == "ViSIL scoring" else "Summaries"

    def _on_job_finished(self, result) -> None:
        request = self.job.request
        if request.what == "ViSIL scoring":
            self.comparisons[request.video_path] = result
            self.say(f"ViSIL computed for {len(result.rows)} summaries.")
            self.message.emit(f"{os.path.basename(request.video_path)}: ViSIL computed")
        else:
            self._on_written(result, request.context)
        self._on_changed()

    def _on_job_failed(self, message: str) -> None:
        self.say(f"{self._job_name()} failed: {message}", error=True)
        self.update_enabled()

    def _on_job_cancelled(self) -> None:
        self.say(f"{self._job_name()} cancelled: nothing was changed.")
        self.update_enabled()

    def say(self, text: str, error: bool = False) -> None:
        self.comparison_view.say(text, error)

    def shutdown(self) -> None:
        """At quit: stop a model job that is still running, finish a PDF being written, and
        stop the thumbnail thread."""
        self.job.shutdown()
        self.exports.shutdown()
        if self.loader is not None:
            self.loader.close()
            self.loader = None
