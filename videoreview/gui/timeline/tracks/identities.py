"""One lane per identity, under its label: when the person is on screen."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QPainter

from ....timecode import timecode
from ...analysis_index import AnalysisIndex
from ...colors import EDITED_COLOR, identity_color
from .base import Hit, Track, runs, shows_hours

LANE_H = 18  # one identity
MIN_LANES = 4  # the minimum height leaves room for this many identity lanes


class IdentityTrack(Track):
    """One lane per identity: when the person is on screen."""

    capability = "faces"
    height = LANE_H

    def __init__(self, index: int = 0, model: AnalysisIndex | None = None):
        self.index = index
        if model is not None:
            lane = model.lanes[index]
            self.name, self.label = f"faces:{lane.identity.id}", lane.label
            self.color = identity_color(lane.identity.id)

    @classmethod
    def rows(cls, model) -> list[Track]:
        return [cls(k, model) for k in range(len(model.lanes))] if model is not None else []

    @classmethod
    def reserved_height(cls, model) -> int:
        return max(MIN_LANES, len(model.lanes) if model is not None else 0) * LANE_H

    def margin_px(self, view) -> float:
        return 2

    def _selected(self, view) -> bool:
        return view.selection() == ("faces", view.model.lanes[self.index].identity.id)

    def hit(self, view, t) -> Hit | None:
        lane = view.model.lanes[self.index]
        slack = 2 / view.pps  # a presence bar is at least a couple of pixels wide
        j = int(np.searchsorted(lane.starts, t + slack, side="right")) - 1
        if j < 0 or t > lane.ends[j] + slack:
            return None
        return Hit("faces", lane.identity.id, float(lane.starts[j]), self.index, float(lane.ends[j]))

    def tooltip(self, view, hit) -> str:
        hours = shows_hours(view.model)
        return f"{self.label}: on screen {timecode(hit.time, None, hours)} – {timecode(hit.end, None, hours)}"

    def paint(self, view, p, r, t0, t1, colors) -> None:
        lane = view.model.lanes[self.index]
        if self._selected(view):
            p.fillRect(r, colors.selection_fill)
        j0 = int(np.searchsorted(lane.ends, t0))
        j1 = int(np.searchsorted(lane.starts, t1))
        if j0 >= j1:
            return
        starts = np.floor(view.clamp_x(view.x_of(lane.starts[j0:j1]))).astype(np.int64)
        ends = np.ceil(view.clamp_x(view.x_of(lane.ends[j0:j1]))).astype(np.int64)
        for a, b in runs(starts, np.maximum(ends - starts, 2)):
            p.fillRect(a, r.top() + 4, b - a, r.height() - 8, self.color)

    def paint_header(self, view, p, box, colors) -> None:
        """A dot in the identity's colour (and one for a reviewer's edit) before the name."""
        if self._selected(view):
            p.fillRect(0, self.top, view.left - 1, self.height, colors.selection_fill)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(self.color)
        cy = self.top + self.height / 2
        p.drawEllipse(QPointF(box.left() + 4, cy), 4, 4)
        if view.model.lanes[self.index].identity.edited:
            p.setBrush(EDITED_COLOR)
            p.drawEllipse(QPointF(view.left - 10, cy), 3, 3)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        super().paint_header(view, p, box.adjusted(14, 0, -10, 0), colors)
