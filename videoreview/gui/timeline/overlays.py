"""What the timeline paints over its tracks: the playhead, a boundary being dragged, and
the space past the end of the video."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRect, Qt
from PySide6.QtGui import QFontMetrics, QPainter, QPen, QPolygonF

from ...records import Boundary
from ...timecode import timecode
from ..colors import BOUNDARY_COLORS
from .style import Colors
from .tracks import RULER_H


def paint_video_end(view, p: QPainter, content: QRect, colors: Colors) -> None:
    """Past the end of the video (zoomed to fit, a column or two may be left over)."""
    end = math.ceil(view.x_of(view.model.duration))
    if end <= content.right():
        p.fillRect(QRect(end, RULER_H, content.right() - end + 1, content.bottom() - RULER_H + 1), colors.base)


def paint_drag(view, p: QPainter, boundary: Boundary, drag_time: float, colors: Colors) -> None:
    """A boundary being dragged: a dashed line, the marker and its new timecode."""
    x = math.floor(view.x_of(drag_time))
    color = BOUNDARY_COLORS[boundary.kind]
    p.setPen(QPen(color, 1, Qt.PenStyle.DashLine))
    p.drawLine(x, RULER_H, x, view.tracks_bottom())
    r = view.track_rect("boundaries")
    p.fillRect(x - 1, r.top() + 3, 3, r.height() - 6, color)
    label = timecode(drag_time, view.model.fps, view.model.duration >= 3600)
    metrics = QFontMetrics(colors.small_font)
    box = QRect(x + 6, r.top() + 4, metrics.horizontalAdvance(label) + 8, r.height() - 8)
    p.fillRect(box, colors.window)
    p.setPen(colors.text)
    p.setFont(colors.small_font)
    p.drawText(box, Qt.AlignmentFlag.AlignCenter, label)


def paint_playhead(view, p: QPainter, position: float, colors: Colors) -> None:
    x = math.floor(view.x_of(position))
    p.fillRect(x, 0, 1, view.tracks_bottom(), colors.playhead)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(colors.playhead)
    cx = x + 0.5
    p.drawPolygon(QPolygonF([QPointF(cx - 6, 0), QPointF(cx + 6, 0), QPointF(cx + 6, 8), QPointF(cx, 14),
                             QPointF(cx - 6, 8)]))
    p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
