"""The boundaries (shots and events) in the window: their track (a mark per boundary,
dragged to move it), their page in the Details panel (kind, caption, move, delete) and a
flash with the boundary's label over the picture."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QComboBox, QFormLayout, QHBoxLayout, QLineEdit, QPushButton, QWidget

from ...pipeline import edits
from ...records import BOUNDARY_KINDS, Boundary
from ..capability_view import CapabilityView, OverlayPart
from ..colors import BOUNDARY_COLORS
from ..panels.details_page import DetailsPage, find, page_layout
from ..timeline.tracks.markers import BoundaryTrack
from ..video.video_overlays import Moment, Overlay, draw_pill, edited_badge, overlay_font

FLASH_SECONDS = 0.4  # how long a boundary flashes after its frame


class BoundaryPage(DetailsPage):
    def build(self) -> QWidget:
        page = QWidget()
        self.kind = QComboBox()
        self.kind.addItems(BOUNDARY_KINDS)
        self.kind.activated.connect(lambda: self.panel.edit(
            "Change boundary kind", edits.set_boundary_kind, self.panel.key, self.kind.currentText()))
        self.subject, self.before, self.after = QLineEdit(), QLineEdit(), QLineEdit()
        form = QFormLayout()
        form.addRow("Kind", self.kind)
        form.addRow("Subject", self.subject)
        form.addRow("Before", self.before)
        form.addRow("After", self.after)
        save = QPushButton("Save caption")
        save.clicked.connect(lambda: self.panel.edit("Edit boundary caption", edits.edit_boundary_caption,
                                                     self.panel.key, self.subject.text(), self.before.text(),
                                                     self.after.text()))
        move = QPushButton("Move to playhead")
        move.clicked.connect(self._move_to_playhead)
        delete = QPushButton("Delete boundary")
        delete.clicked.connect(self._delete)
        form.addRow("", save)
        buttons = QHBoxLayout()  # under the form: the dock stays narrow enough for a 1280 px window
        buttons.addWidget(move)
        buttons.addWidget(delete)
        layout = page_layout(page)
        layout.addLayout(form)
        layout.addLayout(buttons)
        return page

    def _move_to_playhead(self) -> None:
        panel = self.panel
        seconds = panel.playhead()
        panel.edit("Move boundary", edits.move_boundary, panel.key, seconds)
        if panel.analysis is not None:
            panel.selectRequested.emit("boundaries", edits.frame_at(panel.analysis, seconds))

    def _delete(self) -> None:
        self.panel.edit("Delete boundary", edits.delete_boundary, self.panel.key)
        self.panel.selectRequested.emit("", None)

    def record(self, analysis, key):
        return find(analysis.boundaries, "frame", key)

    def show(self, boundary) -> None:
        panel = self.panel
        panel.title.setText(f"<b>{boundary.kind.capitalize()} boundary</b> at {panel.time_text(boundary.time)} "
                            f"(frame {boundary.frame})")
        panel.info.setText(f"{panel.by(boundary.engine, 'boundaries')}, confidence {boundary.confidence:.2f}")
        self.kind.setCurrentText(boundary.kind)
        caption = boundary.caption
        for edit, value in ((self.subject, caption.subject if caption else ""),
                            (self.before, caption.before if caption else ""),
                            (self.after, caption.after if caption else "")):
            edit.setText(value)


@dataclass(frozen=True)
class Flash:
    label: str
    color: QColor
    strength: float  # 1 on the boundary frame, fading to 0 FLASH_SECONDS later
    edited: bool


def boundary_label(boundary: Boundary) -> str:
    """The label at a boundary: its kind, and with a caption "event: subject — before → after"."""
    caption = boundary.caption
    if caption is None:
        return boundary.kind
    return f"{boundary.kind}: {caption.subject} — {caption.before} → {caption.after}"


class BoundaryOverlay(Overlay):
    """A coloured frame around the picture that fades, and the boundary's label on top."""

    def content_at(self, moment: Moment) -> Flash | None:
        boundary = moment.index.boundary_at(moment.t, moment.slack, FLASH_SECONDS)
        if boundary is None:
            return None
        strength = min(1.0, max(0.0, 1 - (moment.t - boundary.time) / FLASH_SECONDS))
        return Flash(boundary_label(boundary), BOUNDARY_COLORS[boundary.kind], strength, boundary.edited)

    def state(self, flash: Flash | None) -> dict:
        return {"boundary": flash.label if flash else None}

    def paint(self, painter, option, widget=None) -> None:
        flash: Flash | None = self.content
        if flash is None:
            return
        w, h = self.rect.width(), self.rect.height()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        edge = max(3.0, h * 0.014)
        for width, alpha in ((edge * 2.6, 0.28), (edge, 1.0)):  # soft glow, then the solid edge
            color = QColor(flash.color)
            color.setAlphaF(alpha * flash.strength)
            painter.setPen(QPen(color, width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.SquareCap,
                                Qt.PenJoinStyle.MiterJoin))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(self.rect.adjusted(width / 2, width / 2, -width / 2, -width / 2))

        font = overlay_font(max(9.0, h * 0.038), QFont.Weight.DemiBold)
        metrics = QFontMetricsF(font)
        pad = font.pixelSize() * 0.6
        text = metrics.elidedText(flash.label, Qt.TextElideMode.ElideRight, w * 0.9 - 2 * pad)
        pill = QRectF(0, 0, metrics.horizontalAdvance(text) + 2 * pad, metrics.height() + pad * 0.6)
        pill.moveCenter(QPointF(w / 2, 0))
        pill.moveTop(edge * 2.6 + h * 0.01)
        fill = QColor(flash.color)
        fill.setAlpha(235)
        draw_pill(painter, pill, fill, text, font)
        if flash.edited:
            edited_badge(painter, QPointF(pill.right(), pill.bottom() + pill.height() * 0.75),
                          pill.height() * 0.65)


VIEW = CapabilityView(
    key="boundaries",
    tracks=(BoundaryTrack,),
    row=30,
    page=BoundaryPage,
    overlay=OverlayPart("Boundaries", "Boundary overlay", "Alt+2", BoundaryOverlay, z=2, place=2),
)
