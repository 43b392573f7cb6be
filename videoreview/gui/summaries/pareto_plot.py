"""A small scatter plot of ViSIL (y) against token cost (x), one labelled point per
summary, with the Pareto frontier drawn as a step line. Drawn with QPainter: the plot is
a handful of points, and matplotlib is only a test dependency."""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QFontMetrics, QPainter, QPainterPath, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from ..colors import KEYFRAME_COLOR


@dataclass(frozen=True)
class PlotPoint:
    label: str
    tokens: int
    visil: float


def nice_range(low: float, high: float) -> tuple[float, float]:
    """The data range with some room around it (a single value gets a range of its own)."""
    if high - low < 1e-9:
        pad = max(abs(high) * 0.1, 1.0)
    else:
        pad = (high - low) * 0.1
    return low - pad, high + pad


class ParetoPlot(QWidget):
    MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 52, 16, 12, 36

    def __init__(self) -> None:
        super().__init__()
        self.points: list[PlotPoint] = []
        self.frontier: list[int] = []  # indices into points, by increasing tokens
        self.setMinimumSize(220, 140)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        self.setToolTip("ViSIL (information lost, lower is better) against the summary's token cost; "
                        "the step line joins the summaries no other one beats on both")

    def sizeHint(self) -> QSize:
        return QSize(340, 220)

    def set_points(self, points: list[PlotPoint], frontier: list[int]) -> None:
        self.points, self.frontier = list(points), list(frontier)
        self.update()

    def _area(self) -> QRectF:
        return QRectF(self.MARGIN_LEFT, self.MARGIN_TOP, self.width() - self.MARGIN_LEFT - self.MARGIN_RIGHT,
                      self.height() - self.MARGIN_TOP - self.MARGIN_BOTTOM)

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.Antialiasing)
        palette = self.palette()
        painter.fillRect(self.rect(), palette.color(QPalette.Base))
        area = self._area()
        text_pen = QPen(palette.color(QPalette.Text))
        painter.setPen(QPen(palette.color(QPalette.Mid), 1))
        painter.drawRect(area)
        if not self.points:
            painter.setPen(text_pen)
            painter.drawText(area, Qt.AlignCenter | Qt.TextWordWrap, "Compute ViSIL to plot the summaries")
            return
        x_low, x_high = nice_range(min(p.tokens for p in self.points), max(p.tokens for p in self.points))
        y_low, y_high = nice_range(min(p.visil for p in self.points), max(p.visil for p in self.points))

        def at(tokens: float, visil: float) -> QPointF:
            return QPointF(area.left() + (tokens - x_low) / (x_high - x_low) * area.width(),
                           area.bottom() - (visil - y_low) / (y_high - y_low) * area.height())

        self._draw_axes(painter, area, text_pen, (x_low, x_high), (y_low, y_high), at)
        accent = KEYFRAME_COLOR.darker(120)
        if self.frontier:
            # From each frontier point right to the next one's cost, then down to its loss:
            # what the best summary within a token budget loses, as the budget grows.
            before = self.points[self.frontier[0]]
            path = QPainterPath(at(before.tokens, before.visil))
            for i in self.frontier[1:]:
                p = self.points[i]
                path.lineTo(at(p.tokens, before.visil))
                path.lineTo(at(p.tokens, p.visil))
                before = p
            painter.setPen(QPen(accent, 2))
            painter.setBrush(Qt.NoBrush)
            painter.drawPath(path)
        centres = [at(p.tokens, p.visil) for p in self.points]
        taken = [QRectF(c.x() - 5, c.y() - 5, 10, 10) for c in centres]  # labels keep off the points
        metrics = QFontMetrics(painter.font())
        for i, (p, centre) in enumerate(zip(self.points, centres)):
            on_frontier = i in self.frontier
            painter.setPen(QPen(accent if on_frontier else palette.color(QPalette.Text), 1.5))
            painter.setBrush(accent if on_frontier else Qt.NoBrush)
            painter.drawEllipse(centre, 4.5, 4.5)
            rect = label_place(centre, metrics.horizontalAdvance(p.label) + 2, metrics.height(), taken, area)
            taken.append(rect)
            painter.setPen(text_pen)
            painter.drawText(rect, Qt.AlignCenter, p.label)

    def _draw_axes(self, painter: QPainter, area: QRectF, text_pen: QPen, x_range, y_range, at) -> None:
        painter.setPen(text_pen)
        metrics = QFontMetrics(painter.font())
        for tokens in _ticks(*x_range):
            x = at(tokens, y_range[0]).x()
            painter.drawLine(QPointF(x, area.bottom()), QPointF(x, area.bottom() + 3))
            label = f"{tokens:g}"
            painter.drawText(QPointF(x - metrics.horizontalAdvance(label) / 2, area.bottom() + 4 + metrics.ascent()),
                             label)
        for visil in _ticks(*y_range):
            y = at(x_range[0], visil).y()
            painter.drawLine(QPointF(area.left() - 3, y), QPointF(area.left(), y))
            label = f"{visil:g}"
            painter.drawText(QPointF(area.left() - 5 - metrics.horizontalAdvance(label), y + metrics.ascent() / 2 - 1),
                             label)
        painter.drawText(QRectF(area.left(), self.height() - metrics.height() - 2, area.width(), metrics.height()),
                         Qt.AlignCenter, "tokens")
        painter.save()
        painter.translate(12, area.center().y())
        painter.rotate(-90)
        painter.drawText(QRectF(-area.height() / 2, -metrics.height() / 2 - 2, area.height(), metrics.height()),
                         Qt.AlignCenter, "ViSIL (nats)")
        painter.restore()


def label_place(centre: QPointF, width: float, height: float, taken: list[QRectF], bounds: QRectF) -> QRectF:
    """Where a point's label goes: the first spot around it inside ``bounds`` that
    overlaps no other label or point (above right first), else the first inside."""
    spots = [(8, -height), (8, 0), (-8 - width, -height), (-8 - width, 0),
             (-width / 2, -height - 6), (-width / 2, 6), (8, -height / 2), (-8 - width, -height / 2)]
    rects = [QRectF(centre.x() + dx, centre.y() + dy, width, height) for dx, dy in spots]
    inside = [r for r in rects if bounds.contains(r)] or rects
    return next((r for r in inside if not any(r.intersects(t) for t in taken)), inside[0])


def _ticks(low: float, high: float, count: int = 4) -> list[float]:
    """Round tick values inside [low, high]: steps of 1, 2 or 5 times a power of ten."""
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step) * step
    return [round(first + n * step, 10) for n in range(count + 2) if first + n * step <= high + 1e-9]
