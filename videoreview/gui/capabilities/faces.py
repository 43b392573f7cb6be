"""The faces in the window: a lane per identity on the timeline, the identity's page in
the Details panel (rename, merge, split a face track off, not a face) and a box per face
over the picture. A selection of this capability is an identity (its id)."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QWidget,
)

from ...pipeline import edits
from ...records import FaceDetection
from ..capability_view import CapabilityView, OverlayPart
from ..colors import identity_color
from ..labels import identity_label
from ..panels.details_page import DetailsPage, find, page_layout
from ..timeline.tracks.identities import IdentityTrack
from ..video.video_overlays import Box, Moment, Overlay, overlay_font, text_color_on

FACE_HOLD_SECONDS = 0.6  # faces are sampled every ~0.5 s: a detection stands until then
UNASSIGNED_COLOR = QColor("#9aa0a6")


class IdentityPage(DetailsPage):
    def build(self) -> QWidget:
        page = QWidget()
        panel = self.panel
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("name (empty: just the id)")
        rename = QPushButton("Rename")
        rename.clicked.connect(lambda: panel.edit(f"Rename {panel.key}", edits.rename_identity, panel.key,
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
        layout = page_layout(page)
        layout.addLayout(form)
        layout.addWidget(QLabel("Face tracks"))
        layout.addWidget(self.tracks)
        layout.addLayout(track_buttons)
        return page

    def _merge(self) -> None:
        other = self.merge_with.currentData()
        if other:
            self.panel.edit(f"Merge {other} into {self.panel.key}", edits.merge_identities, self.panel.key, other)

    def _track_action(self, text: str, edit) -> None:
        item = self.tracks.currentItem()
        if item is not None:
            self.panel.edit(text, edit, item.data(Qt.UserRole))

    def record(self, analysis, key):
        return find(analysis.identities, "id", key)

    def show(self, identity) -> None:
        panel = self.panel
        seen = sum(a.end - a.start for a in identity.appearances)
        panel.title.setText(f"<b>{identity_label(identity.id, identity.name)}</b>")
        panel.info.setText(f"on screen {seen:.1f} s in {len(identity.appearances)} spans, "
                           f"{len(identity.track_ids)} face tracks")
        self.name_edit.setText(identity.name or "")
        self.merge_with.clear()
        for other in panel.analysis.identities:
            if other.id != identity.id:
                self.merge_with.addItem(identity_label(other.id, other.name), other.id)
        self.tracks.clear()
        tracks = {t.id: t for t in panel.analysis.face_tracks}
        for track_id in identity.track_ids:
            track = tracks.get(track_id)
            if track is None:
                continue
            item = QListWidgetItem(f"track {track_id}: {panel.time_text(track.start)}–{panel.time_text(track.end)}, "
                                   f"{track.faces} faces")
            item.setData(Qt.UserRole, track_id)
            self.tracks.addItem(item)
        if self.tracks.count():
            self.tracks.setCurrentRow(0)


@dataclass(frozen=True)
class FaceShown:
    label: str
    box: Box
    color: QColor
    face: FaceDetection  # what a click on the box picks


def face_label(face: FaceDetection, names: dict[str, str]) -> str:
    """The tab over a face box: its identity's label, "?" for a face of no identity."""
    return "?" if face.identity is None else identity_label(face.identity, names.get(face.identity))


class FaceOverlay(Overlay):
    """A box per face in its identity's colour, with a name tab above it."""

    def content_at(self, moment: Moment) -> tuple[FaceShown, ...] | None:
        index = moment.index
        faces = tuple(FaceShown(face_label(face, index.names), tuple(face.box),
                                identity_color(face.identity) if face.identity else UNASSIGNED_COLOR, face)
                      for face in index.faces_at(moment.t, moment.slack, FACE_HOLD_SECONDS))
        return faces or None

    def state(self, faces: tuple[FaceShown, ...] | None) -> dict:
        return {"faces": [(face.label, face.box) for face in faces or ()]}

    def paint(self, painter, option, widget=None) -> None:
        faces: tuple[FaceShown, ...] | None = self.content
        if not faces:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        font = overlay_font(max(9.0, self.rect.height() * 0.03), QFont.Weight.DemiBold)
        metrics = QFontMetricsF(font)
        for face in faces:
            box = QRectF(*face.box)
            # Box lines stay the same on screen at any zoom; a dark halo keeps them visible
            # on light backgrounds.
            line = self.style.box_width
            for color, width in ((QColor(0, 0, 0, 110), line + 2.5), (face.color, line)):
                pen = QPen(color, width)
                pen.setCosmetic(True)
                painter.setPen(pen)
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(box)
            pad = font.pixelSize() * 0.35
            tab = QRectF(0, 0, metrics.horizontalAdvance(face.label) + 2 * pad, metrics.height() + pad * 0.4)
            tab.moveBottomLeft(box.topLeft())
            if tab.top() < self.rect.top():  # no room above: hang it inside the box
                tab.moveTopLeft(box.topLeft())
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(face.color)
            painter.drawRect(tab)
            painter.setFont(font)
            painter.setPen(text_color_on(face.color))
            painter.drawText(tab, Qt.AlignmentFlag.AlignCenter, face.label)


VIEW = CapabilityView(
    key="faces",
    tracks=(IdentityTrack,),
    row=90,
    page=IdentityPage,
    overlay=OverlayPart("Faces", "Face boxes", "Alt+3", FaceOverlay, z=1, place=3),
)
