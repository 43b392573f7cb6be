"""The Objects track: one bar per object track (one COCO label followed through a shot),
from its first sample to the first sample without it, labelled and in its label's
colour. Tracks seen at the same time stack in lanes, as many as it takes up to
MAX_LANES; past that a track shares the lane that frees soonest (drawn over it)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFontMetrics, QPen

from ....records import ObjectTrack, PersonTrack
from ....timecode import timecode
from ...analysis_index import AnalysisIndex, in_range, spans
from ...colors import object_color
from ..style import mix
from .base import Hit, OnlyWhenAnalysed, shows_hours

LANE_H = 16  # one lane of bars
MAX_LANES = 5
PAD = 4  # above the first lane and below the last
LABEL_PX = 22  # narrower bars get no label
HIT_SLACK_PX = 2  # a bar is at least this wide to the mouse


@dataclass
class Packed:
    """The object tracks sorted by start, each with its lane (the People track packs its
    person tracks the same way)."""

    tracks: list[ObjectTrack | PersonTrack]
    starts: np.ndarray
    reach: np.ndarray  # the latest end so far (analysis_index.spans)
    ends: np.ndarray
    lanes: np.ndarray
    lane_count: int
    index: dict[int, int]  # track id -> position in ``tracks``

    @classmethod
    def of(cls, object_tracks) -> Packed:
        tracks = sorted(object_tracks, key=lambda o: (o.start, -o.end, o.id))
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


_last: tuple[AnalysisIndex, Packed] | None = None


def packed(model: AnalysisIndex) -> Packed:
    """The lanes of ``model``'s object tracks, packed once per index."""
    global _last
    if _last is None or _last[0] is not model:
        _last = (model, Packed.of(model.analysis.object_tracks))
    return _last[1]


class ObjectsTrack(OnlyWhenAnalysed):
    """A bar per object track, in lanes; shown when the Analysis has object tracks."""

    name, label = "objects", "Objects"

    def __init__(self, model: AnalysisIndex | None = None):
        self.height = self.height_for(model)

    @classmethod
    def shown(cls, model) -> bool:
        return model is not None and bool(model.analysis.object_tracks)

    @classmethod
    def height_for(cls, model) -> int:
        return packed(model).lane_count * LANE_H + 2 * PAD if cls.shown(model) else 0

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

    def hit_at(self, view, t, y) -> Hit | None:
        bars = packed(view.model)
        lane = math.floor((y - self.top - PAD) / LANE_H)
        if not 0 <= lane < bars.lane_count:
            return None
        slack = HIT_SLACK_PX / view.pps
        found = [i for i in in_range(bars.starts, bars.reach, t - slack, t + slack)
                 if bars.lanes[i] == lane and bars.ends[i] >= t - slack]
        if not found:
            return None
        i = found[-1]  # the one drawn last, on top
        track = bars.tracks[i]
        return Hit("object", track.id, track.start, i, track.end)

    def tooltip(self, view, hit) -> str:
        model = view.model
        track = packed(model).tracks[hit.index]
        hours = shows_hours(model)
        seen = f", seen in {track.detections} samples" if track.detections else ""
        return (f"{track.label}: {timecode(track.start, model.fps, hours)} – {timecode(track.end, model.fps, hours)}"
                f"\nmean score {track.score:.2f}{seen}")

    def paint(self, view, p, r, t0, t1, colors) -> None:
        bars = packed(view.model)
        indices = in_range(bars.starts, bars.reach, t0, t1)
        if not len(indices):
            return
        x0s = view.clamp_x(view.x_of(bars.starts[indices.start:indices.stop]))
        x1s = view.clamp_x(view.x_of(bars.ends[indices.start:indices.stop]))
        selected = view.selected_index("object", bars.index)
        p.setFont(colors.small_font)
        metrics = QFontMetrics(colors.small_font)
        fills: dict[str, tuple] = {}
        for k, i in enumerate(indices):
            track = bars.tracks[i]
            if track.label not in fills:
                solid = object_color(track.label)
                fills[track.label] = (solid, mix(colors.base, solid, 0.5))
            solid, fill = fills[track.label]
            left = math.floor(x0s[k])
            # A pixel's gap at the right: a track starting where the previous one ends stays apart.
            bar = QRectF(left, self.lane_top(r.top(), int(bars.lanes[i])) + 1,
                         max(2.0, math.ceil(x1s[k]) - left - 1), LANE_H - 2)
            p.fillRect(bar, fill)
            p.fillRect(QRectF(bar.left(), bar.top(), min(2.0, bar.width()), bar.height()), solid)
            if bar.width() >= LABEL_PX:
                text = metrics.elidedText(track.label, Qt.TextElideMode.ElideRight, int(bar.width()) - 7)
                p.setPen(colors.text)
                p.drawText(bar.adjusted(5, 0, -2, 0), Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                           text)
            if i == selected:
                p.setPen(QPen(colors.highlight, 2))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRect(bar.adjusted(1, 1, -1, -1))
