"""Tracks of bars in lanes (the Objects and People tracks): one bar per track record with a
start and an end, packed so that bars seen at the same time stack, as many lanes as it takes
up to MAX_LANES; past that a bar shares the lane that frees soonest (drawn over it)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPen

from ...analysis_index import AnalysisIndex, in_range, spans
from .base import OnlyWhenAnalysed

LANE_H = 16  # one lane of bars
MAX_LANES = 3  # more would squeeze the video: past it bars share lanes, hover tells them apart
PAD = 4  # above the first lane and below the last
LABEL_PX = 22  # narrower bars get no label
HIT_SLACK_PX = 2  # a bar is at least this wide to the mouse


@dataclass
class Packed:
    """Track records (ObjectTrack, PersonTrack) sorted by start, each with its lane."""

    tracks: list
    starts: np.ndarray
    reach: np.ndarray  # the latest end so far (analysis_index.spans)
    ends: np.ndarray
    lanes: np.ndarray
    lane_count: int
    index: dict[int, int]  # track id -> position in ``tracks``

    @classmethod
    def of(cls, records) -> Packed:
        tracks = sorted(records, key=lambda o: (o.start, -o.end, o.id))
        starts, reach = spans(tracks)
        free_at: list[float] = []  # per lane: when its last bar ends
        lanes = []
        for track in tracks:
            lane = next((k for k, end in enumerate(free_at) if end <= track.start), None)
            if lane is None:
                if len(free_at) < MAX_LANES:
                    lane = len(free_at)
                    free_at.append(0.0)
                else:
                    lane = min(range(len(free_at)), key=free_at.__getitem__)
            free_at[lane] = max(free_at[lane], track.end)
            lanes.append(lane)
        return cls(tracks, starts, reach, np.array([max(o.start, o.end) for o in tracks], np.float64),
                   np.array(lanes, np.int64), len(free_at), {o.id: i for i, o in enumerate(tracks)})


_packed: dict[str, tuple[AnalysisIndex, Packed]] = {}  # per track kind: the last index and its lanes


class LanedTrack(OnlyWhenAnalysed):
    """A track of bars in lanes, shown when the Analysis has records for it (``records``)."""

    name = ""

    def __init__(self, model: AnalysisIndex | None = None):
        self.height = self.height_for(model)

    @staticmethod
    def records(analysis) -> tuple:
        raise NotImplementedError

    @classmethod
    def packed(cls, model: AnalysisIndex) -> Packed:
        """The lanes of ``model``'s records, packed once per index."""
        last = _packed.get(cls.name)
        if last is None or last[0] is not model:
            last = _packed[cls.name] = (model, Packed.of(cls.records(model.analysis)))
        return last[1]

    @classmethod
    def shown(cls, model) -> bool:
        return model is not None and bool(cls.records(model.analysis))

    @classmethod
    def height_for(cls, model) -> int:
        return cls.packed(model).lane_count * LANE_H + 2 * PAD if cls.shown(model) else 0

    @classmethod
    def rows(cls, model) -> list:
        return [cls(model)] if cls.shown(model) else []

    @classmethod
    def reserved_height(cls, model) -> int:
        return cls.height_for(model)

    def margin_px(self, view) -> float:
        return HIT_SLACK_PX

    def lane_top(self, r_top: int, lane: int) -> int:
        return r_top + PAD + lane * LANE_H

    def bar_rect(self, x0: float, x1: float, r_top: int, lane: int) -> QRectF:
        """A bar from x0 to x1 (pixels) in ``lane``, with a pixel's gap at its right: a bar
        starting where the one before it ends stays apart."""
        left = math.floor(x0)
        return QRectF(left, self.lane_top(r_top, lane) + 1, max(2.0, math.ceil(x1) - left - 1), LANE_H - 2)

    def bar_at(self, view, t, y) -> tuple[int, float] | None:
        """The bar under the mouse at time ``t`` and height ``y`` (its position in the packed
        records; the one drawn last where bars overlap) and the time slack it was found with."""
        bars = self.packed(view.model)
        lane = math.floor((y - self.top - PAD) / LANE_H)
        if not 0 <= lane < bars.lane_count:
            return None
        slack = HIT_SLACK_PX / view.pps
        found = [i for i in in_range(bars.starts, bars.reach, t - slack, t + slack)
                 if bars.lanes[i] == lane and bars.ends[i] >= t - slack]
        return (found[-1], slack) if found else None


def whole_label(metrics, text: str, room: float) -> str:
    """``text`` where all of it fits in ``room`` pixels, else nothing: a short label cut to
    "p" or "per..." says nothing a reader can use (the tooltip and Details say it)."""
    return text if metrics.horizontalAdvance(text) <= room else ""


def paint_block(p, rect: QRectF, solid, fill) -> None:
    """A bar (or a part of one) in ``fill``, its start marked in ``solid``."""
    p.fillRect(rect, fill)
    p.fillRect(QRectF(rect.left(), rect.top(), min(2.0, rect.width()), rect.height()), solid)


def paint_outline(p, rect: QRectF, colors) -> None:
    """The selection's outline around ``rect``."""
    p.setPen(QPen(colors.highlight, 2))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawRect(rect.adjusted(1, 1, -1, -1))
