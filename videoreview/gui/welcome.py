"""What the window shows with no video open: where to drop one, a sample to try, and
the videos opened lately."""

from __future__ import annotations

import os

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QToolButton, QVBoxLayout, QWidget

from ..paths import resources_dir

RECENT_SHOWN = 5


def app_icon() -> QIcon:
    """The app's icon (resources/icons), or a null icon where the files are missing."""
    folder = resources_dir() / "icons"
    icon = QIcon()
    for png in sorted(folder.glob("hicolor/*/apps/videoreview.png")):
        icon.addFile(str(png))
    if (folder / "videoreview.svg").exists():
        icon.addFile(str(folder / "videoreview.svg"))
    return icon


class WelcomeView(QWidget):
    openRequested = Signal()
    sampleRequested = Signal()
    recentRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcome")
        icon = QLabel()
        icon.setPixmap(app_icon().pixmap(QSize(96, 96)))
        icon.setAlignment(Qt.AlignCenter)
        title = QLabel("Drop a video here")
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 2.2)
        font.setBold(True)
        title.setFont(font)
        title.setAlignment(Qt.AlignCenter)
        about = QLabel("or a folder of clips. Boundaries, captions, people and keyframes fill the timeline as "
                       "the analysis runs, on this computer: nothing is uploaded or downloaded.")
        about.setWordWrap(True)
        about.setAlignment(Qt.AlignCenter)
        about.setMaximumWidth(520)

        self.open_button = QPushButton("Open a video…")
        self.open_button.clicked.connect(self.openRequested)
        self.sample_button = QPushButton("Try a sample clip")
        self.sample_button.setToolTip("A 12-second clip made on this computer, analysed, then a short tour of "
                                      "the timeline")
        self.sample_button.clicked.connect(self.sampleRequested)
        buttons = QHBoxLayout()
        buttons.addStretch()
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.sample_button)
        buttons.addStretch()

        self.recent_title = QLabel("Recent")
        self.recent_title.setAlignment(Qt.AlignCenter)
        self.recent_box = QVBoxLayout()
        self.recent_box.setSpacing(0)

        layout = QVBoxLayout(self)
        layout.addStretch(2)
        layout.addWidget(icon)
        layout.addWidget(title)
        centred = QHBoxLayout()  # not an alignment flag: that would lose the wrapped label's height
        centred.addStretch()
        centred.addWidget(about, 10)
        centred.addStretch()
        layout.addLayout(centred)
        layout.addSpacing(12)
        layout.addLayout(buttons)
        layout.addSpacing(24)
        layout.addWidget(self.recent_title)
        layout.addLayout(self.recent_box)
        layout.addStretch(3)

    def set_recent(self, paths: list[str]) -> None:
        while self.recent_box.count():
            self.recent_box.takeAt(0).widget().deleteLater()
        shown = [p for p in paths if os.path.exists(p)][:RECENT_SHOWN]
        self.recent_title.setVisible(bool(shown))
        for path in shown:
            button = QToolButton()
            button.setText(os.path.basename(path))
            button.setToolTip(path)
            button.setAutoRaise(True)
            button.clicked.connect(lambda _checked=False, p=path: self.recentRequested.emit(p))
            self.recent_box.addWidget(button, 0, Qt.AlignHCenter)
