"""The red bar above the video: a problem the user should see, without a modal box that
stops everything. It hides itself after a while."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel

SHOWN_MS = 10000


class NoticeBar(QLabel):
    def __init__(self) -> None:
        super().__init__()
        self.setWordWrap(True)
        self.setStyleSheet("background: #7a2f2f; color: white; padding: 6px 10px;")
        self.hide()
        self._timer = QTimer(self, singleShot=True, interval=SHOWN_MS, timeout=self.hide)

    def show_message(self, message: str) -> None:
        self.setText(message)
        self.show()
        self._timer.start()
