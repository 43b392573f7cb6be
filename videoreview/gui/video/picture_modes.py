"""The picture: messages lie over it rather than above it (``over_the_picture``), and the
picture alone: full screen (F: the picture and its transport bar fill the screen, F or
Esc brings the window back as it was) and the picture in a window of its own, to move to
a second monitor (View > Picture in its own window; closing that window puts the picture
back). The window's keys work in both."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QGridLayout, QVBoxLayout, QWidget


def over_the_picture(view: QWidget, *bars: QWidget) -> QWidget:
    """``view`` with ``bars`` lying over its top: a message does not shrink the picture."""
    stage = QWidget()
    grid = QGridLayout(stage)
    grid.setContentsMargins(0, 0, 0, 0)
    grid.addWidget(view, 0, 0)
    column = QWidget()
    rows = QVBoxLayout(column)
    rows.setContentsMargins(0, 0, 0, 0)
    rows.setSpacing(0)
    for bar in bars:
        rows.addWidget(bar)
    grid.addWidget(column, 0, 0, Qt.AlignmentFlag.AlignTop)
    return stage


class PictureWindow(QWidget):
    """The top-level window the picture floats in; ``closed`` when the user closes it."""

    closed = Signal()

    def __init__(self, title: str) -> None:
        super().__init__(None, Qt.WindowType.Window)
        self.setWindowTitle(title)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)

    def closeEvent(self, event) -> None:
        self.closed.emit()
        super().closeEvent(event)


class PictureModes(QObject):
    """Full screen and the floating picture of ``window`` (a MainWindow): its
    ``picture_box`` (the picture and transport bar) moves between the window's splitter
    and a PictureWindow."""

    floatingChanged = Signal(bool)

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.floating: PictureWindow | None = None
        self._before_full_screen: tuple | None = None  # what full screen hid, to show again

    # -- full screen ----------------------------------------------------------------------
    def full_screen(self) -> bool:
        if self.floating is not None:
            return self.floating.isFullScreen()
        return self._before_full_screen is not None

    def toggle_full_screen(self) -> None:
        if self.floating is not None:  # the floating picture goes full screen on its own monitor
            f = self.floating
            f.showNormal() if f.isFullScreen() else f.showFullScreen()
            return
        if self._before_full_screen is None:
            self._enter_full_screen()
        else:
            self.leave_full_screen()

    def _enter_full_screen(self) -> None:
        w = self.window
        self._before_full_screen = (w.saveState(), w.splitter.saveState(), w.windowState(),
                                    w.menuBar().isVisible(), w.statusBar().isVisible())
        for dock in w.docks():
            dock.hide()
        w.menuBar().hide()
        w.statusBar().hide()
        w.timeline.hide()
        w.showFullScreen()

    def leave_full_screen(self) -> None:
        if self.floating is not None and self.floating.isFullScreen():
            self.floating.showNormal()
            return
        if self._before_full_screen is None:
            return
        w = self.window
        state, splitter, window_state, menu_bar, status_bar = self._before_full_screen
        self._before_full_screen = None
        w.setWindowState(window_state)
        w.timeline.show()
        w.menuBar().setVisible(menu_bar)
        w.statusBar().setVisible(status_bar)
        w.restoreState(state)
        w.splitter.restoreState(splitter)

    # -- the floating picture -------------------------------------------------------------
    def set_floating(self, on: bool) -> None:
        if on == (self.floating is not None):
            return
        if on:
            self.leave_full_screen()
            self._float()
        else:
            self._dock_back()

    def _float(self) -> None:
        w = self.window
        self._splitter_before = w.splitter.saveState()
        floating = PictureWindow(f"{w.windowTitle()} — picture")
        floating.addActions(w.actions())  # the window's keys (play, frame steps, F) work there too
        floating.layout().addWidget(w.picture_box)  # out of the splitter: the timeline takes its room
        floating.closed.connect(lambda: self.set_floating(False))
        floating.resize(w.picture_box.size().expandedTo(w.picture_box.sizeHint()))
        self.floating = floating
        floating.show()
        self.floatingChanged.emit(True)

    def _dock_back(self) -> None:
        w, floating = self.window, self.floating
        self.floating = None
        w.splitter.insertWidget(0, w.picture_box)
        w.picture_box.show()
        w.splitter.restoreState(self._splitter_before)
        floating.closed.disconnect()
        floating.close()
        floating.deleteLater()
        self.floatingChanged.emit(False)
