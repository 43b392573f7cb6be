"""The reviewer's corrections, as the window applies them: every edit is one undoable step
on the video shown (document.py), made by a pure function (pipeline/edits.py) and
saved as it is made. The panels ask for edits through their editRequested signals."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QInputDialog, QMenu

from ..pipeline import edits
from .labels import identity_label


class ReviewEdits(QObject):
    """A child of the window: the undo stacks' signals stop reaching it with the window."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window

    def apply_edit(self, text: str, change) -> bool:
        """Apply ``change`` (Analysis -> Analysis) to the video shown, as one undoable step;
        a problem is shown as a notice and changes nothing."""
        if self.window.current is None:
            return False
        problem = self.window.current.edit(text, change)
        if problem:
            self.window.notice(problem)
            return False
        self.window.statusBar().showMessage(f"{text} (Ctrl+Z to undo)", 4000)
        return True

    def rename_identity(self, pid: str, name: str) -> bool:
        return self.apply_edit(f"Rename {pid}", lambda a: edits.rename_identity(a, pid, name))

    def merge_identities(self, pid: str, other: str) -> bool:
        return self.apply_edit(f"Merge {other} into {pid}", lambda a: edits.merge_identities(a, pid, other))

    def face_menu(self, face) -> QMenu:
        """Corrections for the face under the mouse: the quickest way to fix a wrong identity."""
        menu = QMenu(self.window)
        menu.setAttribute(Qt.WA_DeleteOnClose)
        analysis = self.window.current.analysis if self.window.current else None
        pid = face.identity
        if pid is not None and analysis is not None:
            menu.addAction(f"Rename {pid}…", lambda: self.ask_name(pid))
            same = menu.addMenu("Same person as")
            for other in analysis.identities:
                if other.id != pid:
                    same.addAction(identity_label(other.id, other.name),
                                   lambda o=other.id: self.merge_identities(o, pid))
            same.setEnabled(bool(same.actions()))
            menu.addAction("Someone else (split this track off)", lambda: self.apply_edit(
                "Split track", lambda a: edits.split_track(a, face.track)))
        menu.addAction("Not a face", lambda: self.apply_edit("Not a face", lambda a: edits.not_a_face(a, face.track)))
        return menu

    def ask_name(self, pid: str) -> None:
        record = self.window.details.record("faces", pid)
        name, ok = QInputDialog.getText(self.window, "Rename identity", f"Name for {pid}",
                                        text=record.name or "" if record else "")
        if ok:
            self.rename_identity(pid, name.strip())

    def add_boundary_at_playhead(self) -> bool:
        seconds = self.window.player.current_time()
        done = self.apply_edit("Add boundary", lambda a: edits.add_boundary(a, seconds))
        if done:
            self.window.select("boundaries", edits.frame_at(self.window.current.analysis, seconds))
        return done

    def move_boundary(self, frame: int, seconds: float) -> bool:
        done = self.apply_edit("Move boundary", lambda a: edits.move_boundary(a, frame, seconds))
        if done:
            self.window.select("boundaries", edits.frame_at(self.window.current.analysis, seconds))
        return done

    def delete_boundary(self, frame: int) -> bool:
        done = self.apply_edit("Delete boundary", lambda a: edits.delete_boundary(a, frame))
        if done:
            self.window.select(None, None)
        return done

    def delete_selected_boundary(self) -> None:
        if self.window.details.kind == "boundaries":
            self.delete_boundary(self.window.details.key)

    def edit_selected(self) -> None:
        kind, key = self.window.details.kind, self.window.details.key
        if kind == "faces":
            self.ask_name(key)
            return
        texts = {"captions": ("Edit caption", "Caption at", edits.edit_caption),
                 "speech": ("Edit what is said", "Said at", edits.edit_segment)}
        if kind not in texts:
            return
        title, label, edit = texts[kind]
        record = self.window.details.record(kind, key)
        at = self.window.details.time_text(record.time if kind == "captions" else record.start)
        text, ok = QInputDialog.getMultiLineText(self.window, title, f"{label} {at}", record.text)
        if ok:
            self.apply_edit(title, lambda a: edit(a, key, text))

    def undo(self) -> None:
        if self.window.current is not None:
            self.window.current.undo_stack.undo()

    def redo(self) -> None:
        if self.window.current is not None:
            self.window.current.undo_stack.redo()

    def update_undo_actions(self) -> None:
        stack = self.window.current.undo_stack if self.window.current else None
        w = self.window
        for action, can, text, verb in ((w.menus.undo, stack and stack.canUndo(), stack and stack.undoText(), "Undo"),
                                        (w.menus.redo, stack and stack.canRedo(), stack and stack.redoText(), "Redo")):
            action.setEnabled(bool(can))
            action.setText(f"&{verb} {text}" if can and text else f"&{verb}")
