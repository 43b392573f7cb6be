"""The window's ear on a team library: a thread LISTENing for the analyses other
reviewers write (library/team/changes.py), which emits each one with the Analysis now
in the library, so an open video shows another's note or correction within a second or
two. A server that goes away is said once, in one line, and listened to again when it is
back."""

from __future__ import annotations

import os

from PySide6.QtCore import QThread, Signal

from ...errors import LibraryError
from ...paths import team_library_url

WAIT_SECONDS = 0.5  # how long one wait for a change lasts: the thread hears a stop this often
RETRY_SECONDS = 2.0  # between tries to reach a server that went away


class TeamListener(QThread):
    changed = Signal(str, object)  # the video's path, its Analysis in the library
    problem = Signal(str)  # the server cannot be reached (once, until it is back)
    back = Signal()  # reached again after a problem

    def __init__(self, url: str, parent=None) -> None:
        super().__init__(parent)
        self.url = url

    def run(self) -> None:
        from ...library.team.catalog import TeamCatalog
        from ...library.team.changes import Changes

        changes = catalog = None
        said = False
        while not self.isInterruptionRequested():
            try:
                if changes is None:
                    changes, catalog = Changes(self.url), TeamCatalog(self.url, readonly=True)
                    if said:
                        said = False
                        self.back.emit()
                for change in changes.wait(WAIT_SECONDS):
                    analysis = catalog.analysis(change.video)
                    if analysis is not None:
                        self.changed.emit(change.path, analysis)
            except LibraryError as exc:
                for connection in (changes, catalog):
                    if connection is not None:
                        connection.close()
                changes = catalog = None
                if not said:
                    said = True
                    self.problem.emit(f"{exc}; listening again when it is back")
                self.msleep(int(RETRY_SECONDS * 1000))
        for connection in (changes, catalog):
            if connection is not None:
                connection.close()

    def stop(self) -> None:
        self.requestInterruption()
        self.wait()


def listen_for(window) -> TeamListener | None:
    """With a team library chosen, a listener whose changes reach ``window``'s open videos
    (started; the window stops it when it closes); None with a local library."""
    url = team_library_url()
    if url is None:
        return None
    listener = TeamListener(url, window)

    def take(path: str, analysis) -> None:
        for document in window.documents.values():
            if os.path.realpath(document.path) == path and document.take_from_library(analysis):
                window.statusBar().showMessage(f"{os.path.basename(path)}: changed by another reviewer", 5000)

    listener.changed.connect(take)
    listener.problem.connect(window.notice)
    listener.back.connect(lambda: window.statusBar().showMessage("The team library is back.", 5000))
    listener.start()
    return listener

