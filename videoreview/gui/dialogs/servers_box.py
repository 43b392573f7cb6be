"""Settings > Engines > Model servers: the OpenAI-compatible servers (vLLM, Ollama, LM
Studio) the engines can use as ``server:NAME``; add, change and remove them. Keys are
not typed here: they come from an environment variable or the system keyring
(models/servers.py), so none is ever written to a file of ours."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
)

from ...errors import VideoReviewError
from ...models.servers import Server, add_server, remove_server, servers


class ServerDialog(QDialog):
    """One server's settings; ``entry()`` is what was typed."""

    def __init__(self, parent=None, entry: Server | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Model server")
        form = QFormLayout(self)
        self.name = QLineEdit(entry.name if entry else "", placeholderText="box")
        self.url = QLineEdit(entry.url if entry else "", placeholderText="http://localhost:8000/v1")
        self.model = QLineEdit(entry.model if entry else "", placeholderText="Qwen/Qwen3-VL-4B-Instruct")
        self.key_env = QLineEdit(entry.api_key_env if entry else "", placeholderText="(the system keyring)")
        self.concurrency = QSpinBox(minimum=1, maximum=64, value=entry.concurrency if entry else 4)
        self.timeout = QDoubleSpinBox(minimum=1, maximum=3600, value=entry.timeout if entry else 120, suffix=" s")
        for label, widget in (("Name", self.name), ("API base URL", self.url), ("Model", self.model),
                              ("Key from variable", self.key_env), ("Requests at once", self.concurrency),
                              ("Timeout", self.timeout)):
            form.addRow(label, widget)
        form.addRow(QLabel("Frames of the videos you analyse with it are sent to this server.", wordWrap=True))
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, accepted=self.accept,
                                   rejected=self.reject)
        form.addRow(buttons)

    def entry(self) -> Server:
        return Server(self.name.text().strip(), self.url.text().strip(), self.model.text().strip(),
                      self.key_env.text().strip(), self.concurrency.value(), self.timeout.value())


class ServersBox(QGroupBox):
    changed = Signal()  # a server added, changed or removed
    message = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__("Model servers (captions, summaries and, on vLLM, scores as server:NAME)", parent)
        layout = QVBoxLayout(self)
        self.list = QListWidget()
        layout.addWidget(self.list)
        row = QHBoxLayout()
        for text, slot in (("Add…", self.add), ("Change…", self.change), ("Remove", self.remove)):
            button = QPushButton(text)
            button.clicked.connect(slot)
            row.addWidget(button)
        row.addStretch(1)
        layout.addLayout(row)
        self.fill()

    def fill(self) -> None:
        self.list.clear()
        try:
            known = servers()
        except VideoReviewError as exc:
            self.message.emit(str(exc))
            return
        for entry in known.values():
            item = QListWidgetItem(f"{entry.name}: {entry.model} at {entry.url}")
            item.setData(Qt.ItemDataRole.UserRole, entry.name)
            self.list.addItem(item)

    def ask(self, entry: Server | None) -> Server | None:
        """The server typed in the dialog, or None (cancelled); tests replace this."""
        dialog = ServerDialog(self, entry)
        return dialog.entry() if dialog.exec() == QDialog.Accepted else None

    def add(self) -> None:
        self._save(self.ask(None))

    def change(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self._save(self.ask(servers().get(item.data(Qt.ItemDataRole.UserRole))))

    def _save(self, entry: Server | None) -> None:
        if entry is None:
            return
        try:
            add_server(entry)
        except VideoReviewError as exc:
            self.message.emit(str(exc))
            return
        self.message.emit(f"{entry.name}: saved; choose server:{entry.name} for captions, summaries or scoring above")
        self.fill()
        self.changed.emit()

    def remove(self) -> None:
        item = self.list.currentItem()
        if item is None:
            return
        try:
            remove_server(item.data(Qt.ItemDataRole.UserRole))
        except VideoReviewError as exc:
            self.message.emit(str(exc))
            return
        self.fill()
        self.changed.emit()
