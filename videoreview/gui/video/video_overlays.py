"""What every overlay over the picture is: an item of the video view's scene that covers
the video and draws its ``content`` (None: nothing) in the video's display pixels; sizes
are fractions of the video height, so the overlays look the same at any window size. An
overlay says what its content is at a ``Moment`` (``content_at``) and what the view's
``overlay_state`` reports of it. Each capability's overlay is in its view
(``gui/capabilities/<key>.py``); the reviewer's notes' (their text while they apply, their
drawings on their frame) is here, with what the overlays share.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter
from PySide6.QtWidgets import QGraphicsItem

from ...records import Note, Shape
from ..analysis_index import AnalysisIndex
from ..colors import EDITED_COLOR, NOTE_COLORS
from .shapes import paint_shapes

Box = tuple[float, float, float, float]
NOTE_SECONDS = 2.0  # how long a note at one frame stays on screen after it


@dataclass(frozen=True)
class OverlayStyle:
    """How the overlays look (Settings > Overlays)."""

    caption_size: float = 1.0  # times the default text height, 4.5 % of the picture's
    caption_position: str = "bottom"  # or "top" (below the boundary label)
    caption_background: float = 0.65  # opacity of the box behind the caption
    box_width: float = 2.5  # face boxes' line, in screen pixels (object boxes: 1 px)

    POSITIONS = ("bottom", "top")


@dataclass(frozen=True)
class Moment:
    """Where the picture is, for the overlays to look up what they show."""

    index: AnalysisIndex
    t: float  # seconds
    slack: float  # half a frame
    frame: int
    wanted: Callable[[str], bool]  # whether the user shows an overlay, by name


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


def text_color_on(fill: QColor) -> QColor:
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


def draw_pill(painter: QPainter, rect: QRectF, fill: QColor, text: str, font: QFont) -> None:
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(fill)
    radius = rect.height() * 0.25
    painter.drawRoundedRect(rect, radius, radius)
    painter.setFont(font)
    painter.setPen(text_color_on(fill))
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)


def edited_badge(painter: QPainter, anchor: QPointF, height: float) -> None:
    """A small violet "edited" pill whose bottom-right corner is at ``anchor``."""
    font = overlay_font(height * 0.62, QFont.Weight.DemiBold)
    width = QFontMetricsF(font).horizontalAdvance("edited") + height * 0.7
    draw_pill(painter, QRectF(anchor.x() - width, anchor.y() - height, width, height), EDITED_COLOR, "edited", font)


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

    def set_index(self, index: AnalysisIndex | None) -> None:
        """A new Analysis (None: none): for an overlay that keeps something of it."""

    def content_at(self, moment: Moment):
        """What to draw at ``moment`` (None: nothing)."""
        return None

    def state(self, content) -> dict:
        """What the view's ``overlay_state`` says of ``content`` (None when not drawn)."""
        return {}


class NotesOverlay(Overlay):
    """The reviewer's notes: their drawings on their frame, and their text, each with its
    tag colour, top left while they apply."""

    def content_at(self, moment: Moment) -> NotesShown | None:
        notes = moment.index.notes_at(moment.t, moment.slack, NOTE_SECONDS)
        return NotesShown.of(notes, moment.index.drawings_on(moment.frame))

    def state(self, notes: NotesShown | None) -> dict:
        return {"notes": [text for text, _, _ in notes.labels] if notes else [],
                "drawing": list(notes.drawings) if notes else []}

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
