"""The Videos panel: the videos open in the window, each with the state of its analysis."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem

from ..labels import status_text


class VideosPanel(QListWidget):
    """The open videos; the current one is selected. Emits the path picked by the user."""

    picked = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.itemActivated.connect(lambda item: self.picked.emit(item.data(Qt.UserRole)))
        self.itemClicked.connect(lambda item: self.picked.emit(item.data(Qt.UserRole)))

    def update_video(self, path: str, status: str, detail: str = "") -> None:
        item = self._item(path)
        if item is None:
            item = QListWidgetItem()
            item.setData(Qt.UserRole, path)
            item.setToolTip(path)
            self.addItem(item)
        state = status_text(status)
        text = os.path.basename(path) + (f"\n{state} {detail}".rstrip() if state or detail else "")
        item.setText(text)

    def remove_video(self, path: str) -> None:
        item = self._item(path)
        if item is not None:
            self.takeItem(self.row(item))

    def set_current(self, path: str | None) -> None:
        item = self._item(path) if path else None
        self.setCurrentItem(item) if item else self.clearSelection()

    def _item(self, path: str) -> QListWidgetItem | None:
        for row in range(self.count()):
            if self.item(row).data(Qt.UserRole) == path:
                return self.item(row)
        return None
