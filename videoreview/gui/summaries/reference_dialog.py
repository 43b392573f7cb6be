"""The reference description a ViSIL comparison measures summaries against: typed, or
loaded from a .txt file; empty means the default (the scorer's own description, or the
builtin captions joined)."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ...errors import VideoReviewError
from ...summary.compare import Reference, read_reference


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
