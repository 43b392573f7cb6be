"""The video picture with the analysis drawn over it: what is said as subtitles, captions,
a flash and a label at each boundary, boxes around the faces, and the reviewer's notes
(their text while they apply, their drawings on their frame).

The scene is in the video's display pixels (rotation applied), the coordinates every
record uses, and the view scales it to fit; so overlay sizes are fractions of the video
height and look the same at any window size. Overlays follow ``Player.frameShown``.
While paused, the player's own decoded frame (``Player.stillChanged``) lies over the
video item; while QMediaPlayer plays, the video item shows.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from PySide6.QtCore import QPoint, QPointF, QRectF, QSizeF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter, QPen, QPixmap, QTransform
from PySide6.QtMultimediaWidgets import QGraphicsVideoItem
from PySide6.QtWidgets import QFrame, QGraphicsItem, QGraphicsPixmapItem, QGraphicsScene, QGraphicsView

from ..records import Analysis, Boundary, FaceDetection, FrameCaption, Shape, VideoInfo
from ..summary.export.subtitles import Cue, speech_cues
from .colors import BOUNDARY_COLORS, EDITED_COLOR, NOTE_COLORS, identity_color
from .drawing_layer import DrawingLayer
from .labels import identity_label
from .player import Player
from .shapes import paint_shapes

OVERLAYS = ("captions", "boundaries", "faces", "speech", "notes")
NOTE_SECONDS = 2.0  # how long a note at one frame stays on screen after it
FLASH_SECONDS = 0.4  # how long a boundary flashes after its frame
FACE_HOLD_SECONDS = 0.6  # faces are sampled every ~0.5 s: a detection stands until then
UNASSIGNED_COLOR = QColor("#9aa0a6")
PLACEHOLDER = "Drop a video here"

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class OverlayStyle:
    """How the overlays look (Settings > Overlays)."""

    caption_size: float = 1.0  # times the default text height, 4.5 % of the picture's
    caption_position: str = "bottom"  # or "top" (below the boundary label)
    caption_background: float = 0.65  # opacity of the box behind the caption
    box_width: float = 2.5  # face boxes' line, in screen pixels

    POSITIONS = ("bottom", "top")


def _text_color_on(fill: QColor) -> QColor:
    """Black or white, whichever reads better on ``fill``."""
    luma = 0.299 * fill.red() + 0.587 * fill.green() + 0.114 * fill.blue()
    return QColor("#111111") if luma > 160 else QColor("white")


def _font(pixels: float, weight: QFont.Weight = QFont.Weight.Normal) -> QFont:
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
    font = _font(height * 0.62, QFont.Weight.DemiBold)
    width = QFontMetricsF(font).horizontalAdvance("edited") + height * 0.7
    _draw_pill(painter, QRectF(anchor.x() - width, anchor.y() - height, width, height), EDITED_COLOR, "edited", font)


@dataclass(frozen=True)
class _Caption:
    text: str
    edited: bool
    top: bool = False  # drawn at the top: the bottom holds what is said


@dataclass(frozen=True)
class _Flash:
    label: str
    color: QColor
    strength: float  # 1 on the boundary frame, fading to 0 after FLASH_SECONDS
    edited: bool


@dataclass(frozen=True)
class _Face:
    label: str
    box: Box
    color: QColor


@dataclass(frozen=True)
class _Notes:
    labels: tuple[tuple[str, str, bool], ...]  # text, tag, resolved
    drawings: tuple[Shape, ...]


class _AnalysisIndex:
    """The records of one Analysis sorted by time, for lookups by bisection."""

    def __init__(self, analysis: Analysis) -> None:
        self.captions = sorted(analysis.captions, key=lambda c: c.time)
        self.caption_times = [c.time for c in self.captions]
        self.boundaries = sorted(analysis.boundaries, key=lambda b: b.time)
        self.boundary_times = [b.time for b in self.boundaries]
        self.shot_change_times = analysis.shot_changes()
        by_time: dict[float, list[FaceDetection]] = {}
        for face in analysis.faces:
            by_time.setdefault(face.time, []).append(face)
        self.face_times = sorted(by_time)
        self.face_groups = [by_time[t] for t in self.face_times]
        self.names = {identity.id: identity.name for identity in analysis.identities}
        self.cues = speech_cues(analysis)  # what is said, as the exported subtitles have it
        self.cue_starts = [c.start for c in self.cues]
        self.notes = analysis.notes  # in time order; a few hundred at most

    # ``slack`` is half a frame: a record at the shown frame counts even if its time and
    # the frame's timestamp differ by rounding.

    def caption_at(self, t: float, slack: float) -> FrameCaption | None:
        """The latest caption up to ``t``, unless it describes a previous shot."""
        i = bisect_right(self.caption_times, t + slack) - 1
        if i < 0 or self._cut_between(self.caption_times[i], t, slack):
            return None
        return self.captions[i]

    def _cut_between(self, sampled: float, t: float, slack: float) -> bool:
        j = bisect_right(self.shot_change_times, sampled + slack)
        return j < len(self.shot_change_times) and self.shot_change_times[j] <= t + slack

    def boundary_at(self, t: float, slack: float) -> Boundary | None:
        """The boundary whose flash is on at ``t``."""
        i = bisect_right(self.boundary_times, t + slack) - 1
        if i >= 0 and t - self.boundaries[i].time < FLASH_SECONDS - slack:
            return self.boundaries[i]
        return None

    def faces_at(self, t: float, slack: float) -> list[FaceDetection]:
        """The faces of the latest sample up to ``t``, unless stale or from a previous shot."""
        i = bisect_right(self.face_times, t + slack) - 1
        if i < 0 or t - self.face_times[i] > FACE_HOLD_SECONDS + slack:
            return []
        return [] if self._cut_between(self.face_times[i], t, slack) else self.face_groups[i]

    def cue_at(self, t: float, slack: float) -> Cue | None:
        i = bisect_right(self.cue_starts, t + slack) - 1
        return self.cues[i] if i >= 0 and t < self.cues[i].end + slack else None

    def notes_at(self, t: float, frame: int, slack: float) -> _Notes | None:
        """The notes that apply at ``t`` (a range over it, a point note for NOTE_SECONDS
        after it) and the drawings of the notes on ``frame``."""
        shown = [n for n in self.notes if n.time - slack <= t <= (n.end_time + slack if n.is_range
                                                                  else n.time + NOTE_SECONDS)]
        drawings = tuple(shape for n in self.notes if n.frame == frame for shape in n.drawing)
        if not shown and not drawings:
            return None
        labels = tuple((f"{n.author}: {n.text}" if n.author else n.text, n.tag, n.status == "resolved")
                       for n in shown if n.text)
        return _Notes(labels, drawings)

    def face_label(self, face: FaceDetection) -> str:
        if face.identity is None:
            return "?"
        return identity_label(face.identity, self.names.get(face.identity))


def boundary_label(boundary: Boundary) -> str:
    """The label at a boundary: its kind, and with a caption "event: subject — before → after"."""
    caption = boundary.caption
    if caption is None:
        return boundary.kind
    return f"{boundary.kind}: {caption.subject} — {caption.before} → {caption.after}"


class _Overlay(QGraphicsItem):
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


class _CaptionOverlay(_Overlay):
    """A subtitle: white text on a translucent dark box near the bottom."""

    def paint(self, painter, option, widget=None) -> None:
        caption: _Caption | None = self.content
        if caption is None or not caption.text:
            return
        w, h = self.rect.width(), self.rect.height()
        style = self.style
        font = _font(max(10.0, h * 0.045 * style.caption_size), QFont.Weight.Medium)
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


class _SpeechOverlay(_Overlay):
    """What is being said, as subtitles: yellow on a dark box at the bottom."""

    def paint(self, painter, option, widget=None) -> None:
        text: str | None = self.content
        if not text:
            return
        w, h = self.rect.width(), self.rect.height()
        font = _font(max(10.0, h * 0.05 * self.style.caption_size), QFont.Weight.DemiBold)
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


class _BoundaryOverlay(_Overlay):
    """A coloured frame around the picture that fades, and the boundary's label on top."""

    def paint(self, painter, option, widget=None) -> None:
        flash: _Flash | None = self.content
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

        font = _font(max(9.0, h * 0.038), QFont.Weight.DemiBold)
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


class _FaceOverlay(_Overlay):
    """A box per face in its identity's colour, with a name tab above it."""

    def paint(self, painter, option, widget=None) -> None:
        faces: tuple[_Face, ...] | None = self.content
        if not faces:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        font = _font(max(9.0, self.rect.height() * 0.03), QFont.Weight.DemiBold)
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


class _NotesOverlay(_Overlay):
    """The reviewer's notes: their drawings on their frame, and their text, each with its
    tag colour, top left while they apply."""

    def paint(self, painter, option, widget=None) -> None:
        notes: _Notes | None = self.content
        if notes is None:
            return
        paint_shapes(painter, self.rect, notes.drawings)
        h = self.rect.height()
        font = _font(max(9.0, h * 0.032 * self.style.caption_size), QFont.Weight.Medium)
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


class VideoView(QGraphicsView):
    """Shows ``player``'s video fitted to the view, with the overlays of ``set_analysis``.
    A click on a face box emits ``faceClicked``; a right-click ``faceMenuRequested``."""

    faceClicked = Signal(object)  # the FaceDetection under the mouse
    faceMenuRequested = Signal(object, QPoint)  # FaceDetection, global position for a menu

    def __init__(self, player: Player | None = None, parent=None) -> None:
        super().__init__(parent)
        self._shown_faces: tuple[FaceDetection, ...] = ()
        self.player = player if player is not None else Player(self)
        self.setScene(QGraphicsScene(self))
        self.video_item = QGraphicsVideoItem()
        self.video_item.setAspectRatioMode(Qt.AspectRatioMode.KeepAspectRatio)
        self.scene().addItem(self.video_item)
        self.still_item = QGraphicsPixmapItem()  # the paused frame, from our decoder
        self.still_item.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
        self.still_item.setZValue(0.5)  # over the video item, under the overlays
        self.still_item.hide()
        self.scene().addItem(self.still_item)
        self._overlays: dict[str, _Overlay] = {
            "faces": _FaceOverlay(1),
            "boundaries": _BoundaryOverlay(2),
            "captions": _CaptionOverlay(3),
            "speech": _SpeechOverlay(4),
            "notes": _NotesOverlay(5),
        }
        for item in self._overlays.values():
            self.scene().addItem(item)
        self.drawing = DrawingLayer()  # over everything, while a note's drawing is edited
        self.scene().addItem(self.drawing)
        self._wanted = {name: True for name in OVERLAYS}
        self._index: _AnalysisIndex | None = None
        self._set_video_size(1280, 720)

        self.setBackgroundBrush(QColor("black"))
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing
                            | QPainter.RenderHint.SmoothPixmapTransform)
        self.setMinimumSize(160, 90)

        self.player.set_video_output(self.video_item)
        self.player.videoChanged.connect(self._on_video_changed)
        self.player.frameShown.connect(self._refresh)
        self.player.stillChanged.connect(self._show_still)
        self._on_video_changed(self.player.video_info())

    # ------------------------------------------------------------------ public

    def shown_image(self) -> QImage:
        """The picture on screen now, without the overlays (null when there is none)."""
        if self.still_item.isVisible():
            return self.still_item.pixmap().toImage()
        return self.video_item.videoSink().videoFrame().toImage()

    def set_analysis(self, analysis: Analysis | None) -> None:
        """Overlays from ``analysis`` (may be partial; call again as stages finish)."""
        self._index = _AnalysisIndex(analysis) if analysis is not None else None
        self._refresh()

    def set_style(self, style: OverlayStyle) -> None:
        for item in self._overlays.values():
            item.style = style
            item.update()

    def style(self) -> OverlayStyle:
        return self._overlays["captions"].style

    def set_overlay_visible(self, name: str, on: bool) -> None:
        self._check_name(name)
        self._wanted[name] = on
        self._overlays[name].setVisible(on and self.player.video_info() is not None)
        self._refresh()  # the caption moves down when the speech subtitles go

    def overlay_visible(self, name: str) -> bool:
        self._check_name(name)
        return self._wanted[name]

    def overlay_state(self) -> dict:
        """What the overlays draw now: ``caption`` text, ``caption_edited``, ``boundary``
        label, ``speech`` (None when not drawn), ``faces`` as [(label, (x, y, w, h)), ...],
        ``notes`` (the texts shown) and ``drawing`` (the shapes drawn)."""

        def drawn(name: str):
            item = self._overlays[name]
            return item.content if item.isVisible() else None

        caption: _Caption | None = drawn("captions")
        flash: _Flash | None = drawn("boundaries")
        faces: tuple[_Face, ...] = drawn("faces") or ()
        notes: _Notes | None = drawn("notes")
        return {
            "caption": caption.text if caption else None,
            "caption_edited": bool(caption and caption.edited),
            "boundary": flash.label if flash else None,
            "faces": [(face.label, face.box) for face in faces],
            "speech": drawn("speech"),
            "notes": [text for text, _, _ in notes.labels] if notes else [],
            "drawing": list(notes.drawings) if notes else [],
        }

    def face_at(self, pos: QPoint) -> FaceDetection | None:
        """The face whose box is drawn under ``pos`` (view coordinates), if any."""
        if not self.overlay_visible("faces"):
            return None
        point = self.mapToScene(pos)
        for face in self._shown_faces:
            x, y, w, h = face.box
            if x <= point.x() <= x + w and y <= point.y() <= y + h:
                return face
        return None

    def mousePressEvent(self, event) -> None:
        picking = event.button() == Qt.MouseButton.LeftButton and not self.drawing.active
        face = self.face_at(event.position().toPoint()) if picking else None
        if face is not None:
            self.faceClicked.emit(face)
        super().mousePressEvent(event)

    def contextMenuEvent(self, event) -> None:
        face = self.face_at(event.pos())
        if face is not None:
            self.faceMenuRequested.emit(face, event.globalPos())

    # ---------------------------------------------------------------- internals

    @staticmethod
    def _check_name(name: str) -> None:
        if name not in OVERLAYS:
            raise ValueError(f"unknown overlay {name!r}; one of {', '.join(OVERLAYS)}")

    def _show_still(self, image: QImage | None) -> None:
        if image is None:
            self.still_item.hide()
            return
        self.still_item.setPixmap(QPixmap.fromImage(image))
        self._fit_still()
        self.still_item.show()

    def _fit_still(self) -> None:
        """The still (decoded at most STILL_MAX_HEIGHT high) stretched over the video's rect."""
        pixmap, rect = self.still_item.pixmap(), self.sceneRect()
        if not pixmap.isNull():
            self.still_item.setTransform(QTransform.fromScale(rect.width() / pixmap.width(),
                                                              rect.height() / pixmap.height()))

    def _set_video_size(self, width: int, height: int) -> None:
        rect = QRectF(0, 0, width, height)
        self.scene().setSceneRect(rect)
        self.video_item.setSize(QSizeF(width, height))
        self._fit_still()
        for item in self._overlays.values():
            item.set_rect(rect)
        self.drawing.set_rect(rect)
        self._fit()

    def _on_video_changed(self, info: VideoInfo | None) -> None:
        if info is not None:
            self._set_video_size(info.width, info.height)
        for name, item in self._overlays.items():
            item.setVisible(info is not None and self._wanted[name])
            item.set_content(None)
        self.viewport().update()  # the placeholder comes and goes

    def _refresh(self, *_) -> None:
        info = self.player.video_info()
        index = self._index
        if info is None or index is None or self.player.current_frame() < 0:
            self._shown_faces = ()
            for item in self._overlays.values():
                item.set_content(None)
            return
        t = self.player.current_time()
        slack = 0.5 / info.fps
        cue = index.cue_at(t, slack) if self._wanted["speech"] else None
        self._overlays["speech"].set_content(cue.text if cue else None)
        caption = index.caption_at(t, slack)
        self._overlays["captions"].set_content(_Caption(caption.text, caption.edited, top=cue is not None)
                                               if caption else None)
        boundary = index.boundary_at(t, slack)
        flash = None
        if boundary is not None:
            strength = min(1.0, max(0.0, 1 - (t - boundary.time) / FLASH_SECONDS))
            flash = _Flash(boundary_label(boundary), BOUNDARY_COLORS[boundary.kind], strength, boundary.edited)
        self._overlays["boundaries"].set_content(flash)
        self._shown_faces = tuple(index.faces_at(t, slack))
        faces = tuple(
            _Face(index.face_label(face), tuple(face.box),
                  identity_color(face.identity) if face.identity else UNASSIGNED_COLOR)
            for face in self._shown_faces
        )
        self._overlays["faces"].set_content(faces or None)
        self._overlays["notes"].set_content(index.notes_at(t, self.player.current_frame(), slack))

    def _fit(self) -> None:
        """Scale the scene (the video) to fill the view, aspect kept."""
        rect = self.sceneRect()
        view = self.viewport().rect()
        if rect.isEmpty() or view.isEmpty():
            return
        scale = min(view.width() / rect.width(), view.height() / rect.height())
        self.setTransform(QTransform.fromScale(scale, scale))
        self.centerOn(rect.center())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        if self.player.video_info() is not None:
            return
        painter.save()
        painter.resetTransform()  # viewport pixels
        painter.setPen(QColor("#8a8f98"))
        painter.setFont(_font(max(12.0, min(24.0, self.viewport().height() * 0.05))))
        painter.drawText(self.viewport().rect(), Qt.AlignmentFlag.AlignCenter, PLACEHOLDER)
        painter.restore()
