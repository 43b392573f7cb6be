"""Starting the window: the application object, the theme, and screenshot mode."""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

from ..paths import data_dir
from .main_window import MainWindow, settings

THEMES = ("system", "light", "dark")


def dark_palette() -> QPalette:
    palette = QPalette()
    base, window, text = QColor(30, 31, 34), QColor(43, 45, 48), QColor(223, 225, 229)
    for role, colour in ((QPalette.Window, window), (QPalette.WindowText, text), (QPalette.Base, base),
                         (QPalette.AlternateBase, window), (QPalette.ToolTipBase, QColor(60, 63, 65)),
                         (QPalette.ToolTipText, text), (QPalette.Text, text), (QPalette.Button, window),
                         (QPalette.ButtonText, text), (QPalette.BrightText, QColor(255, 90, 90)),
                         (QPalette.Highlight, QColor(53, 116, 240)), (QPalette.HighlightedText, Qt.white),
                         (QPalette.Link, QColor(88, 157, 246)), (QPalette.PlaceholderText, QColor(128, 131, 136)),
                         (QPalette.Mid, QColor(70, 72, 76)), (QPalette.Dark, QColor(22, 23, 25)),
                         (QPalette.Light, QColor(80, 83, 87))):
        palette.setColor(role, colour)
    for role in (QPalette.WindowText, QPalette.Text, QPalette.ButtonText):
        palette.setColor(QPalette.Disabled, role, QColor(110, 112, 116))
    return palette


def apply_theme(app: QApplication, theme: str = "system") -> None:
    """Fusion with a light or dark palette; "system" follows the desktop's colour scheme
    (and keeps following it when it changes)."""
    app.setStyle(QStyleFactory.create("Fusion"))
    dark = theme == "dark" or (
        theme == "system" and QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark)
    app.setPalette(dark_palette() if dark else app.style().standardPalette())


def application(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance() or QApplication(argv or [sys.argv[0]])
    app.setApplicationName("videoreview")
    app.setApplicationDisplayName("videoreview")
    app.setDesktopFileName("videoreview")
    theme = settings().value("theme", "system")
    apply_theme(app, theme if theme in THEMES else "system")
    app.styleHints().colorSchemeChanged.connect(lambda _scheme: apply_theme(app, settings().value("theme", "system")))
    return app


def run(videos: list[str], screenshot: str | None = None, at: float | None = None, size: str = "1600x1000") -> int:
    """The window, with ``videos`` opened; with ``screenshot``, render it to a PNG once
    the first video is analysed and exit."""
    data_dir()  # fail early, with the path, if the data directory cannot be made
    app = application()
    window = MainWindow()
    if screenshot is None:
        window.show()
        if videos:
            window.open_paths(videos)
        return app.exec()
    if not videos:
        print("videoreview: error: --screenshot needs a VIDEO", file=sys.stderr)
        return 2
    try:
        width, height = (int(v) for v in size.lower().split("x"))
    except ValueError:
        print(f"videoreview: error: --size expects WIDTHxHEIGHT, got {size!r}", file=sys.stderr)
        return 2
    shot = Screenshot(window, screenshot, at)
    window.resize(width, height)
    window.show()
    QTimer.singleShot(0, lambda: shot.start(videos))
    app.exec()
    return shot.status


class Screenshot(QObject):
    """Open, wait for the analysis, seek, wait for the frame and the thumbnails, save the
    window as a PNG, quit. Every step is driven by signals: nothing blocks."""

    THUMBNAIL_WAIT_MS = 4000

    def __init__(self, window: MainWindow, out: str, at: float | None) -> None:
        super().__init__(window)
        self.window, self.out, self.at = window, os.path.abspath(out), at
        self.status = 1
        self.target_frame: int | None = None

    def start(self, videos: list[str]) -> None:
        problems = self.window.open_paths(videos)
        if problems or self.window.current is None:
            self.fail("; ".join(problems) or "nothing to open")
            return
        self.path = self.window.current.path
        queue = self.window.queue
        queue.finished.connect(self._analysed)
        queue.failed.connect(lambda path, message: self.fail(message) if path == self.path else None)
        queue.cancelled.connect(lambda path: self.fail(f"{path}: analysis cancelled") if path == self.path else None)

    def _analysed(self, path: str, analysis) -> None:
        if path != self.path:
            return
        info = analysis.video
        seconds = self.at if self.at is not None else info.duration / 2
        if not 0 <= seconds <= info.duration:
            self.fail(f"--at {seconds:g} is outside the video (0 to {info.duration:.2f} s)")
            return
        player = self.window.player
        self.target_frame = min(info.frame_count - 1, int(seconds * info.fps + 1e-6))
        player.frameShown.connect(self._frame_shown)
        player.error.connect(self.fail)
        player.seek_frame(self.target_frame)

    def _frame_shown(self, frame: int, seconds: float) -> None:
        if frame != self.target_frame:
            return
        self.window.player.frameShown.disconnect(self._frame_shown)
        # Thumbnails decode in the background: give them a moment, then save regardless.
        QTimer.singleShot(self.THUMBNAIL_WAIT_MS, self.save)

    def save(self) -> None:
        QApplication.processEvents()
        image = self.window.grab()
        if image.isNull() or not image.save(self.out, "PNG"):
            self.fail(f"{self.out}: could not write the PNG")
            return
        print(f"{self.out}: {image.width()}x{image.height()} screenshot at frame {self.target_frame}", file=sys.stderr)
        self.status = 0
        self.window.close()
        QApplication.quit()

    def fail(self, message: str) -> None:
        print(f"videoreview: error: {message}", file=sys.stderr)
        self.status = 1
        self.window.close()
        QApplication.quit()
