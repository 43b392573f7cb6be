"""File > Export for annotation tools… and File > Import corrections…: the video shown, in an
annotation tool's or a data set's format (annotations/: the one table of formats, FORMATS),
and corrections made in such a tool brought back.

Export asks for a format (what it carries and what it leaves out are shown beside it), a
folder and, for COCO, whether to write the sampled frames' pictures. Writing XML or JSON
takes a moment and runs in place; writing pictures decodes the video, so it runs on a
thread of its own (work/background.py's ThreadTask). Import reads the file into reviewer
edits, checks that all of them apply, then makes each one undo step through the window's
own edit path (review.py), its text in the Undo menu. A file that cannot be read, or whose
edits do not apply, is one line in the notice bar and changes nothing. Problems and
warnings are always one line: the notice bar shows one."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..annotations import FORMATS, Options, export_annotations, read_annotations
from ..errors import VideoReviewError
from .work.background import ThreadTask

ERRORS = (VideoReviewError, OSError, ValueError)  # what a bad file or a full disk raises
OPEN_FILTER = "Annotations (*.xml *.json *.txt *.ini);;All files (*)"


def takes_frames(name: str) -> bool:
    """Whether format ``name`` writes the sampled frames' pictures when asked (COCO's images/)."""
    return name.startswith("coco")


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def problem_text(where: str, exc: Exception) -> str:
    """One line naming the file: an AnnotationError says it itself, an OSError its reason."""
    if getattr(exc, "path", None):
        return one_line(str(exc))
    reason = getattr(exc, "strerror", None) or str(exc).strip("'\"") or type(exc).__name__
    return one_line(f"{getattr(exc, 'filename', None) or where}: {reason}")


def default_folder(video: str, name: str) -> str:
    """Beside the video, named after it and the format: ``clip cvat``."""
    path = Path(video)
    return str(path.with_name(f"{path.stem} {name}"))


class ExportDialog(QDialog):
    """The format (with what it carries and leaves out), the folder, and the frames' pictures
    for COCO. ``choice()`` is what was chosen."""

    def __init__(self, video: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export for annotation tools")
        self.video = video
        self.format = QComboBox()
        self.format.addItems(list(FORMATS))
        self.carries = QLabel(wordWrap=True)
        self.leaves_out = QLabel(wordWrap=True)
        self.folder = QLineEdit()
        choose = QPushButton("Choose…")
        choose.clicked.connect(self._choose_folder)
        self.frames = QCheckBox("Write the sampled frames' pictures too (images/)")
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.folder, 1)
        folder_row.addWidget(choose)
        form = QFormLayout()
        form.addRow("Format", self.format)
        form.addRow("Carries", self.carries)
        form.addRow("Leaves out", self.leaves_out)
        form.addRow("Folder", folder_row)
        form.addRow("", self.frames)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        self.format.currentTextChanged.connect(self._show_format)
        self.folder.textChanged.connect(lambda text: self.buttons.button(QDialogButtonBox.Ok).setEnabled(
            bool(text.strip())))
        self._shown_default = ""
        self._show_format(self.format.currentText())
        self.resize(620, 300)

    def _show_format(self, name: str) -> None:
        chosen = FORMATS.get(name)
        if chosen is None:
            return
        self.carries.setText(chosen.carries)
        self.leaves_out.setText(chosen.leaves_out)
        self.frames.setEnabled(takes_frames(name))
        if not takes_frames(name):
            self.frames.setChecked(False)
        if self.folder.text() in ("", self._shown_default):  # the default follows the format; a typed one stays
            self._shown_default = default_folder(self.video, name)
            self.folder.setText(self._shown_default)

    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Export into the folder", self.folder.text())
        if folder:
            self.folder.setText(folder)

    def choice(self) -> tuple[str, str, bool]:
        """(format, folder, whether to write the frames' pictures)."""
        return self.format.currentText(), self.folder.text().strip(), self.frames.isChecked()


class AnnotationFiles(QObject):
    """A child of the window, made on the first use of either command (``of``)."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.dialog: ExportDialog | None = None
        self.running: ThreadTask | None = None  # an export writing pictures
        self.running_folder = ""
        window.installEventFilter(self)  # at close: finish the pictures being written

    @classmethod
    def of(cls, window) -> AnnotationFiles:
        found = window.findChild(cls)
        return found if found is not None else cls(window)

    def _document(self, command: str):
        """The video shown, once analysed and not being analysed again; else None, and why in the notice bar."""
        document = self.window.current
        if document is None or document.analysis is None or document.busy:
            self.window.notice(f"{command}: open a video and let its analysis finish first")
            return None
        return document

    # -- export -------------------------------------------------------------------------------
    def ask_export(self) -> ExportDialog | None:
        """The export dialog, opened (not exec: the window keeps running); OK exports."""
        document = self._document("Export for annotation tools")
        if document is None:
            return None
        dialog = ExportDialog(document.path, self.window)
        dialog.accepted.connect(lambda: self.export(*dialog.choice()))
        dialog.finished.connect(dialog.deleteLater)
        self.dialog = dialog
        dialog.open()
        return dialog

    def export(self, name: str, folder: str, frames: bool = False) -> bool:
        """Write the video shown in format ``name`` into ``folder``. With ``frames`` the
        pictures are decoded on a thread of its own (False while another is being written).
        Done: said in the status bar; warnings and problems: one line in the notice bar."""
        document = self._document("Export for annotation tools")
        if document is None:
            return False
        analysis, options = document.analysis, Options(document.path, frames)
        if frames:
            if self.running is not None:
                self.window.notice(f"{folder}: another export is writing its pictures; try again when it is done")
                return False
            task = ThreadTask(lambda: export_annotations(analysis, name, folder, options), ERRORS,
                              lambda exc: problem_text(folder, exc))
            task.done.connect(self._on_written)
            self.running, self.running_folder = task, folder
            self.window.say(f"Writing {folder}…")
            task.start()
            return True
        try:
            warnings = export_annotations(analysis, name, folder, options)
        except ERRORS as exc:
            self.window.notice(problem_text(folder, exc))
            return False
        return self._written(folder, name, warnings)

    @Slot(object, str)
    def _on_written(self, warnings, problem: str) -> None:
        folder = self.running_folder
        self.running.wait()
        self.running.deleteLater()
        self.running = None
        if problem:
            self.window.notice(problem)
        else:
            self._written(folder, "", warnings or [])

    def _written(self, folder: str, name: str, warnings: list[str]) -> bool:
        done = f"Wrote {folder}" + (f" ({name})" if name else "")
        if warnings:
            self.window.notice(one_line(f"{done}: " + "; ".join(warnings)))
        else:
            self.window.say(done)
        return True

    # -- import -------------------------------------------------------------------------------
    def ask_open_path(self) -> str:
        """The file to import ('' when the reviewer cancels); tests replace this."""
        start = str(Path(self.window.current.path).parent) if self.window.current else ""
        path, _ = QFileDialog.getOpenFileName(self.window, "Import corrections", start, OPEN_FILTER)
        return path

    def ask_import(self) -> list[str]:
        if self._document("Import corrections") is None:
            return []
        path = self.ask_open_path()
        return self.import_file(path) if path else []

    def import_file(self, path: str, name: str | None = None) -> list[str]:
        """Bring the corrections in the file at ``path`` (format ``name``, else guessed) into
        the video shown, each one undo step; the texts of those made. A file that cannot be
        read, or whose edits do not all apply, changes nothing."""
        document = self._document("Import corrections")
        if document is None:
            return []
        try:
            edits = read_annotations(document.analysis, path, name)
            after = document.analysis
            for edit in edits:  # all apply, or none is made
                after = edit.change(after)
        except (*ERRORS, KeyError) as exc:  # (KeyError: an edit of something the analysis lacks)
            self.window.notice(problem_text(path, exc))
            return []
        made = [edit.text for edit in edits if self.window.review.apply_edit(edit.text, edit.change)]
        self.window.say(f"{path}: {len(made)} correction{'s' if len(made) != 1 else ''} brought in"
                        + (" (Ctrl+Z undoes the last)" if made else ""))
        return made

    # -- closing ------------------------------------------------------------------------------
    def eventFilter(self, watched, event) -> bool:
        if watched is self.window and event.type() == QEvent.Close and self.running is not None:
            self.running.wait()  # a thread must not outlive the window that started it
        return False
