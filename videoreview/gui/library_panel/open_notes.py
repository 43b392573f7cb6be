"""The Open notes tab: reviewers' open notes in every video of the library (what is left
to do), grouped by video, each at its SMPTE timecode. Double-click opens the video at the note."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from ...library.search import LibraryNote
from ..colors import tag_icon


class OpenNotes(QWidget):
    openRequested = Signal(str, float)  # path, seconds
    message = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.notes: list[LibraryNote] = []  # in the order shown
        self.tree = QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.setWordWrap(True)
        self.tree.itemActivated.connect(self._open)
        self.label = QLabel("No open notes.")
        self.label.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.tree, 1)

    def show_notes(self, notes: list[LibraryNote]) -> None:
        """The open notes grouped by video (the library lists them by video, then time)."""
        self.notes = notes
        self.tree.clear()
        self.label.setText(f"{len(notes)} open note{'s' * (len(notes) != 1)}" if notes else "No open notes.")
        by_video: dict[str, list[int]] = {}
        for n, note in enumerate(notes):
            by_video.setdefault(note.path, []).append(n)
        for path, numbers in by_video.items():
            count = f"{len(numbers)} open note{'s' * (len(numbers) != 1)}"
            head = QTreeWidgetItem([f"{os.path.basename(path)} — {count}"])
            head.setToolTip(0, path)
            head.setData(0, Qt.UserRole, numbers[0])  # the video's row opens it at its first note
            self.tree.addTopLevelItem(head)
            for n in numbers:
                self._add_item(head, n, notes[n])
            head.setExpanded(True)

    def _add_item(self, head: QTreeWidgetItem, n: int, note: LibraryNote) -> None:
        snippet = note.text if len(note.text) <= 140 else note.text[:139] + "…"
        item = QTreeWidgetItem(head, [f"{note.when()}  {note.tag}" + (f" · {note.author}" if note.author else "")
                                      + f"\n{snippet}"])
        item.setIcon(0, tag_icon(note.tag))
        item.setToolTip(0, note.text)
        item.setData(0, Qt.UserRole, n)

    def _open(self, item: QTreeWidgetItem) -> None:
        note = self.notes[item.data(0, Qt.UserRole)]
        self.openRequested.emit(note.path, note.start)
        self.message.emit(f"Note in {os.path.basename(note.path)} at {note.when()}: {note.text[:80]}")
