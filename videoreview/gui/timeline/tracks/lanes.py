"""Tracks of bars in lanes (the Objects and People tracks): one bar per track record with a
start and an end, packed so that bars seen at the same time stack, as many lanes as it takes
up to MAX_LANES; past that a bar shares the lane that frees soonest (drawn over it). A bar
of the same label as the bar before it in its lane, starting less than JOIN_GAP_S after it
ends, is drawn joined to it: one "person" bar where the detector missed a sample or two,
not a row of slivers. The packing depends on the records alone, so every zoom draws the
same lanes."""

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
JOIN_GAP_S = 2.0  # objects are sampled once a second: a gap of a missed sample or two is joined


@dataclass
class Packed:
    """Track records (ObjectTrack, PoseTrack) sorted by start, each with its lane and,
    for a bar joined to the one before it in its lane, where that one ends."""

    tracks: list
    starts: np.ndarray
    reach: np.ndarray  # the latest end so far (analysis_index.spans)
    ends: np.ndarray
    lanes: np.ndarray
    lane_count: int
    index: dict[int, int]  # track id -> position in ``tracks``
    joined_from: np.ndarray  # the end of the bar this one is joined to; NaN where it is not joined
    run_first: np.ndarray  # the first bar of the run of joined bars each is in (itself where not joined)
    run_ends: np.ndarray  # at a run's first bar: where the run ends (its label's room)

    def drawn_start(self, i: int) -> float:
        """Where bar ``i`` is drawn from: the end of the bar it is joined to, else its start."""
        joined = self.joined_from[i]
        return float(self.starts[i] if np.isnan(joined) else joined)

    @classmethod
    def of(cls, records, label_of=lambda record: None) -> Packed:
        """``label_of``: the label bars are joined by (None: never joined)."""
        tracks = sorted(records, key=lambda o: (o.start, -o.end, o.id))
        starts, reach = spans(tracks)
        last: list[int] = []  # per lane: its last bar
        free_at: list[float] = []  # per lane: when its last bar ends
        lanes, joined_from = [], np.full(len(tracks), np.nan)
        run_ends = np.array([max(o.start, o.end) for o in tracks], np.float64)
        run_first = list(range(len(tracks)))
        for i, track in enumerate(tracks):
            label = label_of(track)
            lane = None
            if label is not None:  # the lane of a bar of its label that ended just before it
                lane = next((k for k, j in enumerate(last) if free_at[k] <= track.start < free_at[k] + JOIN_GAP_S
                             and label_of(tracks[j]) == label and free_at[k] == max(tracks[j].start, tracks[j].end)),
                            None)
                if lane is not None:
                    joined_from[i] = free_at[lane]
                    run_first[i] = run_first[last[lane]]
                    run_ends[run_first[i]] = max(run_ends[run_first[i]], track.end)
            if lane is None:
                lane = next((k for k, end in enumerate(free_at) if end <= track.start), None)
            if lane is None:
                if len(free_at) < MAX_LANES:
                    lane = len(free_at)
                    free_at.append(0.0)
                    last.append(i)
                else:
                    lane = min(range(len(free_at)), key=free_at.__getitem__)
            free_at[lane] = max(free_at[lane], track.end)
            last[lane] = i
            lanes.append(lane)
        return cls(tracks, starts, reach, np.array([max(o.start, o.end) for o in tracks], np.float64),
                   np.array(lanes, np.int64), len(free_at), {o.id: i for i, o in enumerate(tracks)},
                   joined_from, np.array(run_first, np.int64), run_ends)


_packed: dict[str, tuple[AnalysisIndex, Packed]] = {}  # per track kind: the last index and its lanes


class LanedTrack(OnlyWhenAnalysed):
    """A track of bars in lanes, shown when the Analysis has records for it (``records``)."""

    name = ""
    head = 0  # pixels a track keeps above its first lane for a row of its own (the Objects track's shot tags)

    def __init__(self, model: AnalysisIndex | None = None):
        self.height = self.height_for(model)

    @staticmethod
    def records(analysis) -> tuple:
        raise NotImplementedError

    @staticmethod
    def join_label(record) -> str | None:
        """What bars are joined by across a short gap (None: this one never is)."""
        return None

    @classmethod
    def packed(cls, model: AnalysisIndex) -> Packed:
        """The lanes of ``model``'s records, packed once per index."""
        last = _packed.get(cls.name)
        if last is None or last[0] is not model:
            last = _packed[cls.name] = (model, Packed.of(cls.records(model.analysis), cls.join_label))
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
        return HIT_SLACK_PX + JOIN_GAP_S * view.pps  # a joined bar reaches back over its gap

    def lane_top(self, r_top: int, lane: int) -> int:
        return r_top + PAD + self.head + lane * LANE_H

    def bar_rect(self, x0: float, x1: float, r_top: int, lane: int, joined: bool = False) -> QRectF:
        """A bar from x0 to x1 (pixels) in ``lane``, with a pixel's gap at its right: a bar
        starting where the one before it ends stays apart, unless it is ``joined`` to it."""
        left = math.floor(x0) - (1 if joined else 0)
        return QRectF(left, self.lane_top(r_top, lane) + 1, max(2.0, math.ceil(x1) - left - 1), LANE_H - 2)

    def bar_at(self, view, t, y) -> tuple[int, float] | None:
        """The bar under the mouse at time ``t`` and height ``y`` (its position in the packed
        records; the one drawn last where bars overlap) and the time slack it was found with."""
        bars = self.packed(view.model)
        lane = math.floor((y - self.lane_top(self.top, 0)) / LANE_H)
        if not 0 <= lane < bars.lane_count:
            return None
        slack = HIT_SLACK_PX / view.pps
        found = [i for i in in_range(bars.starts, bars.reach, t - slack, t + slack + JOIN_GAP_S)
                 if bars.lanes[i] == lane and bars.ends[i] >= t - slack and bars.drawn_start(i) <= t + slack]
        return (found[-1], slack) if found else None


def whole_label(metrics, text: str, room: float) -> str:
    """``text`` where all of it fits in ``room`` pixels, else nothing: a short label cut to
    "p" or "per..." says nothing a reader can use (the tooltip and Details say it)."""
    return text if metrics.horizontalAdvance(text) <= room else ""


def paint_block(p, rect: QRectF, solid, fill, mark_start: bool = True) -> None:
    """A bar (or a part of one) in ``fill``, its start marked in ``solid``."""
    p.fillRect(rect, fill)
    if mark_start:
        p.fillRect(QRectF(rect.left(), rect.top(), min(2.0, rect.width()), rect.height()), solid)


def paint_outline(p, rect: QRectF, colors) -> None:
    """The selection's outline around ``rect``."""
    p.setPen(QPen(colors.highlight, 2))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawRect(rect.adjusted(1, 1, -1, -1))
