"""The video picture with the analysis drawn over it: an item per row of overlay_table.py
(each capability's overlay, from its view in gui/capabilities/, and the reviewer's notes).

The scene is in the video's display pixels (rotation applied), the coordinates every
record uses, and the view scales it to fit. Overlays follow ``Player.frameShown``: at each
frame each overlay looks up what is on screen then in the Analysis's index
(analysis_index.py, shared with the timeline). While paused, the player's own decoded frame
(``Player.stillChanged``) lies over the video item; while QMediaPlayer plays, the video
item shows.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QRectF, QSizeF, Qt, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPixmap, QTransform
from PySide6.QtMultimediaWidgets import QGraphicsVideoItem
from PySide6.QtWidgets import QFrame, QGraphicsPixmapItem, QGraphicsScene, QGraphicsView

from ...records import Analysis, FaceDetection, VideoInfo
from ..analysis_index import AnalysisIndex
from .drawing_layer import DrawingLayer
from .overlay_table import overlay_names, overlay_rows
from .player import Player
from .video_overlays import Moment, Overlay, OverlayStyle, overlay_font

AUTO_OBJECTS_MIN_H = 400  # until the user chooses, object boxes show on a picture at least this high
PLACEHOLDER = "Drop a video here"


class VideoView(QGraphicsView):
    """Shows ``player``'s video fitted to the view, with the overlays of ``set_analysis``.
    A click on a face box emits ``faceClicked``; a right-click ``faceMenuRequested``."""

    faceClicked = Signal(object)  # the FaceDetection under the mouse
    faceMenuRequested = Signal(object, QPoint)  # FaceDetection, global position for a menu
    objectsShownChanged = Signal(bool)  # the object boxes came or went with the picture's size (auto)

    def __init__(self, player: Player | None = None, parent=None) -> None:
        super().__init__(parent)
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
        self._overlays: dict[str, Overlay] = {row.name: row.item(row.z) for row in overlay_rows()}
        for item in self._overlays.values():
            self.scene().addItem(item)
        self.drawing = DrawingLayer()  # over everything, while a note's drawing is edited
        self.scene().addItem(self.drawing)
        self._wanted = {name: True for name in self._overlays}
        self._objects_auto = False  # object boxes follow the picture's height (set_objects_auto)
        self._index: AnalysisIndex | None = None
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

    def picture_rect(self) -> QRect:
        """Where the picture is drawn, in the view's pixels (empty while hidden)."""
        if not self.isVisible():
            return QRect()
        return self.mapFromScene(self.sceneRect()).boundingRect().intersected(self.viewport().rect())

    def set_analysis(self, analysis: Analysis | None) -> None:
        """Overlays from ``analysis`` (may be partial; call again as stages finish)."""
        self._index = AnalysisIndex.of(analysis) if analysis is not None else None
        for item in self._overlays.values():
            item.set_index(self._index)
        self._refresh()

    def set_style(self, style: OverlayStyle) -> None:
        for item in self._overlays.values():
            item.style = style
            item.update()

    def style(self) -> OverlayStyle:
        return self._overlays["captions"].style

    def set_overlay_visible(self, name: str, on: bool) -> None:
        """Show or hide an overlay: the user's choice (for the objects, auto no more)."""
        self._check_name(name)
        if name == "objects":
            self._objects_auto = False
        self._show_overlay(name, on)

    def set_objects_auto(self, on: bool = True) -> None:
        """Object boxes only while the picture is at least AUTO_OBJECTS_MIN_H pixels high:
        on a small picture they hide what they name."""
        self._objects_auto = on
        self._follow_picture_size()

    def objects_auto(self) -> bool:
        return self._objects_auto

    def picture_height(self) -> float:
        """The picture's height on screen, in pixels."""
        return self.sceneRect().height() * self.transform().m22()

    def _follow_picture_size(self) -> None:
        if self._objects_auto:
            on = self.picture_height() >= AUTO_OBJECTS_MIN_H
            if on != self._wanted["objects"]:
                self._show_overlay("objects", on)
                self.objectsShownChanged.emit(on)

    def _show_overlay(self, name: str, on: bool) -> None:
        self._wanted[name] = on
        self._overlays[name].setVisible(on and self.player.video_info() is not None)
        self._refresh()  # the caption moves down when the speech subtitles go

    def overlay_visible(self, name: str) -> bool:
        self._check_name(name)
        return self._wanted[name]

    def overlay_state(self) -> dict:
        """What the overlays draw now: ``caption`` text, ``caption_edited``, ``boundary``
        label, ``speech`` (None when not drawn), ``faces`` as [(label, (x, y, w, h)), ...],
        ``notes`` (the texts shown) and ``drawing`` (the shapes drawn): each overlay's ``state``."""
        state: dict = {}
        for item in self._overlays.values():
            state.update(item.state(item.content if item.isVisible() else None))
        return state

    def object_boxes(self) -> list[tuple[str, tuple[float, float, float, float]]]:
        """The object boxes drawn now, as [(label, (x, y, w, h)), ...] ([] when hidden)."""
        item = self._overlays["objects"]
        shown = (item.content if item.isVisible() else None) or ()
        return [(o.label, o.box) for o in shown]

    def shown_faces(self) -> tuple[FaceDetection, ...]:
        """The faces whose boxes the faces overlay has now (drawn or hidden)."""
        return tuple(shown.face for shown in self._overlays["faces"].content or ())

    def face_at(self, pos: QPoint) -> FaceDetection | None:
        """The face whose box is drawn under ``pos`` (view coordinates), if any."""
        if not self.overlay_visible("faces"):
            return None
        point = self.mapToScene(pos)
        for face in self.shown_faces():
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
        if name not in overlay_names():
            raise ValueError(f"unknown overlay {name!r}; one of {', '.join(overlay_names())}")

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
            for item in self._overlays.values():
                item.set_content(None)
            return
        moment = Moment(index, self.player.current_time(), 0.5 / info.fps, self.player.current_frame(),
                        self._wanted.__getitem__)
        for item in self._overlays.values():
            item.set_content(item.content_at(moment))

    def _fit(self) -> None:
        """Scale the scene (the video) to fill the view, aspect kept."""
        rect = self.sceneRect()
        view = self.viewport().rect()
        if rect.isEmpty() or view.isEmpty():
            return
        scale = min(view.width() / rect.width(), view.height() / rect.height())
        self.setTransform(QTransform.fromScale(scale, scale))
        self.centerOn(rect.center())
        self._follow_picture_size()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        if self.player.video_info() is not None:
            return
        painter.save()
        painter.resetTransform()  # viewport pixels
        painter.setPen(QColor("#8a8f98"))
        painter.setFont(overlay_font(max(12.0, min(24.0, self.viewport().height() * 0.05))))
        painter.drawText(self.viewport().rect(), Qt.AlignmentFlag.AlignCenter, PLACEHOLDER)
        painter.restore()
