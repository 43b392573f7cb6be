"""A short tour of the window: the window is dimmed but for one part at a time (the
video, each track of the timeline, the panels), with a note saying what it shows and
what can be done there. Next / Back / Done, or the arrow keys, Enter and Esc."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QRect, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QKeySequence, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QMainWindow, QPushButton, QVBoxLayout, QWidget

from .window_settings import window_settings

DIM = QColor(0, 0, 0, 150)
MARGIN = 6  # around the highlighted part


@dataclass(frozen=True)
class Step:
    title: str
    text: str
    area: Callable[[], QRect]  # the part, in the window's coordinates; null: nothing to point at


def window_steps(window) -> list[Step]:
    """The tour of ``window`` (a MainWindow showing an analysed video)."""
    timeline = window.timeline

    def widget_area(widget: QWidget) -> Callable[[], QRect]:
        def area() -> QRect:
            if not widget.isVisible():
                return QRect()
            return QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size())

        return area

    def track_area(*names: str) -> Callable[[], QRect]:
        def area() -> QRect:
            timeline.reveal(*names)  # scrolled into view where the lanes overflow
            shown = QRect(0, 0, timeline.width(), timeline.view_bottom())
            rect = QRect()
            for name in names:
                track = timeline.track_rect(name).intersected(shown)
                if not track.isEmpty():
                    rect = rect.united(QRect(timeline.mapTo(window, track.topLeft()), track.size()))
            return rect
        return area

    lanes = [name for name in timeline.track_names() if name.startswith("faces:")]
    # The View menu's overlay shortcuts as bound (Alt+1 to Alt+6), so the note never drifts from them.
    keys = [action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            for action in window.menus.overlays.values()]
    people_text = ("One lane per person (P1, P2, ...), the same label across clips. Click a lane or a face box to "
                   "rename, merge or split." if lanes else "One lane per person appears here when faces are found "
                   "(P1, P2, ...), the same label across clips.")
    people_tracks = lanes
    if "poses" in timeline.track_names():  # the poses stage's track, above the lanes
        people_text = ("The People track shows what each body does (standing, sitting, walking, ...), tagged with "
                       "who it is. " + people_text)
        people_tracks = ["poses", *lanes]
    steps = [
        Step("The video", "The frame's caption shows as a subtitle, boundaries flash in their colour, and faces and "
             f"objects get a box with their label. Space plays; Left / Right step one frame; {keys[0]} to "
             f"{keys[-1]}, or the buttons under the video, hide the overlays.", widget_area(window.view)),
        Step("Ruler and thumbnails", "Click or drag to seek. Ctrl+wheel zooms from the whole video down to single "
             "frames; the wheel scrolls.", track_area("ruler", "thumbnails")),
        Step("Shots and boundaries", "Red: hard cuts, amber: gradual transitions, blue: events, where the "
             "subject's status changes. Click one to see its subject / before / after in Details; drag it to "
             "move it; B adds one at the playhead, Delete removes it; [ and ] jump between them.",
             track_area("boundaries")),
        Step("Captions", "What each second shows, as the model saw it. Hover for the text; click to correct it in "
             "Details.", track_area("captions")),
        Step("People", people_text, track_area(*people_tracks) if people_tracks else track_area("captions")),
        Step("Keyframes", "The frames that best sum the video up; { and } jump between them. The Summaries panel "
             "builds text and keyframe summaries from them and scores them with ViSIL.", track_area("keyframes")),
        Step("Correct and search", "Every correction made in Details is one step of Ctrl+Z and is kept when the "
             "video is analysed again. The Library searches every analysed video by text.",
             widget_area(window.details)),
    ]
    return steps


class Tour(QWidget):
    """The dimming layer and its note, over the whole window."""

    ended = Signal(bool)  # True: seen to the end

    def __init__(self, window: QMainWindow, steps: list[Step]) -> None:
        super().__init__(window)
        self.window_, self.steps, self.index = window, steps, 0
        self.setAttribute(Qt.WA_DeleteOnClose)
        self.setFocusPolicy(Qt.StrongFocus)
        self.note = QFrame(self)
        self.note.setObjectName("tourNote")
        self.note.setFrameShape(QFrame.StyledPanel)
        self.note.setAutoFillBackground(True)
        self.title = QLabel()
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.2)
        self.title.setFont(font)
        self.text = QLabel(wordWrap=True)
        self.count = QLabel()
        self.back = QPushButton("Back")
        self.back.clicked.connect(lambda: self.go(self.index - 1))
        self.next = QPushButton("Next")
        self.next.setDefault(True)
        self.next.clicked.connect(lambda: self.go(self.index + 1))
        skip = QPushButton("End tour")
        skip.clicked.connect(lambda: self.finish(False))
        buttons = QHBoxLayout()
        buttons.addWidget(self.count)
        buttons.addStretch()
        buttons.addWidget(skip)
        buttons.addWidget(self.back)
        buttons.addWidget(self.next)
        layout = QVBoxLayout(self.note)
        layout.addWidget(self.title)
        layout.addWidget(self.text)
        layout.addLayout(buttons)
        self.note.setFixedWidth(380)
        window.installEventFilter(self)

    def start(self) -> None:
        self.setGeometry(self.window_.rect())
        self.show()
        self.raise_()
        self.setFocus()
        self.go(0)

    def area(self) -> QRect:
        """The highlighted part, in this layer's (the window's) coordinates."""
        rect = self.steps[self.index].area()
        return rect.adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN) if not rect.isNull() else rect

    def go(self, index: int) -> None:
        if index >= len(self.steps):
            self.finish(True)
            return
        self.index = max(0, index)
        step = self.steps[self.index]
        self.title.setText(step.title)
        self.text.setText(step.text)
        self.count.setText(f"{self.index + 1} of {len(self.steps)}")
        self.back.setEnabled(self.index > 0)
        self.next.setText("Done" if self.index == len(self.steps) - 1 else "Next")
        self._place_note()
        self.update()

    def finish(self, completed: bool) -> None:
        self.window_.removeEventFilter(self)
        self.ended.emit(completed)
        self.close()

    def _place_note(self) -> None:
        width = self.note.width()
        self.note.setFixedHeight(self.note.heightForWidth(width))  # the wrapped text's whole height
        area, size, bounds = self.area(), self.note.size(), self.rect()
        if area.isNull():
            self.note.move(bounds.center().x() - size.width() // 2, bounds.center().y() - size.height() // 2)
            return
        # Below the part if it fits, else above, else inside its top; centred on it, kept in the window.
        if area.bottom() + 12 + size.height() <= bounds.bottom():
            y = area.bottom() + 12
        elif area.top() - 12 - size.height() >= 0:
            y = area.top() - 12 - size.height()
        else:
            y = area.top() + 12
        x = min(max(8, area.center().x() - size.width() // 2), bounds.width() - size.width() - 8)
        self.note.move(x, max(8, y))

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.Antialiasing)
        shade = QPainterPath()
        shade.addRect(QRectF(self.rect()))
        area = self.area()
        if not area.isNull():
            hole = QPainterPath()
            hole.addRoundedRect(QRectF(area), 6, 6)
            shade = shade.subtracted(hole)
            painter.setPen(QPen(self.palette().highlight().color(), 2))
            painter.drawRoundedRect(QRectF(area), 6, 6)
        painter.fillPath(shade, DIM)

    def keyPressEvent(self, event) -> None:
        key = event.key()
        if key == Qt.Key_Escape:
            self.finish(False)
        elif key in (Qt.Key_Right, Qt.Key_Return, Qt.Key_Enter, Qt.Key_Space):
            self.go(self.index + 1)
        elif key == Qt.Key_Left:
            self.go(self.index - 1)

    def mousePressEvent(self, event) -> None:
        event.accept()  # the window under the layer waits until the tour ends

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window_ and event.type() == QEvent.Resize:
            self.setGeometry(self.window_.rect())
            self._place_note()
        return False


class TourLauncher:
    """Starts the tour on the window's video once it is analysed, when one is asked for
    (``pending``); the tour seen is remembered."""

    def __init__(self, window) -> None:
        self.window = window
        self.pending = False
        self.tour: Tour | None = None

    def start_when_ready(self) -> None:
        current = self.window.current
        if not self.pending or current is None or current.status != "done" or self.tour:
            return
        self.pending = False
        self.tour = Tour(self.window, window_steps(self.window))
        self.tour.ended.connect(self._ended)
        self.tour.start()

    def _ended(self, completed: bool) -> None:
        self.tour = None
        window_settings().setValue("tour/seen", True)
