"""Unexpected exceptions: written to the log file and shown in a dialog with a report the
user can copy, from whichever thread they happen in; the window keeps running.

PySide6 hands an exception raised in a slot or an overridden Qt method to
``sys.excepthook`` and carries on, so one hook catches the GUI thread's and QThread
workers' failures; ``threading.excepthook`` catches Python threads'. Failures in the
analysis and library child processes arrive as messages already (see work/background.py).
"""

from __future__ import annotations

import logging
import sys
import threading
import time
import traceback
from logging.handlers import RotatingFileHandler
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QtMsgType, QUrl, Signal, qInstallMessageHandler
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from ...about import version_text
from ...paths import log_dir

LOG_NAME = "videoreview.log"
log = logging.getLogger("videoreview")


def start_logging() -> Path:
    """Log to ``log_dir()/videoreview.log`` (1 MB, three old files kept); returns its path."""
    path = log_dir() / LOG_NAME
    if not any(isinstance(h, RotatingFileHandler) and Path(h.baseFilename) == path for h in log.handlers):
        handler = RotatingFileHandler(path, maxBytes=1_000_000, backupCount=3, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
    return path


def report_text(exc_type, exc, tb, thread: str) -> str:
    """What a bug report needs: when, where, the versions, and the traceback."""
    trace = "".join(traceback.format_exception(exc_type, exc, tb)).rstrip()
    return (f"videoreview failure report\nTime: {time.strftime('%Y-%m-%d %H:%M:%S %z')}\nThread: {thread}\n\n"
            f"{version_text(gpu_memory=False)}\n\n{trace}\n")  # no CUDA context made in the window


class FailureReporter(QObject):
    """Installs the hooks; ``failed`` (the report) is queued to the GUI thread, where the
    dialog opens. ``show_dialogs=False`` (screenshot mode) prints the report instead."""

    failed = Signal(str)

    def __init__(self, window: QWidget | None, show_dialogs: bool = True) -> None:
        super().__init__(window)
        self.window, self.show_dialogs = window, show_dialogs
        self.log_path = start_logging()
        self.dialog: FailureDialog | None = None
        self.reports: list[str] = []
        self.failed.connect(self._show)
        self._previous = None

    def install(self) -> None:
        hooks = (sys.excepthook, threading.excepthook)
        sys.excepthook = self.excepthook
        threading.excepthook = lambda args: self.excepthook(args.exc_type, args.exc_value, args.exc_traceback,
                                                            args.thread.name if args.thread else None)
        self._previous = (*hooks, qInstallMessageHandler(_log_qt_message))

    def uninstall(self) -> None:
        if self._previous is not None:
            sys.excepthook, threading.excepthook, qt_handler = self._previous
            qInstallMessageHandler(qt_handler)
            self._previous = None

    def excepthook(self, exc_type, exc, tb, thread: str | None = None) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        text = report_text(exc_type, exc, tb, thread or threading.current_thread().name)
        log.error(text)
        self.failed.emit(text)

    def _show(self, text: str) -> None:
        self.reports.append(text)
        if not self.show_dialogs:
            print(text, file=sys.stderr)
            return
        if self.dialog is None:
            self.dialog = FailureDialog(self.log_path, self.window)
            self.dialog.finished.connect(lambda _result: setattr(self, "dialog", None))
            self.dialog.open()  # not exec(): the window goes on running
        self.dialog.add(text)


def _log_qt_message(kind, _context, message: str) -> None:
    """Qt's own warnings go to the log too (they are often the first sign of a failure)."""
    if kind != QtMsgType.QtDebugMsg:
        log.warning("Qt: %s", message)
    print(message, file=sys.stderr)


class FailureDialog(QDialog):
    """The report, selectable and copyable; further failures while it is open are added
    below the first rather than opening more dialogs."""

    def __init__(self, log_path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("videoreview: something went wrong")
        self.setAttribute(Qt.WA_DeleteOnClose)
        self.log_path = log_path
        self.count = 0
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.report = QPlainTextEdit(readOnly=True)
        self.report.setLineWrapMode(QPlainTextEdit.NoWrap)
        self.report.setMinimumSize(640, 320)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        self.copy_button = QPushButton("Copy report")
        self.copy_button.clicked.connect(self.copy_report)
        buttons.addButton(self.copy_button, QDialogButtonBox.ActionRole)
        folder = QPushButton("Open log folder")
        folder.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(log_path.parent))))
        buttons.addButton(folder, QDialogButtonBox.ActionRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.report, 1)
        layout.addWidget(buttons)

    def add(self, text: str) -> None:
        self.count += 1
        what = "An unexpected error" if self.count == 1 else f"{self.count} unexpected errors"
        self.summary.setText(f"{what} happened. videoreview goes on running, but what you were doing may not "
                             f"have finished. The report below is also in {self.log_path}; copy it into a bug "
                             f"report.")
        if self.count > 1:
            self.report.appendPlainText("\n" + "-" * 72 + "\n")
        self.report.appendPlainText(text)

    def copy_report(self) -> None:
        QGuiApplication.clipboard().setText(self.report.toPlainText())
