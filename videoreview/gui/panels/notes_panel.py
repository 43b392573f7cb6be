"""The Notes panel: the reviewer's own notes on the video shown.

N (the window's action) opens the composer at the playhead (over the range marked with I
and O, if any); typing and Enter adds the note. The list filters by status, tag and text;
a click seeks to the note, Enter or a double-click edits its text, the checkbox resolves
it, Delete removes it. "Draw" turns the paused frame into a canvas (pen, arrow, rectangle,
ellipse, text); "Done" puts the drawing on the selected note at that frame, or on a new one.
Export… writes the notes in the format the file's suffix names (notes/files.py); Import…
merges a file's notes in. Every change is one undoable edit (``editRequested``), saved as
it is made.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QIcon, QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QColorDialog,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...errors import VideoReviewError
from ...notes import changes
from ...notes.files import export_notes, import_notes
from ...records import NOTE_TAGS, Analysis, Note
from ...smpte import span
from ..colors import tag_icon
from ..video.drawing_layer import TOOL_NAMES, TOOLS, DrawingLayer

STATUS_FILTERS = ("All", "Open", "Resolved")
EXPORT_FILTERS = ("DaVinci Resolve markers (*.edl)", "Final Cut Pro 7 / Premiere XML (*.xml)", "FCPXML (*.fcpxml)",
                  "OpenTimelineIO (*.otio)", "CSV (*.csv)", "SubRip subtitles (*.srt)", "WebVTT subtitles (*.vtt)",
                  "videoreview notes (*.json)")
IMPORT_FILTER = "Notes (*.json *.csv *.edl *.otio);;All files (*)"


def _local_shortcut(keys: QKeySequence, widget: QWidget, slot) -> None:
    """A key that acts only while ``widget`` has the focus: the window's own actions (Esc
    cancels the analysis, Delete removes a boundary) keep those keys everywhere else."""
    shortcut = QShortcut(keys, widget)
    shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
    shortcut.activated.connect(slot)


class NotesPanel(QWidget):
    editRequested = Signal(str, object)  # undo text, change (Analysis -> Analysis)
    seekRequested = Signal(float)
    noteSelected = Signal(str)  # note id
    message = Signal(str)  # a line for the status bar
    problem = Signal(str)  # what the reviewer must read: a file that could not be read, a conflict

    def __init__(self, drawing: DrawingLayer, frame_now, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.drawing, self.frame_now = drawing, frame_now  # frame_now() -> the frame on screen
        self.analysis: Analysis | None = None
        self._compose_at: tuple[int, int | None] | None = None
        self._filling = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)

        self.composer_label = QLabel()
        self.composer = QLineEdit(placeholderText="Type the note and press Enter (Esc: cancel)")
        self.composer.returnPressed.connect(self._add_composed)
        _local_shortcut(QKeySequence(Qt.Key.Key_Escape), self.composer, self.cancel_compose)
        self.new_tag = QComboBox(toolTip="Tag (marker colour) of new notes")
        for tag in NOTE_TAGS:
            self.new_tag.addItem(tag_icon(tag), tag, tag)
        compose_row = QHBoxLayout()
        compose_row.addWidget(self.composer, 1)
        compose_row.addWidget(self.new_tag)
        layout.addWidget(self.composer_label)
        layout.addLayout(compose_row)

        filters = QHBoxLayout()
        self.status_filter = QComboBox(toolTip="Show notes by status")
        self.status_filter.addItems(STATUS_FILTERS)
        self.tag_filter = QComboBox(toolTip="Show notes of one tag")
        self.tag_filter.addItem("All tags", None)
        for tag in NOTE_TAGS:
            self.tag_filter.addItem(tag_icon(tag), tag, tag)
        self.search = QLineEdit(placeholderText="Search notes", clearButtonEnabled=True)
        for widget in (self.status_filter, self.tag_filter):
            widget.currentIndexChanged.connect(self._fill)
        self.search.textChanged.connect(self._fill)
        filters.addWidget(self.status_filter)
        filters.addWidget(self.tag_filter)
        filters.addWidget(self.search, 1)
        layout.addLayout(filters)

        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Time", "Who", "Note"])
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.itemClicked.connect(self._clicked)
        self.tree.itemActivated.connect(lambda item, _column: self.edit_text(item.data(0, Qt.ItemDataRole.UserRole)))
        self.tree.itemChanged.connect(self._checked)
        _local_shortcut(QKeySequence(QKeySequence.StandardKey.Delete), self.tree, self.delete_selected)
        layout.addWidget(self.tree, 1)

        self._make_drawing_row(layout)
        self.cancel_compose()

    def _make_drawing_row(self, layout: QVBoxLayout) -> None:
        row = QHBoxLayout()
        self.draw_button = QPushButton("Draw", toolTip="Draw on the paused frame (D)", checkable=True)
        self.draw_button.toggled.connect(self._drawing_toggled)
        row.addWidget(self.draw_button)
        self.tool_buttons: dict[str, QToolButton] = {}
        for tool in TOOLS:
            button = QToolButton(text=TOOL_NAMES[tool], checkable=True, autoExclusive=True)
            button.clicked.connect(lambda _=False, t=tool: setattr(self.drawing, "tool", t))
            row.addWidget(button)
            self.tool_buttons[tool] = button
        self.tool_buttons[self.drawing.tool].setChecked(True)
        self.colour_button = QToolButton(toolTip="Colour of the next shapes")
        self.colour_button.clicked.connect(self._pick_colour)
        self._show_colour()
        self.undo_shape = QToolButton(text="Undo", toolTip="Take the last shape back")
        self.undo_shape.clicked.connect(self.drawing.undo)
        row.addWidget(self.colour_button)
        row.addWidget(self.undo_shape)
        row.addStretch(1)
        self.export_button = QPushButton("Export…", toolTip="The notes for an editor (EDL, XML, FCPXML, OTIO), "
                                                            "a spreadsheet (CSV), subtitles or another reviewer (JSON)")
        self.export_button.clicked.connect(self.ask_export)
        self.import_button = QPushButton("Import…", toolTip="Merge notes from a JSON, CSV, EDL or OTIO file "
                                                            "(by note id: nothing is duplicated)")
        self.import_button.clicked.connect(self.ask_import)
        row.addWidget(self.export_button)
        row.addWidget(self.import_button)
        layout.addLayout(row)
        self._show_drawing_tools(False)

    # -- the video's notes ----------------------------------------------------------------
    def set_analysis(self, analysis: Analysis | None) -> None:
        self.analysis = analysis
        if analysis is None:
            self.cancel_compose()
            self.draw_button.setChecked(False)
        self._fill()

    def shown_notes(self) -> list[Note]:
        """The notes the list shows now (after the filters), in time order."""
        if self.analysis is None:
            return []
        status = self.status_filter.currentText().lower()
        tag = self.tag_filter.currentData()
        words = self.search.text().casefold().split()
        return [n for n in self.analysis.notes
                if status in ("all", n.status) and tag in (None, n.tag)
                and all(w in f"{n.text} {n.author}".casefold() for w in words)]

    def _fill(self, *_) -> None:
        selected = self.selected_id()
        self._filling = True  # setting the checkboxes is not the reviewer resolving notes
        self.tree.clear()
        fps = self.analysis.video.fps if self.analysis else 25.0
        for note in self.shown_notes():
            when = span(note.frame, note.last_frame, fps)
            text = note.text + ("  ✎" if note.drawing else "")
            item = QTreeWidgetItem([when, note.author, text])
            item.setIcon(0, tag_icon(note.tag))
            item.setData(0, Qt.ItemDataRole.UserRole, note.id)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(0, Qt.CheckState.Checked if note.status == "resolved" else Qt.CheckState.Unchecked)
            item.setToolTip(2, note.text)
            if note.status == "resolved":
                item.setForeground(2, QColor("#8a8f98"))
            self.tree.addTopLevelItem(item)
            if note.id == selected:
                self.tree.setCurrentItem(item)
        self._filling = False
        for column in (0, 1):
            self.tree.resizeColumnToContents(column)

    def selected_id(self) -> str | None:
        item = self.tree.currentItem()
        return item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None

    def select(self, note_id: str) -> None:
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item.data(0, Qt.ItemDataRole.UserRole) == note_id:
                self.tree.setCurrentItem(item)
                return

    def _note(self, note_id: str) -> Note | None:
        return next((n for n in self.analysis.notes if n.id == note_id), None) if self.analysis else None

    def _clicked(self, item: QTreeWidgetItem, column: int) -> None:
        note = self._note(item.data(0, Qt.ItemDataRole.UserRole))
        if note is not None:
            self.seekRequested.emit(note.time)
            self.noteSelected.emit(note.id)

    def _checked(self, item: QTreeWidgetItem, column: int) -> None:
        if self._filling or column != 0:
            return
        note_id = item.data(0, Qt.ItemDataRole.UserRole)
        status = "resolved" if item.checkState(0) == Qt.CheckState.Checked else "open"
        note = self._note(note_id)
        if note is not None and note.status != status:
            verb = "Resolve note" if status == "resolved" else "Reopen note"
            self._edit_after_signal(verb, lambda a: changes.change_note(a, note_id, status=status))

    def _edit_after_signal(self, text: str, change) -> None:
        """An edit asked for inside one of the list's signals: the edit refills the list,
        which must not delete the item whose signal is still running."""
        QTimer.singleShot(0, lambda: self.editRequested.emit(text, change))

    def edit_text(self, note_id: str | None) -> None:
        note = self._note(note_id) if note_id else None
        if note is None:
            return
        text, ok = QInputDialog.getMultiLineText(self, "Edit note", "Note", note.text)
        if ok:
            self._edit_after_signal("Edit note", lambda a: changes.change_note(a, note_id, text=text))

    def delete_selected(self) -> None:
        note_id = self.selected_id()
        if note_id is not None:
            self.editRequested.emit("Delete note", lambda a: changes.delete_note(a, note_id))

    # -- adding ------------------------------------------------------------------------------
    def compose(self, frame: int, end_frame: int | None = None) -> None:
        """Open the composer for a new note at ``frame`` (to ``end_frame``) and take the keyboard."""
        if self.analysis is None:
            return
        fps = self.analysis.video.fps
        where = span(frame, end_frame if end_frame is not None else frame, fps)
        self._compose_at = (frame, end_frame)
        self.composer_label.setText(f"New note at {where}")
        for widget in (self.composer_label, self.composer, self.new_tag):
            widget.show()
        self.composer.setFocus()

    def cancel_compose(self) -> None:
        self._compose_at = None
        self.composer.clear()
        for widget in (self.composer_label, self.composer, self.new_tag):
            widget.hide()

    def _add_composed(self) -> None:
        if self._compose_at is None or not self.composer.text().strip():
            return
        (frame, end), text, tag = self._compose_at, self.composer.text(), self.new_tag.currentData()
        self.editRequested.emit("Add note", lambda a: changes.add_note(a, changes.new_note(a, frame, text, end, tag)))
        self.cancel_compose()

    # -- files -------------------------------------------------------------------------------
    def ask_save_path(self) -> str:
        """Where to export ('' when the reviewer cancels); tests replace this."""
        video = self.analysis.video.path
        path, chosen = QFileDialog.getSaveFileName(self, "Export notes", video.rsplit(".", 1)[0] + " notes.edl",
                                                   ";;".join(EXPORT_FILTERS))
        if path and "." not in path.rsplit("/", 1)[-1]:
            path += chosen[chosen.index("*") + 1:-1]  # no suffix typed: the chosen format's
        return path

    def ask_open_path(self) -> str:
        path, _ = QFileDialog.getOpenFileName(self, "Import notes", "", IMPORT_FILTER)
        return path

    def ask_export(self) -> None:
        if self.analysis is None:
            return
        path = self.ask_save_path()
        if not path:
            return
        try:
            export_notes(self.analysis, path)
        except OSError as exc:
            self.problem.emit(f"{path}: {exc.strerror or exc}")
            return
        except VideoReviewError as exc:
            self.problem.emit(str(exc))
            return
        self.message.emit(f"{len(self.analysis.notes)} notes written to {path}")

    def ask_import(self) -> None:
        if self.analysis is None:
            return
        path = self.ask_open_path()
        if path:
            self.import_file(path)

    def import_file(self, path: str) -> None:
        """Merge the notes of ``path`` in, as one undoable edit; say what it did."""
        try:
            merged, report, messages = import_notes(self.analysis, path)
        except (OSError, VideoReviewError) as exc:
            self.problem.emit(str(exc))
            return
        if merged != self.analysis:
            self.editRequested.emit(f"Import notes from {path.rsplit('/', 1)[-1]}", lambda a: merged)
        summary = f"{path}: {report.summary()}"
        if messages:
            self.problem.emit("\n".join([summary, *messages]))
        else:
            self.message.emit(summary)

    # -- drawing -----------------------------------------------------------------------------
    def start_drawing(self) -> None:
        self.draw_button.setChecked(True)

    def _drawing_toggled(self, on: bool) -> None:
        if on and self.analysis is None:
            self.draw_button.setChecked(False)
            return
        self._show_drawing_tools(on)
        if on:
            note = self._note_here()
            self.drawing.start(note.drawing if note else ())
            self.draw_button.setText("Done")
            self.message.emit("Drawing on this frame: drag on the video; Done puts it on the note")
            return
        self.draw_button.setText("Draw")
        if not self.drawing.active:
            return
        shapes = self.drawing.finish()
        note = self._note_here()
        if note is not None:
            if shapes != note.drawing:
                self.editRequested.emit("Drawing", lambda a: changes.change_note(a, note.id, drawing=shapes))
        elif shapes:
            frame, tag = self.frame_now(), self.new_tag.currentData()
            self.editRequested.emit("Add drawing", lambda a: changes.add_note(
                a, changes.new_note(a, frame, "", tag=tag, drawing=shapes)))

    def _note_here(self) -> Note | None:
        """The note a drawing belongs to: the selected one if it is at the frame shown,
        else the first note at that frame."""
        frame = self.frame_now()
        selected = self._note(self.selected_id()) if self.selected_id() else None
        if selected is not None and selected.frame == frame:
            return selected
        return next((n for n in self.analysis.notes if n.frame == frame), None) if self.analysis else None

    def _show_drawing_tools(self, on: bool) -> None:
        for widget in (*self.tool_buttons.values(), self.colour_button, self.undo_shape):
            widget.setVisible(on)

    def _pick_colour(self) -> None:
        colour = QColorDialog.getColor(QColor(self.drawing.color), self, "Colour of the shapes")
        if colour.isValid():
            self.drawing.color = colour.name()
            self._show_colour()

    def _show_colour(self) -> None:
        pixmap = QPixmap(14, 14)
        pixmap.fill(QColor(self.drawing.color))
        self.colour_button.setIcon(QIcon(pixmap))
