"""The Summaries panel: the open video's summaries side by side (keyframes, editable
text, ViSIL score), comparing them by ViSIL in the background, and the exports.

Summaries are records of the Analysis: building them and editing their text are edits of
the document (undoable, saved), asked of the window through ``editRequested``. Writing
them with a VLM and a ViSIL comparison run in a child process (gui.model_job); a
comparison's result is kept per video while the window is open and shown as a table and
a plot of ViSIL against token cost.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QSize, Qt, QThread, QUrl, Signal
from PySide6.QtGui import QColor, QDesktopServices, QIcon, QImage, QPixmap
from PySide6.QtWidgets import (QAbstractItemView, QButtonGroup, QComboBox, QDialog, QDialogButtonBox, QFileDialog,
                               QFrame, QGridLayout, QHBoxLayout, QHeaderView, QLabel, QMenu, QPlainTextEdit, QProgressBar,
                               QPushButton, QRadioButton, QScrollArea, QSizePolicy, QSpinBox, QSplitter,
                               QTableWidget, QTableWidgetItem, QToolBar, QToolButton, QVBoxLayout, QWidget)

from ..errors import VideoReviewError
from ..pipeline import edits
from ..records import Analysis, Summary
from ..summary import builder
from ..summary.compare import Comparison, Reference, format_label, read_reference
from ..timecode import timecode
from .colors import EDITED_COLOR
from .document import VideoDocument
from .pareto_plot import ParetoPlot, PlotPoint
from .model_job import ModelJob, scoring_request, writing_request
from .theme import settings
from .thumbnails import ThumbnailLoader

THUMB_HEIGHT = 54  # keyframe thumbnails: as the timeline's strip
THUMBS_PER_ROW = 3
COLUMN_WIDTH = 300
BUILTIN = "builtin"
SCORER_SETTING = "summaries/scorer"
WRITER_SETTING = "summaries/writer"
APPROXIMATE_NOTE = "(approximate — no language model; compare only with scores from this scorer)"
EXACT_NOTE = "(compare only with scores from this scorer)"


def formats_to_build(extra_keyframes: int = 0) -> list[tuple[str, int]]:
    """ViSIL's three formats as (format, keyframes), plus keyframes + text with
    ``extra_keyframes`` when that is another number (0: none)."""
    formats = [("text", 0), ("keyframes+text", 1), ("keyframes+text", 3)]
    if extra_keyframes > 0 and extra_keyframes not in (1, 3):
        formats.append(("keyframes+text", extra_keyframes))
    return formats


def summaries_to_build(analysis: Analysis, extra_keyframes: int = 0) -> list[Summary]:
    """The formats of ``formats_to_build``, by the builtin writer."""
    return [builder.build(analysis, fmt, k) for fmt, k in formats_to_build(extra_keyframes)]


def label_title(label: str) -> str:
    """A row's format label ("text", "3", "3 images, no text") as people read it."""
    if label.isdigit():
        return f"{label} keyframe{'s' if label != '1' else ''} + text"
    return "Text only" if label == "text" else label


def summary_title(summary: Summary) -> str:
    return label_title(format_label(summary))


def short_label(label: str) -> str:
    """A row's format label for the plot, where space is short: "text", "3 kf", ..."""
    if label.isdigit():
        return f"{label} kf"
    return label.replace(" images", " kf").replace(" image", " kf")


def alpha_span(alphas: list[float], swept: list[float]) -> str:
    """The alphas (of those ``swept``) that choose a summary, as a range: "α ≤ 0.03",
    "α ≥ 0.1", "α 0.01 – 0.03" ("" for none)."""
    if not alphas:
        return ""
    low, high = min(alphas), max(alphas)
    if low == high:
        return f"α = {low:g}"
    if low == min(swept):
        return f"α ≤ {high:g}"
    return f"α ≥ {low:g}" if high == max(swept) else f"α {low:g} – {high:g}"


def matching_row(comparison: Comparison | None, summary: Summary):
    """The comparison's row for this summary's format and keyframes, or None."""
    if comparison is None:
        return None
    return next((r for r in comparison.rows
                 if r.format == format_label(summary) and r.keyframes == tuple(summary.keyframe_frames)), None)


# -- which model ------------------------------------------------------------------------------
class ModelChoice(QComboBox):
    """builtin, the installed catalog models for ``capability``, the model folders chosen
    before, and "Model folder…" to pick another; the choice is remembered under
    ``setting``, and until there is one the Models dialog's choice is shown."""

    chosen = Signal(str)  # "builtin", a catalog model's name or a folder

    def __init__(self, builtin_label: str, setting: str, folder_title: str, capability: str) -> None:
        from ..models.catalog import installed_path, load_catalog
        from ..preferences import load_choices, models_for

        super().__init__()
        self.setting, self.folder_title = setting, folder_title
        self.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(14)
        self.addItem(builtin_label, BUILTIN)
        catalog = load_catalog()
        installed = [name for name in models_for(capability, catalog) if installed_path(catalog[name]) is not None]
        for name in installed:
            self.addItem(name, name)
        self.addItem("Model folder…", None)
        self.activated.connect(self._on_activated)
        saved = settings().value(setting)
        spec = saved or load_choices()[0].get(capability, BUILTIN)
        if spec in installed or (spec != BUILTIN and isinstance(spec, str) and Path(spec).is_dir()):
            self.choose(spec, remember=bool(saved))

    def spec(self) -> str:
        return self.currentData() or BUILTIN

    def choose(self, spec: str, remember: bool = True) -> None:
        index = self.findData(spec)
        if index < 0:
            index = self.count() - 1  # before "Model folder…"
            self.insertItem(index, Path(spec).name or spec, spec)
            self.setItemData(index, spec, Qt.ToolTipRole)
        self.setCurrentIndex(index)
        if remember:
            settings().setValue(self.setting, spec)
        self.chosen.emit(spec)

    def ask_model_folder(self) -> str:
        return QFileDialog.getExistingDirectory(self, self.folder_title)

    def _on_activated(self, index: int) -> None:
        if self.itemData(index) is not None:
            self.choose(self.itemData(index))
            return
        folder = self.ask_model_folder()
        if folder:
            self.choose(folder)
        else:  # back to the one chosen before
            self.setCurrentIndex(max(0, self.findData(settings().value(self.setting, BUILTIN))))


# -- one summary ------------------------------------------------------------------------------
class SummaryText(QPlainTextEdit):
    """The summary's text; an edit is committed when the focus leaves or on Ctrl+Enter."""

    committed = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.shown = ""  # the text as the Analysis has it
        self.setTabChangesFocus(True)
        self.setPlaceholderText("(no text)")
        self.setToolTip("Edit the summary; Ctrl+Enter or leaving the box keeps the edit (Ctrl+Z undoes it). "
                        "Keep the [KEYFRAMEn] placeholders: they say where each keyframe goes.")

    def show_text(self, text: str) -> None:
        self.shown = text
        if self.toPlainText() != text:
            self.setPlainText(text)

    def commit(self) -> None:
        if self.toPlainText().strip() != self.shown.strip():
            self.committed.emit(self.toPlainText())

    def keyPressEvent(self, event) -> None:
        if event.key() in (Qt.Key_Return, Qt.Key_Enter) and event.modifiers() & Qt.ControlModifier:
            self.commit()
            return
        super().keyPressEvent(event)

    def focusOutEvent(self, event) -> None:
        self.commit()
        super().focusOutEvent(event)


class SummaryColumn(QFrame):
    """One summary: its format, keyframe thumbnails with timecodes (click: seek there),
    its text, and its ViSIL score once computed."""

    textCommitted = Signal(int, str)  # index in the Analysis's summaries, text
    seekRequested = Signal(float)

    def __init__(self, index: int, summary: Summary, analysis: Analysis) -> None:
        super().__init__()
        self.index, self.summary = index, summary
        self.setFrameShape(QFrame.StyledPanel)
        self.setFixedWidth(COLUMN_WIDTH)
        self.title = QLabel(f"<b>{summary_title(summary)}</b>")
        self.badge = QLabel("edited")
        self.badge.setStyleSheet(f"color: white; background: {EDITED_COLOR.name()}; border-radius: 3px; "
                                 "padding: 1px 5px;")
        self.report = QRadioButton("in report")
        self.report.setToolTip("The summary the PDF report shows")
        self.thumbs: dict[int, QToolButton] = {}  # keyframe -> its button
        self.loaded: set[int] = set()  # keyframes whose thumbnail has arrived
        grid = QGridLayout()
        grid.setSpacing(4)
        for n, frame in enumerate(summary.keyframe_frames):
            seconds = builder.keyframe_time(analysis, frame)
            button = QToolButton()
            button.setToolButtonStyle(Qt.ToolButtonTextUnderIcon)
            button.setAutoRaise(True)
            button.setIconSize(QSize(round(THUMB_HEIGHT * 16 / 9), THUMB_HEIGHT))
            button.setIcon(QIcon(_placeholder(analysis)))
            button.setText(f"{n + 1}: {timecode(seconds, analysis.video.fps)}")
            button.setToolTip(f"[KEYFRAME{n + 1}], frame {frame}: click to show it in the player")
            button.clicked.connect(lambda _=False, s=seconds: self.seekRequested.emit(s))
            grid.addWidget(button, n // THUMBS_PER_ROW, n % THUMBS_PER_ROW)
            self.thumbs[frame] = button
        self.text = SummaryText()
        self.text.setMinimumHeight(90)
        self.text.committed.connect(lambda text: self.textCommitted.emit(self.index, text))
        self.text.setReadOnly(summary.format == "keyframes")
        self.score = QLabel()
        self.score.setTextInteractionFlags(Qt.TextSelectableByMouse)
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.badge)
        head.addWidget(self.report)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(head)
        if summary.keyframe_frames:
            layout.addLayout(grid)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.score)
        self.show_summary(summary, None)

    def show_summary(self, summary: Summary, comparison: Comparison | None) -> None:
        self.summary = summary
        self.badge.setVisible(summary.edited)
        self.text.show_text(summary.text)
        row = matching_row(comparison, summary)
        if row is None:
            self.score.setText("ViSIL: not computed")
        elif row.text != summary.text:
            self.score.setText(f"ViSIL {row.visil:.2f} nats · {row.tokens} tokens — for the text before it was edited")
        else:
            self.score.setText(f"<b>ViSIL {row.visil:.2f}</b> nats · {row.tokens} tokens")

    def set_thumbnail(self, frame: int, image: QImage) -> None:
        button = self.thumbs.get(frame)
        if button is not None:
            button.setIcon(QIcon(QPixmap.fromImage(image)))
            button.setIconSize(image.size())
            self.loaded.add(frame)


class WrappingLabel(QLabel):
    """A word-wrapped label that asks for the height its text needs at its width (layouts
    in a dock otherwise give it one line and cut the rest off)."""

    def __init__(self, text: str = "") -> None:
        super().__init__(text)
        self.setWordWrap(True)
        self.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Minimum)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def setText(self, text: str) -> None:
        super().setText(text)
        self._fit()

    def _fit(self) -> None:
        self.setMinimumHeight(max(0, self.heightForWidth(self.width())))


def _spacer() -> QWidget:
    spacer = QWidget()
    spacer.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Preferred)
    return spacer


def _placeholder(analysis: Analysis) -> QPixmap:
    info = analysis.video
    pixmap = QPixmap(max(2, round(THUMB_HEIGHT * info.width / max(1, info.height))), THUMB_HEIGHT)
    pixmap.fill(QColor(60, 63, 67))
    return pixmap


EXPORT_ERRORS = (OSError, ValueError, VideoReviewError)


def export_problem(exc: Exception) -> str:
    return getattr(exc, "strerror", None) or str(exc)


class _Export(QThread):
    """One export on a thread of its own; ``done`` (path, warnings, problem) arrives in
    the GUI thread, ``problem`` "" when it was written."""

    done = Signal(str, list, str)

    def __init__(self, write, path: str) -> None:
        super().__init__()
        self.write, self.path = write, path

    def run(self) -> None:
        try:
            warnings = self.write() or []
        except EXPORT_ERRORS as exc:
            self.done.emit(self.path, [], export_problem(exc))
            return
        self.done.emit(self.path, list(warnings), "")


# -- the reference description ----------------------------------------------------------------
class ReferenceDialog(QDialog):
    """Type the reference description or load it from a .txt file; empty: the default."""

    def __init__(self, reference: Reference | None, default: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Reference description")
        self.loaded: Reference | None = reference if reference and reference.origin.startswith("file ") else None
        self.edit = QPlainTextEdit(reference.text if reference else "")
        self.edit.setPlaceholderText(f"A detailed description of the video. Empty: {default}.")
        self.problem = QLabel()
        self.problem.setStyleSheet("color: #d04040;")
        load = QPushButton("Load .txt…")
        load.clicked.connect(self._load)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.addButton(load, QDialogButtonBox.ActionRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("ViSIL measures what a summary loses of this description's keywords."))
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.resize(560, 360)

    def _load(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Load a reference description", "", "Text (*.txt);;All files (*)")
        if path:
            self.load_file(path)

    def load_file(self, path: str) -> bool:
        try:
            self.loaded = read_reference(path)
        except VideoReviewError as exc:
            self.problem.setText(str(exc))
            return False
        self.problem.clear()
        self.edit.setPlainText(self.loaded.text)
        return True

    def reference(self) -> Reference | None:
        text = self.edit.toPlainText().strip()
        if not text:
            return None
        if self.loaded is not None and text == self.loaded.text:
            return self.loaded
        return Reference(text, "typed")


# -- the panel ----------------------------------------------------------------------------------
class SummaryPanel(QWidget):
    editRequested = Signal(str, object)  # undo text, change: Analysis -> Analysis
    seekRequested = Signal(float)
    message = Signal(str)  # for the status bar
    problem = Signal(str)  # an export that failed: one line naming the file
    pdfExported = Signal(str, bool)  # path, whether it was written

    def __init__(self) -> None:
        super().__init__()
        self.document: VideoDocument | None = None
        self.columns: list[SummaryColumn] = []
        self.comparisons: dict[str, Comparison] = {}  # video path -> the last comparison
        self.references: dict[str, Reference] = {}  # video path -> the reviewer's reference
        self.report_choice: dict[str, int] = {}  # video path -> summary index for the PDF
        self.loader: ThumbnailLoader | None = None
        self.reveal_exports = True  # tests turn off opening the export's folder
        self.job = ModelJob(self)
        self.job.progress.connect(self._on_progress)
        self.job.finished.connect(self._on_job_finished)
        self.job.failed.connect(self._on_job_failed)
        self.job.cancelled.connect(self._on_job_cancelled)
        self._shown_structure: tuple = ()
        self._pdf_export: _Export | None = None  # the PDF report being written
        self._report_group = QButtonGroup(self)
        self._report_group.idClicked.connect(self._on_report_picked)

        self._make_controls()
        splitter = QSplitter(Qt.Horizontal)
        splitter.addWidget(self._columns_area())
        splitter.addWidget(self._results_area())
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
        self.writer = ModelChoice("builtin", WRITER_SETTING, "A VLM model folder to write summaries with",
                                  "summaries")
        self.writer.setToolTip("Who writes the text: builtin (from the analysis) or a VLM model folder "
                               "(ViSIL's summary prompt, in the background)")
        self.scorer = ModelChoice("builtin (approximate)", SCORER_SETTING, "A VLM model folder to score with",
                                  "scoring")
        self.scorer.setToolTip("The scorer: builtin (no language model, approximate) or a VLM model folder")
        self.scorer.chosen.connect(lambda _: self._show_reference())
        self.reference_button = QPushButton("Reference…")
        self.reference_button.setToolTip("The detailed description summaries are measured against")
        self.reference_button.clicked.connect(self._edit_reference)
        self.compute_button = QPushButton("Compute ViSIL")
        self.compute_button.clicked.connect(self.compute_visil)
        self.export_pdf_button = QPushButton("PDF…")
        self.export_pdf_button.setToolTip("A report: the summary marked 'in report' and the last ViSIL comparison")
        self.export_pdf_button.clicked.connect(lambda: self._ask_and_export("pdf"))
        self.export_subtitles_button = QPushButton("Subtitles")
        self.export_subtitles_button.setToolTip("SRT or WebVTT (by the file's suffix) of the frame captions or "
                                                "of the boundary captions")
        menu = QMenu(self.export_subtitles_button)
        self.subtitle_actions = {
            "captions": menu.addAction("Frame captions…", lambda: self._ask_and_export("subtitles", "captions")),
            "boundaries": menu.addAction("Boundary captions…",
                                         lambda: self._ask_and_export("subtitles", "boundaries")),
        }
        self.export_subtitles_button.setMenu(menu)
        self.export_otio_button = QPushButton("OTIO markers…")
        self.export_otio_button.setToolTip("OpenTimelineIO markers for editors: boundaries and keyframes")
        self.export_otio_button.clicked.connect(lambda: self._ask_and_export("otio"))

    def _toolbar(self) -> QToolBar:
        """Build | score | export, in one row across the panel (what does not fit goes
        under the bar's » button, so the panel never holds the window wider)."""
        bar = QToolBar()
        for widget in (self.build_button, self.extra, QLabel(" by "), self.writer, None, QLabel("Scorer "),
                       self.scorer, self.reference_button,
                       self.compute_button, _spacer(), QLabel("Export: "), self.export_pdf_button,
                       self.export_subtitles_button, self.export_otio_button):
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

    def _results_area(self) -> QScrollArea:
        self.reference_label = WrappingLabel()
        self.status = WrappingLabel()
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.progress.setFixedWidth(140)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.job.cancel)
        self.result_title = WrappingLabel()
        self.result_title.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.table = QTableWidget(0, 5)
        self.table.setHorizontalHeaderLabels(["Summary", "ViSIL", "Tokens", "Pareto", "Best for"])
        self.table.horizontalHeaderItem(1).setToolTip("Information lost reading the summary instead of watching "
                                                      "the video, in nats: lower is better")
        self.table.horizontalHeaderItem(3).setToolTip("✓: no other summary is both cheaper and loses less")
        self.table.horizontalHeaderItem(4).setToolTip("The alphas for which it has the lowest ViSIL + α · tokens")
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.NoSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeToContents)
        header.setSectionResizeMode(4, QHeaderView.Stretch)
        self.plot = ParetoPlot()
        running = QHBoxLayout()
        running.addWidget(self.status, 1)
        running.addWidget(self.progress)
        running.addWidget(self.cancel_button)
        results = QHBoxLayout()
        results.addWidget(self.table, 3)
        results.addWidget(self.plot, 2)
        area = QWidget()
        layout = QVBoxLayout(area)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.reference_label)
        layout.addLayout(running)
        layout.addWidget(self.result_title)
        layout.addLayout(results, 1)
        # Scrolls rather than hold the dock (and so the window) taller than the reviewer wants.
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.NoFrame)
        scroll.setWidget(area)
        return scroll

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
        self._show_comparison(comparison)
        self._show_reference()
        self._update_enabled()

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

    def _update_enabled(self) -> None:
        ready = self.analysis is not None and not self.document.busy
        running = self.job.running
        for widget in (self.build_button, self.extra, self.writer):
            widget.setEnabled(ready and not running)
        self.compute_button.setEnabled(ready and bool(self.analysis.summaries) and not running)
        self.compute_button.setToolTip("" if self.analysis is None or self.analysis.summaries
                                       else "Build the summaries first")
        for button in (self.export_subtitles_button, self.export_otio_button):
            button.setEnabled(ready)
        self.export_pdf_button.setEnabled(ready and self._pdf_export is None)
        self.progress.setVisible(running)
        self.cancel_button.setVisible(running)

    # -- building and editing -----------------------------------------------------------------
    def build(self) -> bool:
        """Build the summaries: at once with the builtin writer, in the background with a VLM."""
        if self.analysis is None or self.document.busy or self.job.running:
            return False
        extra = self.extra.value()
        if self.writer.spec() == BUILTIN:
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
            self._say(f"The summaries were written but not kept: {problem}", error=True)
            return
        self._say(f"Wrote {len(summaries)} summaries with {summaries[0].engine if summaries else 'the model'}.")
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
        return ("the builtin frame captions joined" if self.scorer_spec() == BUILTIN
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
            self.reference_label.setText(f"Reference: default ({self._default_reference()})")
        else:
            words = len(reference.text.split())
            self.reference_label.setText(f"Reference: {reference.origin} ({words} words)")

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
            self._say("Build the summaries first: there is nothing to score yet.", error=True)
            return False
        request = scoring_request(analysis, self.path, analysis.summaries, self.scorer_spec(),
                                  self.references.get(self.path))
        self._start(request, f"Scoring {len(analysis.summaries)} summaries with {self.scorer.currentText()}…")
        return True

    def _start(self, request, message: str) -> None:
        self.job.start(request)
        self.progress.setValue(0)
        self._say(message)
        self._update_enabled()

    def _on_progress(self, fraction: float, message: str) -> None:
        self.progress.setValue(round(max(0.0, min(1.0, fraction)) * 1000))
        self._say(f"{self._job_name()}: {message}")

    def _job_name(self) -> str:
        request = self.job.request
        return "ViSIL" if request is None or request.what == "ViSIL scoring" else "Summaries"

    def _on_job_finished(self, result) -> None:
        request = self.job.request
        if request.what == "ViSIL scoring":
            self.comparisons[request.video_path] = result
            self._say(f"ViSIL computed for {len(result.rows)} summaries.")
            self.message.emit(f"{os.path.basename(request.video_path)}: ViSIL computed")
        else:
            self._on_written(result, request.context)
        self._on_changed()

    def _on_job_failed(self, message: str) -> None:
        self._say(f"{self._job_name()} failed: {message}", error=True)
        self._update_enabled()

    def _on_job_cancelled(self) -> None:
        self._say(f"{self._job_name()} cancelled: nothing was changed.")
        self._update_enabled()

    def _say(self, text: str, error: bool = False) -> None:
        """The panel's one status line (failures in red)."""
        self.status.setText(text)
        self.status.setToolTip(text)
        self.status.setStyleSheet("color: #d04040; font-weight: bold;" if error else "")

    def _show_comparison(self, comparison: Comparison | None) -> None:
        self.table.setRowCount(0)
        if comparison is None:
            self.result_title.setText("No ViSIL comparison yet.")
            self.result_title.setToolTip("")
            self.plot.set_points([], [])
            return
        note = APPROXIMATE_NOTE if comparison.rows and comparison.rows[0].approximate else EXACT_NOTE
        self.result_title.setText(f"<b>ViSIL under {comparison.scorer}</b> {note}; reference: "
                                  f"{comparison.reference.origin}, {len(comparison.keywords)} keywords")
        self.result_title.setToolTip(f"Keywords: {', '.join(comparison.keywords)}")
        chosen: dict[int, list[float]] = {}
        swept = [alpha for alpha, _ in comparison.choices]
        for alpha, index in comparison.choices:
            chosen.setdefault(index, []).append(alpha)
        self.table.setRowCount(len(comparison.rows))
        for i, row in enumerate(comparison.rows):
            cells = (label_title(row.format), f"{row.visil:.2f}", str(row.tokens),
                     "✓" if i in comparison.frontier else "", alpha_span(chosen.get(i, []), swept))
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c in (1, 2):
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                elif c == 3:
                    item.setTextAlignment(Qt.AlignCenter)
                self.table.setItem(i, c, item)
        self.plot.set_points([PlotPoint(short_label(r.format), r.tokens, r.visil) for r in comparison.rows],
                             list(comparison.frontier))

    # -- exports ------------------------------------------------------------------------------------
    def default_export_path(self, suffix: str) -> str:
        video = Path(self.path)
        return str(video.with_name(video.stem + suffix))

    def ask_save_path(self, title: str, default: str, filters: str) -> str:
        """The file to write ('' when the reviewer cancels); tests replace this."""
        path, _ = QFileDialog.getSaveFileName(self, title, default, filters)
        return path

    def _ask_and_export(self, what: str, which: str = "captions") -> None:
        if self.analysis is None:
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
        from ..summary.export import write_pdf

        if self._pdf_export is not None:
            return False
        if Path(path).suffix.lower() != ".pdf" and not Path(path).is_dir():
            path += ".pdf"
        analysis, video, summary = self.analysis, self.path, self.report_summary()
        comparison = self.comparisons.get(video)
        task = _Export(lambda: write_pdf(analysis, path, video_path=video, summary=summary, comparison=comparison),
                       path)
        task.done.connect(self._on_pdf_exported)
        self._pdf_export = task
        self._say(f"Writing {path}…")
        self._update_enabled()
        task.start()
        return True

    def _on_pdf_exported(self, path: str, warnings: list, problem: str) -> None:
        self._pdf_export.wait()
        self._pdf_export.deleteLater()
        self._pdf_export = None
        if problem:
            self._export_failed(path, problem)
        else:
            self._exported(path, warnings)
        self._update_enabled()
        self.pdfExported.emit(path, not problem)

    def export_subtitles(self, path: str, which: str = "captions") -> bool:
        """SRT, or WebVTT for a .vtt path, of the frame captions or (``which`` "boundaries")
        of the boundary captions."""
        from ..summary.export import boundary_cues, caption_cues, write_srt, write_vtt

        if Path(path).suffix.lower() not in (".srt", ".vtt"):
            path += ".srt"
        cues = caption_cues(self.analysis) if which == "captions" else boundary_cues(self.analysis)
        write = write_vtt if path.lower().endswith(".vtt") else write_srt
        return self._export(path, lambda p: write(cues, p))

    def export_otio(self, path: str) -> bool:
        from ..summary.export import write_otio

        if Path(path).suffix.lower() != ".otio":
            path += ".otio"
        analysis = self.analysis
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
        self._say(done)
        self.message.emit(done)
        self.reveal(path)
        return True

    def _export_failed(self, path: str, problem: str) -> bool:
        message = f"{path}: cannot be written ({problem})"
        self._say(message, error=True)
        self.problem.emit(message)
        return False

    def reveal(self, path: str) -> None:
        """Open the folder the export went to (not in tests nor without a display)."""
        if not self.reveal_exports or os.environ.get("QT_QPA_PLATFORM") == "offscreen":
            return
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(Path(path).parent)))

    def shutdown(self) -> None:
        """At quit: stop a model job that is still running, finish a PDF being written, and
        stop the thumbnail thread."""
        self.job.shutdown()
        if self._pdf_export is not None:
            self._pdf_export.wait()
        if self.loader is not None:
            self.loader.close()
            self.loader = None
