"""Analysis > Models…: the model catalog (sizes, licences, what is installed and the disk it
takes), downloads with progress and cancel, and the engine choices (engine_choices).

Downloads and removals run `videoreview models ...` in a child process (work/background.py's
CommandTask): the same code path as the command line, a window that never waits on the
network or on importing torch, and a cancel that is a kill (huggingface_hub leaves only
its temporary file, which the next pull starts again). Progress is the size of the
model's folder in the Hugging Face cache against the catalog's download size.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from ...models.catalog import ModelEntry, disk_use, installed_path, load_catalog, snapshot_dir
from ...paths import folder_size
from ..work.background import CommandTask
from .engine_choices import EngineChoices

COLUMNS = ("Model", "Tasks", "Licence", "Download", "On disk", "Memory")
POLL_MS = 500


def _gb(size: float | None) -> str:
    return "?" if size is None else f"{size / 1e9:.2f} GB"


def downloaded_bytes(entry: ModelEntry) -> int:
    """Bytes of a hub model in the cache so far, partial files included."""
    blobs = snapshot_dir(entry).parents[1] / "blobs"
    return folder_size(blobs) if blobs.is_dir() else 0


class ModelsDialog(QDialog):
    changed = Signal()  # a model installed or removed, or a choice saved

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Models")
        self.resize(900, 620)
        self.catalog = load_catalog()
        self._command: CommandTask | None = None  # the one running
        self._task: tuple[str, ModelEntry | None] | None = None  # (action, model)
        self._poll = QTimer(self, interval=POLL_MS, timeout=self._show_progress)

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.itemSelectionChanged.connect(self._on_selection)
        self.download_button = QPushButton("Download", clicked=self.download)
        self.remove_button = QPushButton("Remove", clicked=self.remove)
        self.add_button = QPushButton("Add folder…", clicked=self.add_folder)
        self.cancel_button = QPushButton("Cancel", clicked=self.cancel)
        self.progress = QProgressBar()
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextSelectableByMouse)
        buttons = QHBoxLayout()
        for widget in (self.download_button, self.remove_button, self.add_button, self.progress, self.cancel_button):
            buttons.addWidget(widget)

        self.engines = EngineChoices()
        self.engines.message.connect(self.status.setText)
        self.engines.changed.connect(self.changed)
        self.choices, self.device, self.memory = self.engines.choices, self.engines.device, self.engines.memory
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        layout.addWidget(self.engines)
        close = QDialogButtonBox(QDialogButtonBox.Close, rejected=self.reject)
        layout.addWidget(close)
        self.refresh()

    # -- what is shown ----------------------------------------------------------------------
    def refresh(self) -> None:
        selected = self.selected()
        self.table.blockSignals(True)  # the rows are refilled, the selection is the user's
        self.table.setRowCount(len(self.catalog))
        for row, entry in enumerate(self.catalog.values()):
            on_disk = disk_use(entry)
            memory = f"{entry.min_memory_gb:g} GB" if entry.min_memory_gb else ""
            cells = (entry.name, ", ".join(entry.tasks), entry.license,
                     "builtin" if entry.builtin else _gb(entry.size_bytes),
                     "not installed" if on_disk is None else _gb(on_disk), memory)
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.UserRole, entry.name)
                if entry.repo:
                    item.setToolTip(f"{entry.repo} at {entry.revision}")
                self.table.setItem(row, column, item)
            if selected is not None and entry.name == selected.name:
                self.table.selectRow(row)
        self.table.blockSignals(False)
        self.table.resizeColumnsToContents()
        self.engines.fill(self.catalog)
        self._update_buttons()

    def selected(self) -> ModelEntry | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        if not rows:
            return None
        return self.catalog.get(self.table.item(rows[0].row(), 0).data(Qt.UserRole))

    def select(self, name: str) -> None:
        for row in range(self.table.rowCount()):
            if self.table.item(row, 0).data(Qt.UserRole) == name:
                self.table.selectRow(row)

    def _update_buttons(self) -> None:
        entry, busy = self.selected(), self._command is not None
        hub = entry is not None and not entry.builtin
        installed = hub and installed_path(entry) is not None
        self.download_button.setEnabled(hub and not installed and not busy)
        self.remove_button.setEnabled(bool(installed) and not busy)
        self.add_button.setEnabled(not busy)
        self.cancel_button.setVisible(busy and self._task is not None and self._task[0] == "pull")
        self.progress.setVisible(busy)

    def _on_selection(self) -> None:
        """The licence is shown before anything is downloaded."""
        self._update_buttons()
        entry = self.selected()
        if entry is not None and not entry.builtin:
            size = f", {_gb(entry.size_bytes)} to download" if entry.size_bytes else ""
            self.status.setText(f"{entry.name}: {entry.repo}, licence {entry.license}{size}.")

    # -- actions -------------------------------------------------------------------------
    def download(self) -> None:
        entry = self.selected()
        if entry is not None:
            self.status.setText(f"Downloading {entry.name} ({entry.license})…")
            self._run(["pull", entry.name], entry, "pull")

    def remove(self) -> None:
        entry = self.selected()
        if entry is not None:
            self._run(["remove", entry.name], entry, "remove")

    def add_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a model folder copied by hand")
        if folder:
            self._run(["add", folder], None, "add")

    def cancel(self) -> None:
        if self._command is not None and self._task[0] == "pull":
            self._command.cancel()

    # -- the child process ----------------------------------------------------------------
    def _run(self, args: list[str], entry: ModelEntry | None, action: str) -> None:
        command = CommandTask("models", *args, parent=self)
        command.finished.connect(self._on_finished)
        command.failed.connect(self._on_failed)
        command.cancelled.connect(self._on_cancelled)
        self._command, self._task = command, (action, entry)
        self.progress.setRange(0, 100 if entry is not None and entry.size_bytes else 0)
        self.progress.setValue(0)
        command.start()
        if action == "pull":
            self._poll.start()
        self._update_buttons()

    def _show_progress(self) -> None:
        if self._task is None or self._task[1] is None or not self._task[1].size_bytes:
            return
        entry = self._task[1]
        done = downloaded_bytes(entry)
        self.progress.setValue(min(99, round(100 * done / entry.size_bytes)))
        self.progress.setFormat(f"{done / 1e6:.0f} of {entry.size_bytes / 1e6:.0f} MB")

    def _ended(self) -> tuple[str, ModelEntry | None]:
        """The command has ended: forget it; its (action, model)."""
        self._poll.stop()
        task = self._task
        self._command.deleteLater()
        self._command, self._task = None, None
        return task

    def _on_finished(self, out: str) -> None:
        action, entry = self._ended()
        self.status.setText(out.splitlines()[-1] if action != "pull" else f"{entry.name} is installed.")
        self.catalog = load_catalog()
        self.changed.emit()
        self.refresh()

    def _on_failed(self, line: str) -> None:  # the command's one line
        self._ended()
        self.status.setText(line)
        self.refresh()

    def _on_cancelled(self) -> None:
        _action, entry = self._ended()
        self.status.setText(f"Download of {entry.name} cancelled.")
        self.refresh()

    def done(self, result: int) -> None:  # closing the dialog stops a download
        self.cancel()
        self.engines.stop()
        if self._command is not None:
            self._command.wait(3000)
        super().done(result)
