"""One summary in the Summaries panel: its format, keyframe thumbnails with timecodes
(click: seek there), its editable text, and its ViSIL score once computed."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QImage, QPixmap
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QRadioButton,
    QToolButton,
    QVBoxLayout,
)

from ...records import Analysis, Summary
from ...summary import builder
from ...summary.compare import Comparison
from ...summary.formats import matching_row, summary_title
from ...timecode import timecode
from ..colors import EDITED_COLOR

THUMB_HEIGHT = 54  # keyframe thumbnails: as the timeline's strip
THUMBS_PER_ROW = 3
COLUMN_WIDTH = 300


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
            button.setIcon(QIcon(placeholder(analysis)))
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


def placeholder(analysis: Analysis) -> QPixmap:
    info = analysis.video
    pixmap = QPixmap(max(2, round(THUMB_HEIGHT * info.width / max(1, info.height))), THUMB_HEIGHT)
    pixmap.fill(QColor(60, 63, 67))
    return pixmap
