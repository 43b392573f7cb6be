"""One paint of the timeline: the tracks' rows and their names in the header column, then
what lies over the tracks: the space past the end of the video, a boundary being dragged,
and the playhead."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRect, Qt
from PySide6.QtGui import QFontMetrics, QPainter, QPen, QPolygonF

from ...records import Boundary
from ...timecode import timecode
from ..colors import BOUNDARY_COLORS
from .style import Colors
from .tracks import RULER_H, Track


def paint(view, p: QPainter, rect: QRect, colors: Colors, tracks: list[Track],
          drag: tuple[Boundary, float] | None) -> None:
    """The part of the timeline in ``rect``; ``drag``: a boundary being dragged and where to."""
    left, right = view.left, view.left + view.content_width()
    bottom = view.tracks_bottom()
    p.fillRect(rect, colors.base)
    # The ruler stays at the top; the tracks under it may be scrolled up behind it.
    under_ruler = QRect(0, RULER_H, right, bottom - RULER_H)
    content = QRect(left, 0, right - left, bottom).intersected(rect)
    if not content.isEmpty():
        p.save()
        for n, track in enumerate(tracks):
            area = QRect(left, track.top, right - left, track.height)
            clip = content if n == 0 else content.intersected(under_ruler)
            if not area.intersects(clip):
                continue
            p.setClipRect(clip)  # inside rect: tracks must not draw over the header
            if n % 2:
                p.fillRect(area, colors.stripe)
            margin = track.margin_px(view)  # the damaged part's times, plus items reaching into it
            track.paint(view, p, area, view.time_at(content.left() - margin),
                        view.time_at(content.right() + 1 + margin), colors)
        p.setClipRect(content)
        paint_video_end(view, p, content, colors)
        if drag is not None:
            paint_drag(view, p, *drag, colors)
        paint_playhead(view, p, view.position(), colors)
        p.restore()
    if rect.left() < left:
        p.save()
        p.fillRect(0, 0, left, bottom, colors.window)
        for n, track in enumerate(tracks):
            p.setClipRect(QRect(0, 0, left, RULER_H) if n == 0 else QRect(0, RULER_H, left, bottom - RULER_H))
            track.paint_header(view, p, QRect(10, track.top, left - 18, track.height), colors)
        p.restore()
    p.setPen(colors.line)
    for track in tracks[1:]:
        if RULER_H <= track.top <= bottom:
            p.drawLine(0, track.top, right, track.top)
    p.drawLine(0, RULER_H, right, RULER_H)
    p.drawLine(0, bottom, right, bottom)
    p.drawLine(left - 1, 0, left - 1, bottom)


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
