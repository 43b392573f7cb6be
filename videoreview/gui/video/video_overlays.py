"""What the video view draws over the picture, each an item of its scene: what is said
as subtitles, the caption, a flash and a label at each boundary, boxes around the faces
and around the objects found, and the reviewer's notes (their text while they apply,
their drawings on their frame).

Each item covers the video and draws its ``content`` (None: nothing) in the video's
display pixels; sizes are fractions of the video height, so the overlays look the same
at any window size. What the content is at a moment is the video view's business.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem

from ...records import Boundary, Note, Shape
from ..colors import EDITED_COLOR, NOTE_COLORS
from .shapes import paint_shapes

Box = tuple[float, float, float, float]
MIN_LABEL_PX = 10.0  # object labels' smallest text height on screen


@dataclass(frozen=True)
class OverlayStyle:
    """How the overlays look (Settings > Overlays)."""

    caption_size: float = 1.0  # times the default text height, 4.5 % of the picture's
    caption_position: str = "bottom"  # or "top" (below the boundary label)
    caption_background: float = 0.65  # opacity of the box behind the caption
    box_width: float = 2.5  # face boxes' line, in screen pixels (object boxes: 1 px)

    POSITIONS = ("bottom", "top")


# What each overlay shows at a moment (its ``content``).


@dataclass(frozen=True)
class CaptionShown:
    text: str
    edited: bool
    top: bool = False  # drawn at the top: the bottom holds what is said


@dataclass(frozen=True)
class Flash:
    label: str
    color: QColor
    strength: float  # 1 on the boundary frame, fading to 0 (video_view's FLASH_SECONDS later)
    edited: bool


@dataclass(frozen=True)
class FaceShown:
    label: str
    box: Box
    color: QColor


@dataclass(frozen=True)
class ObjectShown:
    label: str
    box: Box
    color: QColor


@dataclass(frozen=True)
class NotesShown:
    labels: tuple[tuple[str, str, bool], ...]  # text, tag, resolved
    drawings: tuple[Shape, ...]

    @classmethod
    def of(cls, notes: list[Note], drawings: tuple[Shape, ...]) -> NotesShown | None:
        """What the notes overlay draws for the notes that apply and the drawings on the
        frame (None: nothing)."""
        if not notes and not drawings:
            return None
        labels = tuple((f"{n.author}: {n.text}" if n.author else n.text, n.tag, n.status == "resolved")
                       for n in notes if n.text)
        return cls(labels, drawings)


def boundary_label(boundary: Boundary) -> str:
    """The label at a boundary: its kind, and with a caption "event: subject — before → after"."""
    caption = boundary.caption
    if caption is None:
        return boundary.kind
    return f"{boundary.kind}: {caption.subject} — {caption.before} → {caption.after}"


def _text_color_on(fill: QColor) -> QColor:
    """Black or white, whichever reads better on ``fill``."""
    luma = 0.299 * fill.red() + 0.587 * fill.green() + 0.114 * fill.blue()
    return QColor("#111111") if luma > 160 else QColor("white")


def overlay_font(pixels: float, weight: QFont.Weight = QFont.Weight.Normal) -> QFont:
    font = QFont()
    font.setPixelSize(max(1, round(pixels)))
    font.setWeight(weight)
    # Laid out in video pixels and then scaled: hinting would make the scaled text spill.
    font.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
    return font


def _draw_pill(painter: QPainter, rect: QRectF, fill: QColor, text: str, font: QFont) -> None:
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(fill)
    radius = rect.height() * 0.25
    painter.drawRoundedRect(rect, radius, radius)
    painter.setFont(font)
    painter.setPen(_text_color_on(fill))
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)


def _edited_badge(painter: QPainter, anchor: QPointF, height: float) -> None:
    """A small violet "edited" pill whose bottom-right corner is at ``anchor``."""
    font = overlay_font(height * 0.62, QFont.Weight.DemiBold)
    width = QFontMetricsF(font).horizontalAdvance("edited") + height * 0.7
    _draw_pill(painter, QRectF(anchor.x() - width, anchor.y() - height, width, height), EDITED_COLOR, "edited", font)


class Overlay(QGraphicsItem):
    """Covers the video; draws its ``content`` (None: nothing) in video pixels."""

    def __init__(self, z: float) -> None:
        super().__init__()
        self.setZValue(z)
        self.rect = QRectF()
        self.content = None
        self.style = OverlayStyle()

    def set_rect(self, rect: QRectF) -> None:
        self.prepareGeometryChange()
        self.rect = rect

    def set_content(self, content) -> None:
        if content != self.content:
            self.content = content
            self.update()

    def boundingRect(self) -> QRectF:
        return self.rect


class CaptionOverlay(Overlay):
    """A subtitle: white text on a translucent dark box near the bottom."""

    def paint(self, painter, option, widget=None) -> None:
        caption: CaptionShown | None = self.content
        if caption is None or not caption.text:
            return
        w, h = self.rect.width(), self.rect.height()
        style = self.style
        font = overlay_font(max(10.0, h * 0.045 * style.caption_size), QFont.Weight.Medium)
        pad = font.pixelSize() * 0.5
        flags = Qt.AlignmentFlag.AlignHCenter | Qt.TextFlag.TextWordWrap
        painter.setFont(font)
        text_rect = painter.boundingRect(QRectF(0, 0, w * 0.9 - 2 * pad, h), flags, caption.text)
        box = text_rect.adjusted(-pad, -pad * 0.45, pad, pad * 0.45)
        box.moveCenter(QPointF(w / 2, 0))
        if style.caption_position == "top" or caption.top:
            box.moveTop(h * 0.13)  # clear of the boundary label
        else:
            box.moveBottom(h * 0.955)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(0, 0, 0, round(255 * style.caption_background)))
        painter.drawRoundedRect(box, pad * 0.6, pad * 0.6)
        painter.setPen(QColor("white"))
        painter.drawText(box.adjusted(pad, pad * 0.45, -pad, -pad * 0.45), flags, caption.text)
        if caption.edited:
            _edited_badge(painter, QPointF(box.right(), box.top() - pad * 0.3), font.pixelSize() * 1.0)


class SpeechOverlay(Overlay):
    """What is being said, as subtitles: yellow on a dark box at the bottom."""

    def paint(self, painter, option, widget=None) -> None:
        text: str | None = self.content
        if not text:
            return
        w, h = self.rect.width(), self.rect.height()
        font = overlay_font(max(10.0, h * 0.05 * self.style.caption_size), QFont.Weight.DemiBold)
        pad = font.pixelSize() * 0.4
        flags = Qt.AlignmentFlag.AlignHCenter | Qt.TextFlag.TextWordWrap
        painter.setFont(font)
        text_rect = painter.boundingRect(QRectF(0, 0, w * 0.86 - 2 * pad, h), flags, text)
        box = text_rect.adjusted(-pad, -pad * 0.4, pad, pad * 0.4)
        box.moveCenter(QPointF(w / 2, 0))
        box.moveBottom(h * 0.955)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(0, 0, 0, round(255 * self.style.caption_background)))
        painter.drawRoundedRect(box, pad * 0.6, pad * 0.6)
        painter.setPen(QColor("#ffe14d"))
        painter.drawText(box.adjusted(pad, pad * 0.4, -pad, -pad * 0.4), flags, text)


class BoundaryOverlay(Overlay):
    """A coloured frame around the picture that fades, and the boundary's label on top."""

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
        _draw_pill(painter, pill, fill, text, font)
        if flash.edited:
            _edited_badge(painter, QPointF(pill.right(), pill.bottom() + pill.height() * 0.75),
                          pill.height() * 0.65)


class FaceOverlay(Overlay):
    """A box per face in its identity's colour, with a name tab above it."""

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
            painter.setPen(_text_color_on(face.color))
            painter.drawText(tab, Qt.AlignmentFlag.AlignCenter, face.label)


class ObjectOverlay(Overlay):
    """A thin box per object in its label's colour, the label small on a tab inside its
    top-left corner (a face's tab sits above its box, so a person's face and body stay told
    apart); a box too small for the tab to leave it seen has none. Objects are context:
    they are drawn quieter than faces, which a reviewer acts on."""

    def paint(self, painter, option, widget=None) -> None:
        objects: tuple[ObjectShown, ...] | None = self.content
        if not objects:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)  # crisp 1 px lines (boxes are axis-aligned)
        # Smaller than a face's tab, but never under MIN_LABEL_PX on screen: a video shown
        # smaller than its size would shrink the labels past reading.
        scale = painter.worldTransform().m22() or 1.0
        font = overlay_font(max(self.rect.height() * 0.02, MIN_LABEL_PX / scale), QFont.Weight.Medium)
        metrics = QFontMetricsF(font)
        for shown in objects:
            box = QRectF(*shown.box).intersected(self.rect)
            if box.isEmpty():
                continue
            for color, width in ((QColor(0, 0, 0, 90), 2.5), (shown.color, 1.0)):
                pen = QPen(color, width)
                pen.setCosmetic(True)  # the same on screen at any zoom
                painter.setPen(pen)
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(box)
            pad = font.pixelSize() * 0.3
            if box.height() < 2.5 * (metrics.height() + pad * 0.4):
                continue  # the tab would hide the thing (a crowd far off): the box alone
            # Wider than a small box if need be, but not past the picture's right edge.
            room = max(self.rect.right() - box.left(), box.width()) - 2 * pad
            text = metrics.elidedText(shown.label, Qt.TextElideMode.ElideRight, room)
            tab = QRectF(box.left(), box.top(), metrics.horizontalAdvance(text) + 2 * pad,
                         metrics.height() + pad * 0.4)
            fill = QColor(shown.color)
            fill.setAlpha(170)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(fill)
            painter.drawRect(tab)
            painter.setFont(font)
            painter.setPen(_text_color_on(shown.color))
            painter.drawText(tab, Qt.AlignmentFlag.AlignCenter, text)


class NotesOverlay(Overlay):
    """The reviewer's notes: their drawings on their frame, and their text, each with its
    tag colour, top left while they apply."""

    def paint(self, painter, option, widget=None) -> None:
        notes: NotesShown | None = self.content
        if notes is None:
            return
        paint_shapes(painter, self.rect, notes.drawings)
        h = self.rect.height()
        font = overlay_font(max(9.0, h * 0.032 * self.style.caption_size), QFont.Weight.Medium)
        metrics = QFontMetricsF(font)
        pad, y = font.pixelSize() * 0.4, h * 0.03
        painter.setFont(font)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        for text, tag, resolved in notes.labels[:4]:
            text = metrics.elidedText(("✓ " if resolved else "") + text, Qt.TextElideMode.ElideRight,
                                      self.rect.width() * 0.6)
            box = QRectF(h * 0.03, y, metrics.horizontalAdvance(text) + 4 * pad, metrics.height() + pad)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(0, 0, 0, 170))
            painter.drawRoundedRect(box, pad, pad)
            painter.setBrush(NOTE_COLORS[tag])
            painter.drawRect(QRectF(box.left(), box.top(), pad, box.height()))
            painter.setPen(QColor("white"))
            painter.drawText(box.adjusted(2 * pad, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter, text)
            y += box.height() + pad * 0.6
