"""Drawing on the paused frame: the layer over the video that turns mouse drags into a
note's shapes (pen, arrow, rectangle, ellipse, text) in normalised frame coordinates.

The Notes panel starts and ends it (``start`` / ``finish``); while it is active the
layer takes the mouse, so a click draws instead of picking a face.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtWidgets import QGraphicsObject, QInputDialog

from ...records import Shape
from .shapes import paint_shapes

TOOLS = ("stroke", "arrow", "rect", "ellipse", "text")
TOOL_NAMES = {"stroke": "Pen", "arrow": "Arrow", "rect": "Rectangle", "ellipse": "Ellipse", "text": "Text"}
MIN_STEP = 0.003  # a pen point closer than this to the last one (share of the frame) is not kept


class DrawingLayer(QGraphicsObject):
    changed = Signal()  # the shapes changed (one added or undone)

    def __init__(self) -> None:
        super().__init__()
        self.setZValue(10)
        self.rect = QRectF()
        self.shapes: list[Shape] = []
        self.tool, self.color = "arrow", "#ff3b30"
        self._points: list[tuple[float, float]] = []  # of the shape being drawn
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.hide()

    @property
    def active(self) -> bool:
        return self.isVisible()

    def set_rect(self, rect: QRectF) -> None:
        self.prepareGeometryChange()
        self.rect = rect

    def boundingRect(self) -> QRectF:
        return self.rect

    def start(self, shapes=()) -> None:
        self.shapes = list(shapes)
        self.setAcceptedMouseButtons(Qt.MouseButton.LeftButton)
        self.setCursor(Qt.CursorShape.CrossCursor)
        self.show()
        self.update()

    def finish(self) -> tuple[Shape, ...]:
        """The shapes drawn; the layer stops taking the mouse."""
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.hide()
        return tuple(self.shapes)

    def undo(self) -> None:
        if self.shapes:
            self.shapes.pop()
            self.update()
            self.changed.emit()

    def add(self, shape: Shape) -> None:
        self.shapes.append(shape)
        self.update()
        self.changed.emit()

    # -- the mouse ---------------------------------------------------------------------
    def _normalised(self, pos: QPointF) -> tuple[float, float]:
        w, h = max(1.0, self.rect.width()), max(1.0, self.rect.height())
        x, y = (pos.x() - self.rect.left()) / w, (pos.y() - self.rect.top()) / h
        return min(1.0, max(0.0, x)), min(1.0, max(0.0, y))

    def mousePressEvent(self, event) -> None:
        point = self._normalised(event.pos())
        if self.tool == "text":
            text, ok = QInputDialog.getText(None, "Text on the frame", "Text")
            if ok and text.strip():
                self.add(Shape("text", (point,), color=self.color, text=text.strip()))
            return
        self._points = [point, point]
        event.accept()

    def mouseMoveEvent(self, event) -> None:
        if not self._points:
            return
        point = self._normalised(event.pos())
        if self.tool == "stroke":
            last = self._points[-1]
            if abs(point[0] - last[0]) + abs(point[1] - last[1]) >= MIN_STEP:
                self._points.append(point)
        else:
            self._points[1] = point
        self.update()

    def mouseReleaseEvent(self, event) -> None:
        if not self._points:
            return
        shape = self._shape_drawn()
        self._points = []
        self.add(shape)

    def _shape_drawn(self) -> Shape:
        """The shape the drag so far makes (a click with the pen: a dot)."""
        points = self._points if self.tool == "stroke" else self._points[:2]
        if self.tool == "stroke" and len(points) == 2 and points[0] == points[1]:
            points = points[:1]
        return Shape(self.tool, tuple(points), color=self.color)

    def _in_progress(self) -> list[Shape]:
        return [self._shape_drawn()] if self._points else []

    def paint(self, painter, option, widget=None) -> None:
        painter.fillRect(self.rect, Qt.GlobalColor.transparent)
        paint_shapes(painter, self.rect, [*self.shapes, *self._in_progress()])
        pen = painter.pen()
        pen.setColor(Qt.GlobalColor.white)
        pen.setStyle(Qt.PenStyle.DashLine)
        pen.setWidthF(max(1.0, self.rect.width() * 0.002))
        painter.setPen(pen)
        painter.drawRect(self.rect.adjusted(1, 1, -1, -1))  # says: drawing mode
