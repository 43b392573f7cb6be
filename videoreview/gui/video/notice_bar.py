"""Above the video: the red notice bar, a problem the user should see, without a modal box
that stops everything (it hides itself after a while); and the offer bar, advice with
buttons (an upgrade to download), which stays until it is answered."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton

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


class OfferBar(QFrame):
    """One line of advice and a button per answer (``buttons``: their text -> button)."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("offer")
        self.setStyleSheet("#offer { background: #2f4f7a; } #offer QLabel { color: white; }")
        self.label = QLabel(wordWrap=True)
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(10, 4, 10, 4)
        self._row.addWidget(self.label, 1)
        self.buttons: dict[str, QPushButton] = {}
        self.hide()

    def offer(self, text: str, answers: dict[str, Callable[[], None]]) -> None:
        """Show ``text`` with a button for each answer (text -> what it does); no answer: text alone."""
        for button in self.buttons.values():
            button.deleteLater()
        self.buttons = {}
        for label, answer in answers.items():
            button = QPushButton(label)
            button.clicked.connect(answer)
            self._row.addWidget(button)
            self.buttons[label] = button
        self.label.setText(text)
        self.show()
