"""One open video: its Analysis, the reviewer's edits with undo/redo, and saving.

Every edit is a pure function Analysis -> Analysis (``pipeline.edits``, which hands identity
corrections to ``pipeline.stages.identities``); an undo command holds the Analysis before
and after it, so undo and redo are exact and each state is saved as it becomes current
(the stages keep edited records on re-analysis).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from ..errors import VideoReviewError
from ..pipeline import store
from ..records import Analysis


class _EditCommand(QUndoCommand):
    def __init__(self, document: VideoDocument, text: str, before: Analysis, after: Analysis) -> None:
        super().__init__(text)
        self.document, self.before, self.after = document, before, after

    def redo(self) -> None:
        self.document._show(self.after, save=True)

    def undo(self) -> None:
        self.document._show(self.before, save=True)


class VideoDocument(QObject):
    changed = Signal(object)  # the Analysis now shown (None before the first result)
    statusChanged = Signal(str)
    saveFailed = Signal(str)
    saved = Signal(object)  # the Analysis of a reviewer's edit, now saved (the library re-indexes it)

    def __init__(self, path: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path = path
        self.analysis: Analysis | None = None
        self.status = "queued"  # queued, analysing, done, failed, cancelled
        self.message = ""
        self.undo_stack = QUndoStack(self)
        self._before_job: Analysis | None = None

    @property
    def busy(self) -> bool:
        return self.status in ("queued", "analysing")

    def set_status(self, status: str, message: str = "") -> None:
        if status in ("queued", "analysing") and not self.busy:
            self._before_job = self.analysis
        self.status, self.message = status, message
        self.statusChanged.emit(status)

    def show_partial(self, analysis: Analysis) -> None:
        """A stage finished: show what there is (edits wait until the job is done)."""
        self._show(analysis, save=False)

    def finish(self, analysis: Analysis) -> None:
        """The job's final Analysis (the worker saved it). Undo history is reset: its
        snapshots predate this result."""
        self.undo_stack.clear()
        self._show(analysis, save=False)
        self.set_status("done")

    def abandon(self, status: str, message: str = "") -> None:
        """The job failed or was cancelled: back to what was shown before it started."""
        self._show(self._before_job, save=False)
        self.set_status(status, message)

    def edit(self, text: str, change: Callable[[Analysis], Analysis]) -> str | None:
        """Apply a reviewer's change as one undoable step. Returns None when done, or the
        message saying why it could not be done (nothing changes then)."""
        if self.analysis is None or self.busy:
            return "edits are possible once the analysis has finished"
        try:
            after = change(self.analysis)
        except (VideoReviewError, KeyError) as exc:
            return str(exc).strip("'\"")
        if after is self.analysis or after == self.analysis:
            return None
        self.undo_stack.push(_EditCommand(self, text, self.analysis, after))
        return None

    def take_from_library(self, theirs: Analysis) -> bool:
        """Another reviewer's work on this video, from the team library: theirs, with this
        window's notes merged in (of two edits of one note the later is kept; a note deleted
        on either side stays deleted). Saved here without indexing it again (it came from
        the library). The undo history is reset, as after an analysis: its snapshots
        predate the others' work. False when it changes nothing here, or while an analysis
        runs (its result comes next)."""
        from ..notes.changes import merge_copies

        if self.analysis is None or self.busy or theirs.content_hash != self.analysis.content_hash:
            return False
        merged = merge_copies(theirs, self.analysis)
        if merged == self.analysis:
            return False
        self.undo_stack.clear()
        self.analysis = merged
        try:
            store.save(merged)
        except (OSError, VideoReviewError) as exc:
            self.saveFailed.emit(f"{store.saved_path(merged.content_hash)}: could not save ({exc})")
        self.changed.emit(merged)
        return True

    def _show(self, analysis: Analysis | None, save: bool) -> None:
        self.analysis = analysis
        if save and analysis is not None:
            try:
                store.save(analysis)
            except (OSError, VideoReviewError) as exc:
                self.saveFailed.emit(f"{store.saved_path(analysis.content_hash)}: could not save ({exc})")
            else:
                self.saved.emit(analysis)
        self.changed.emit(analysis)
