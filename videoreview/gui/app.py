"""Starting the window: the application object, the theme, and screenshot mode."""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication

from .. import __version__
from ..paths import data_dir
from .dialogs.failures import FailureReporter, log
from .main_window import MainWindow
from .theme import apply_theme, saved_theme


def application(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance() or QApplication(argv or [sys.argv[0]])
    app.setApplicationName("videoreview")
    app.setApplicationDisplayName("videoreview")
    app.setDesktopFileName("videoreview")
    app.setApplicationVersion(__version__)
    apply_theme(app, saved_theme())
    app.styleHints().colorSchemeChanged.connect(lambda _scheme: apply_theme(app, saved_theme()))
    return app


def run(videos: list[str], screenshot: str | None = None, at: float | None = None, size: str = "1600x1000",
        layout: str | None = None, search: str | None = None) -> int:
    """The window, with ``videos`` opened; with ``screenshot``, render it to a PNG once
    the first video is analysed (with no video: as it first opens) in ``layout`` (None:
    the last one used), with the library searched for ``search``, and exit."""
    data_dir()  # fail early, with the path, if the data directory cannot be made
    if screenshot is not None:
        try:
            width, height = (int(v) for v in size.lower().split("x"))
        except ValueError:
            print(f"videoreview: error: --size expects WIDTHxHEIGHT, got {size!r}", file=sys.stderr)
            return 2
    app = application()
    window = MainWindow()
    # Unexpected exceptions: a dialog with the report (screenshot mode: stderr) and the log.
    reporter = FailureReporter(window, show_dialogs=screenshot is None)
    reporter.install()
    log.info("videoreview %s started (pid %d)", __version__, os.getpid())
    try:
        if screenshot is None:
            window.show()
            if videos:
                window.open_paths(videos)
            return app.exec()
        shot = Screenshot(window, screenshot, at, search)
        window.setWindowState(Qt.WindowState.WindowNoState)  # (not maximized to the screen it has)
        window.resize(width, height)
        window.show()
        if layout is not None:
            window.layouts.switch(layout)
        QTimer.singleShot(0, lambda: shot.start(videos) if videos else shot.save())
        app.exec()
        return shot.status if not reporter.reports else 1
    finally:
        reporter.uninstall()


class Screenshot(QObject):
    """Open, wait for the analysis, seek, wait for the frame and the thumbnails, save the
    window as a picture (PNG, or JPEG by the suffix), quit. Every step is driven by signals:
    nothing blocks. In the Summaries layout the builtin summaries are built first, and with
    ``search`` the library is searched, so the picture shows what each layout is for."""

    THUMBNAIL_WAIT_MS = 4000
    POLL_MS = 100

    def __init__(self, window: MainWindow, out: str, at: float | None, search: str | None = None) -> None:
        super().__init__(window)
        self.window, self.out, self.at, self.search = window, os.path.abspath(out), at, search
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
        player.frameShown.connect(self._frame_shown)
        player.error.connect(self.fail)
        player.seek(seconds)
        if player.settled():  # it shows that frame already
            self._frame_shown(player.current_frame(), player.current_time())

    def _frame_shown(self, frame: int, seconds: float) -> None:
        if not self.window.player.settled():
            return
        self.window.player.frameShown.disconnect(self._frame_shown)
        self.target_frame = frame
        self._waited_ms = 0
        if self.window.layouts.current == "summaries":
            self.window.summary_panel.build()
        if self.search:
            page = self.window.library_panel.search_page
            page.resultsShown.connect(lambda _moments: self._save_when_thumbnails_shown())
            page.query.setText(self.search)
            page.search()
            return
        self._save_when_thumbnails_shown()

    def _save_when_thumbnails_shown(self) -> None:
        """Thumbnails decode in the background: save once the timeline shows every one it
        wants, or after THUMBNAIL_WAIT_MS regardless."""
        timeline = self.window.timeline
        if self._waited_ms >= self.THUMBNAIL_WAIT_MS or all(
                timeline.thumbs.get(frame) is not None for frame in timeline.thumbnail_frames()):
            self.save()
            return
        self._waited_ms += self.POLL_MS
        QTimer.singleShot(self.POLL_MS, self._save_when_thumbnails_shown)

    def save(self) -> None:
        QApplication.processEvents()
        image = self.window.grab()
        if image.isNull() or not image.save(self.out, quality=85):  # the format by the suffix (.png, .jpg, ...)
            self.fail(f"{self.out}: could not write the picture")
            return
        where = f"at frame {self.target_frame}" if self.target_frame is not None else "of the window as opened"
        picture = self.window.view.picture_rect()
        share = picture.width() * picture.height() / (image.width() * image.height())
        print(f"{self.out}: {image.width()}x{image.height()} screenshot {where} in the "
              f"{self.window.layouts.current} layout; picture {picture.width()}x{picture.height()}, "
              f"{share:.0%} of the window", file=sys.stderr)
        self.status = 0
        self.window.close()
        QApplication.quit()

    def fail(self, message: str) -> None:
        print(f"videoreview: error: {message}", file=sys.stderr)
        self.status = 1
        self.window.close()
        QApplication.quit()
