"""A note's drawing painted with QPainter: the same shapes on the video overlay and in the
drawing editor. Points are normalised (0..1 of the frame), so ``rect`` (the frame in the
painter's coordinates) scales them."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPen, QPolygonF

from ...records import Shape

TEXT_HEIGHT = 0.045  # a text shape's height, as a share of the frame's height


def _point(rect: QRectF, xy: tuple[float, float]) -> QPointF:
    return QPointF(rect.left() + xy[0] * rect.width(), rect.top() + xy[1] * rect.height())


def paint_shapes(painter: QPainter, rect: QRectF, shapes) -> None:
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    for shape in shapes:
        paint_shape(painter, rect, shape)
    painter.restore()


def paint_shape(painter: QPainter, rect: QRectF, shape: Shape) -> None:
    colour = QColor(shape.color)
    pen = QPen(colour, max(1.0, shape.width * rect.width()), Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap,
               Qt.PenJoinStyle.RoundJoin)
    painter.setPen(pen)
    points = [_point(rect, p) for p in shape.points]
    if shape.kind == "stroke":
        path = QPainterPath(points[0])
        for p in points[1:]:
            path.lineTo(p)
        if len(points) == 1:
            path.lineTo(points[0] + QPointF(0.01, 0))  # a dot
        painter.drawPath(path)
    elif shape.kind in ("rect", "ellipse"):
        box = QRectF(points[0], points[1]).normalized()
        painter.drawRect(box) if shape.kind == "rect" else painter.drawEllipse(box)
    elif shape.kind == "arrow":
        tail, head = points
        painter.drawLine(tail, head)
        angle = math.atan2(head.y() - tail.y(), head.x() - tail.x())
        size = max(pen.widthF() * 4, rect.width() * 0.02)
        wings = [head - QPointF(size * math.cos(angle + a), size * math.sin(angle + a)) for a in (0.45, -0.45)]
        painter.setBrush(colour)
        painter.drawPolygon(QPolygonF([head, *wings]))
        painter.setBrush(Qt.BrushStyle.NoBrush)
    elif shape.kind == "text" and shape.text:
        font = QFont()
        font.setPixelSize(max(8, round(rect.height() * TEXT_HEIGHT)))
        font.setWeight(QFont.Weight.DemiBold)
        painter.setFont(font)
        painter.drawText(QRectF(points[0], rect.bottomRight()), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                         shape.text)
