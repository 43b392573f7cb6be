"""The Details panel: what the reviewer selected on the timeline (a caption, a boundary,
an identity, what is said, a keyframe, on-screen text, an object track, a shot tag, what a
person does), with its edit controls."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ...pipeline import edits
from ...records import BOUNDARY_KINDS, Analysis
from ...timecode import timecode
from ..colors import EDITED_COLOR, status_color, swatch
from ..labels import identity_label

PROMPT = "Select a caption, boundary, identity, speech, object, shot tag or person on the timeline."


class DetailsPanel(QWidget):
    """What the reviewer selected on the timeline, with its edit controls. Edits go out as
    one signal, as the Summary panel's do; the window applies them to the document (undoable)."""

    editRequested = Signal(str, object)  # what for the undo menu, change: Analysis -> Analysis
    selectRequested = Signal(str, object)  # after an edit: kind ("" for nothing) and key to select

    def __init__(self, playhead=lambda: 0.0) -> None:
        super().__init__()
        self.playhead = playhead  # () -> seconds: where "Move to playhead" moves a boundary
        self.analysis: Analysis | None = None
        self.kind: str | None = None
        self.key = None
        self.title = QLabel(PROMPT)
        self.title.setWordWrap(True)
        self.badge = QLabel("edited")
        self.badge.setStyleSheet(f"color: white; background: {EDITED_COLOR.name()}; border-radius: 3px; "
                                 "padding: 1px 5px;")
        self.badge.hide()
        self.info = QLabel()
        self.info.setWordWrap(True)
        self.info.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.pages = QStackedWidget()
        self.pages.addWidget(QWidget())
        self.pages.addWidget(self._caption_page())
        self.pages.addWidget(self._boundary_page())
        self.pages.addWidget(self._identity_page())
        self.pages.addWidget(self._speech_page())
        self.pages.addWidget(self._person_page())
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.badge)
        layout = QVBoxLayout(self)
        layout.addLayout(head)
        layout.addWidget(self.info)
        layout.addWidget(self.pages)
        layout.addStretch(1)

    # -- pages ------------------------------------------------------------------------
    def _caption_page(self) -> QWidget:
        page = QWidget()
        self.caption_text = QPlainTextEdit()
        self.caption_text.setMaximumHeight(120)
        save = QPushButton("Save caption")
        save.clicked.connect(lambda: self._edit("Edit caption", edits.edit_caption, self.key,
                                                self.caption_text.toPlainText()))
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.caption_text)
        layout.addWidget(save)
        return page

    def _boundary_page(self) -> QWidget:
        page = QWidget()
        self.boundary_kind = QComboBox()
        self.boundary_kind.addItems(BOUNDARY_KINDS)
        self.boundary_kind.activated.connect(lambda: self._edit(
            "Change boundary kind", edits.set_boundary_kind, self.key, self.boundary_kind.currentText()))
        self.subject, self.before, self.after = QLineEdit(), QLineEdit(), QLineEdit()
        form = QFormLayout()
        form.addRow("Kind", self.boundary_kind)
        form.addRow("Subject", self.subject)
        form.addRow("Before", self.before)
        form.addRow("After", self.after)
        save = QPushButton("Save caption")
        save.clicked.connect(lambda: self._edit("Edit boundary caption", edits.edit_boundary_caption, self.key,
                                                self.subject.text(), self.before.text(), self.after.text()))
        move = QPushButton("Move to playhead")
        move.clicked.connect(self._move_to_playhead)
        delete = QPushButton("Delete boundary")
        delete.clicked.connect(self._delete_boundary)
        form.addRow("", save)
        buttons = QHBoxLayout()  # under the form: the dock stays narrow enough for a 1280 px window
        buttons.addWidget(move)
        buttons.addWidget(delete)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(form)
        layout.addLayout(buttons)
        return page

    def _identity_page(self) -> QWidget:
        page = QWidget()
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("name (empty: just the id)")
        rename = QPushButton("Rename")
        rename.clicked.connect(lambda: self._edit(f"Rename {self.key}", edits.rename_identity, self.key,
                                                  self.name_edit.text().strip()))
        self.name_edit.returnPressed.connect(rename.click)
        self.merge_with = QComboBox()
        merge = QPushButton("Merge into this")
        merge.clicked.connect(self._merge)
        self.tracks = QListWidget()
        self.tracks.setMaximumHeight(140)
        split = QPushButton("Split track off")
        split.setToolTip("This track is someone else: give it its own identity")
        split.clicked.connect(lambda: self._track_action("Split track", edits.split_track))
        not_face = QPushButton("Not a face")
        not_face.clicked.connect(lambda: self._track_action("Not a face", edits.not_a_face))
        form = QFormLayout()
        row = QHBoxLayout()
        row.addWidget(self.name_edit, 1)
        row.addWidget(rename)
        form.addRow("Name", row)
        row = QHBoxLayout()
        row.addWidget(self.merge_with, 1)
        row.addWidget(merge)
        form.addRow("Same person as", row)
        track_buttons = QHBoxLayout()
        track_buttons.addWidget(split)
        track_buttons.addWidget(not_face)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(form)
        layout.addWidget(QLabel("Face tracks"))
        layout.addWidget(self.tracks)
        layout.addLayout(track_buttons)
        return page

    def _speech_page(self) -> QWidget:
        page = QWidget()
        self.speech_text = QPlainTextEdit()
        self.speech_text.setMaximumHeight(120)
        save = QPushButton("Save text")
        save.clicked.connect(lambda: self._edit("Edit what is said", edits.edit_segment, self.key,
                                                self.speech_text.toPlainText()))
        self.speaker = QComboBox()
        self.speaker.setToolTip("Who says this")
        self.speaker.activated.connect(lambda: self._edit("Set speaker", edits.set_speaker, self.key,
                                                          self.speaker.currentData()))
        form = QFormLayout()
        form.addRow("Speaker", self.speaker)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.speech_text)
        layout.addWidget(save)
        layout.addLayout(form)
        return page

    def _person_page(self) -> QWidget:
        page = QWidget()
        self.statuses = QListWidget()
        self.statuses.setMaximumHeight(140)
        self.statuses.setToolTip("What this person does, span by span")
        # A row picked here selects its span, on the timeline too.
        self.statuses.itemClicked.connect(lambda item: self.selectRequested.emit("person", item.data(Qt.UserRole)))
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Statuses"))
        layout.addWidget(self.statuses)
        return page

    # -- edits ----------------------------------------------------------------------------
    def _edit(self, text: str, edit, *args) -> None:
        self.editRequested.emit(text, lambda analysis: edit(analysis, *args))

    def _merge(self) -> None:
        other = self.merge_with.currentData()
        if other:
            self._edit(f"Merge {other} into {self.key}", edits.merge_identities, self.key, other)

    def _track_action(self, text: str, edit) -> None:
        item = self.tracks.currentItem()
        if item is not None:
            self._edit(text, edit, item.data(Qt.UserRole))

    def _move_to_playhead(self) -> None:
        seconds = self.playhead()
        self._edit("Move boundary", edits.move_boundary, self.key, seconds)
        if self.analysis is not None:
            self.selectRequested.emit("boundary", edits.frame_at(self.analysis, seconds))

    def _delete_boundary(self) -> None:
        self._edit("Delete boundary", edits.delete_boundary, self.key)
        self.selectRequested.emit("", None)

    # -- showing a selection ------------------------------------------------------------
    def set_analysis(self, analysis: Analysis | None) -> None:
        self.analysis = analysis
        self.show_item(self.kind, self.key)

    def show_item(self, kind: str | None, key) -> None:
        self.kind, self.key = kind, key
        record = self.record(kind, key)
        if record is None:
            self.kind = self.key = None
            self.title.setText(PROMPT)
            self.info.clear()
            self.badge.hide()
            self.pages.setCurrentIndex(0)
            return
        self.badge.setVisible(bool(getattr(record, "edited", False)))
        getattr(self, f"_show_{kind}")(record)

    def record(self, kind: str | None, key):
        if self.analysis is None or kind is None:
            return None
        if kind == "text":  # on-screen text: by its place in the list
            spans = self.analysis.screen_text
            return spans[key] if isinstance(key, int) and 0 <= key < len(spans) else None
        if kind == "tag":  # a shot tag by its shot's first frame and its name
            return next((t for t in self.analysis.shot_tags if (t.frame, t.name) == key), None)
        if kind == "person":  # the person track by its id; the key's second half is the span shown
            if not isinstance(key, tuple) or len(key) != 2:
                return None
            track_id, k = key
            track = next((t for t in self.analysis.poses if t.id == track_id), None)
            return track if track is not None and (k is None or 0 <= k < len(track.statuses)) else None
        items = {"caption": self.analysis.captions, "boundary": self.analysis.boundaries,
                 "keyframe": self.analysis.keyframes, "identity": self.analysis.identities,
                 "speech": self.analysis.transcript, "object": self.analysis.object_tracks}.get(kind, ())
        attribute = {"identity": "id", "speech": "start", "object": "id"}.get(kind, "frame")
        return next((item for item in items if getattr(item, attribute) == key), None)

    def time_text(self, seconds: float) -> str:
        return timecode(seconds, self.analysis.video.fps)  # as the transport bar and timeline write times

    def _by(self, engine: str, stage: str) -> str:
        """"by ENGINE on cuda": the engine and where its stage ran (the Analysis's devices)."""
        device = self.analysis.devices.get(stage) if self.analysis is not None else None
        return f"by {engine or 'unknown engine'}" + (f" on {device}" if device else "")

    def _show_caption(self, caption) -> None:
        self.title.setText(f"<b>Caption</b> at {self.time_text(caption.time)} (frame {caption.frame})")
        self.info.setText(self._by(caption.engine, "captions"))
        self.caption_text.setPlainText(caption.text)
        self.pages.setCurrentIndex(1)

    def _show_boundary(self, boundary) -> None:
        self.title.setText(f"<b>{boundary.kind.capitalize()} boundary</b> at {self.time_text(boundary.time)} "
                           f"(frame {boundary.frame})")
        self.info.setText(f"{self._by(boundary.engine, 'boundaries')}, confidence {boundary.confidence:.2f}")
        self.boundary_kind.setCurrentText(boundary.kind)
        caption = boundary.caption
        for edit, value in ((self.subject, caption.subject if caption else ""),
                            (self.before, caption.before if caption else ""),
                            (self.after, caption.after if caption else "")):
            edit.setText(value)
        self.pages.setCurrentIndex(2)

    def _show_keyframe(self, keyframe) -> None:
        self.title.setText(f"<b>Keyframe</b> at {self.time_text(keyframe.time)} (frame {keyframe.frame})")
        self.info.setText(keyframe.reason or "")
        self.pages.setCurrentIndex(0)

    def _show_speech(self, segment) -> None:
        self.title.setText(f"<b>Speech</b> {self.time_text(segment.start)} – {self.time_text(segment.end)}")
        by = {"alone": ", speaker: the only face on screen", "reviewer": ", speaker set by the reviewer"}
        self.info.setText(f"{self._by(segment.engine, 'speech')}, language {segment.language or '?'}"
                          f"{by.get(segment.speaker_by, '')}")
        self.speech_text.setPlainText(segment.text)
        self.speaker.clear()
        self.speaker.addItem("nobody / unknown", None)
        for identity in self.analysis.identities:
            self.speaker.addItem(identity_label(identity.id, identity.name), identity.id)
        self.speaker.setCurrentIndex(max(0, self.speaker.findData(segment.speaker)))
        self.pages.setCurrentIndex(4)

    def _show_text(self, span) -> None:
        self.title.setText(f"<b>On-screen text</b> {self.time_text(span.start)} – {self.time_text(span.end)}")
        self.info.setText(f"“{span.text}”\nread {self._by(span.engine, 'screen-text')}, confidence {span.score:.2f}")
        self.pages.setCurrentIndex(0)

    def _show_identity(self, identity) -> None:
        seen = sum(a.end - a.start for a in identity.appearances)
        self.title.setText(f"<b>{identity_label(identity.id, identity.name)}</b>")
        self.info.setText(f"on screen {seen:.1f} s in {len(identity.appearances)} spans, "
                          f"{len(identity.track_ids)} face tracks")
        self.name_edit.setText(identity.name or "")
        self.merge_with.clear()
        for other in self.analysis.identities:
            if other.id != identity.id:
                self.merge_with.addItem(identity_label(other.id, other.name), other.id)
        self.tracks.clear()
        tracks = {t.id: t for t in self.analysis.face_tracks}
        for track_id in identity.track_ids:
            track = tracks.get(track_id)
            if track is None:
                continue
            item = QListWidgetItem(f"track {track_id}: {self.time_text(track.start)}–{self.time_text(track.end)}, "
                                   f"{track.faces} faces")
            item.setData(Qt.UserRole, track_id)
            self.tracks.addItem(item)
        if self.tracks.count():
            self.tracks.setCurrentRow(0)
        self.pages.setCurrentIndex(3)

    def _show_object(self, track) -> None:
        self.title.setText(f"<b>{track.label.capitalize()}</b> {self.time_text(track.start)} – "
                           f"{self.time_text(track.end)}")
        seen = f" in {track.detections} samples" if track.detections else ""
        self.info.setText(f"Object track {track.id}, mean score {track.score:.2f}{seen}\n"
                          f"found {self._by(track.engine or self.analysis.engines.get('objects', ''), 'objects')}")
        self.pages.setCurrentIndex(0)

    def _show_tag(self, tag) -> None:
        self.title.setText(f"<b>{tag.name[:1].upper() + tag.name[1:]}</b> in the shot {self.time_text(tag.start)} – "
                           f"{self.time_text(tag.end)}")
        others = sorted((t for t in self.analysis.shot_tags if t.frame == tag.frame and t is not tag),
                        key=lambda t: -t.score)
        also = f"\nAlso named in this shot: {', '.join(f'{t.name} ({t.score:.2f})' for t in others)}" if others else ""
        self.info.setText(f"Shot tag, probability {tag.score:.2f}: the model's own that the name describes the "
                          f"picture, averaged over the shot's frames\nnamed by {tag.engine or 'unknown engine'}{also}")
        self.pages.setCurrentIndex(0)

    def _show_person(self, track) -> None:
        k = self.key[1]
        names = {identity.id: identity.name for identity in self.analysis.identities}
        who = identity_label(track.identity, names.get(track.identity)) if track.identity else "Person"
        if k is None:
            self.title.setText(f"<b>{who}</b> {self.time_text(track.start)} – {self.time_text(track.end)}")
        else:
            span = track.statuses[k]
            self.title.setText(f"<b>{who}</b> {span.status} {self.time_text(span.start)} – "
                               f"{self.time_text(span.end)}")
        named = "named by their face" if track.identity else "no face named them"
        self.info.setText(f"Seen {self.time_text(track.start)} – {self.time_text(track.end)} in {track.samples} "
                          f"samples, mean score {track.score:.2f}, {named}\n"
                          f"found {self._by(track.engine or self.analysis.engines.get('poses', ''), 'poses')}")
        self.statuses.clear()
        for j, span in enumerate(track.statuses):
            item = QListWidgetItem(f"{span.status}: {self.time_text(span.start)} – {self.time_text(span.end)}")
            item.setData(Qt.UserRole, (track.id, j))
            item.setIcon(swatch(status_color(span.status)))  # as the People track colours it
            self.statuses.addItem(item)
        if k is not None:
            self.statuses.setCurrentRow(k)
        self.pages.setCurrentIndex(5)
