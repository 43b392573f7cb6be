"""The Objects track: one bar per object track (one COCO label followed through a shot),
from its first sample to the first sample without it, labelled and in its label's
colour, in lanes (lanes.py); bars of one label a short gap apart are drawn as one."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFontMetrics

from ....timecode import timecode
from ...analysis_index import in_range
from ...colors import object_color
from ..style import mix
from .base import Hit, shows_hours
from .lanes import LABEL_PX, LANE_H, LanedTrack, paint_block, paint_outline, whole_label


class ObjectsTrack(LanedTrack):
    """A bar per object track, in lanes; shown when the Analysis has object tracks."""

    capability = "objects"
    name, label = "objects", "Objects"

    @staticmethod
    def records(analysis) -> tuple:
        return analysis.object_tracks

    @staticmethod
    def join_label(record) -> str | None:
        return record.label

    def hit_at(self, view, t, y) -> Hit | None:
        found = self.bar_at(view, t, y)
        if found is None:
            return None
        i = found[0]
        track = self.packed(view.model).tracks[i]
        return Hit("object", track.id, track.start, i, track.end)

    def tooltip(self, view, hit) -> str:
        model = view.model
        track = self.packed(model).tracks[hit.index]
        hours = shows_hours(model)
        seen = f", seen in {track.detections} samples" if track.detections else ""
        return (f"{track.label}: {timecode(track.start, model.fps, hours)} – {timecode(track.end, model.fps, hours)}"
                f"\nmean score {track.score:.2f}{seen}")

    def paint(self, view, p, r, t0, t1, colors) -> None:
        bars = self.packed(view.model)
        indices = in_range(bars.starts, bars.reach, t0, t1)
        if not len(indices):
            return
        joined = bars.joined_from[indices.start:indices.stop]
        drawn_from = np.where(np.isnan(joined), bars.starts[indices.start:indices.stop], joined)
        x0s = view.clamp_x(view.x_of(drawn_from))
        x1s = view.clamp_x(view.x_of(bars.ends[indices.start:indices.stop]))
        selected = view.selected_index("object", bars.index)
        fills: dict[str, tuple] = {}
        for k, i in enumerate(indices):
            track = bars.tracks[i]
            if track.label not in fills:
                solid = object_color(track.label)
                fills[track.label] = (solid, mix(colors.base, solid, 0.5))
            is_joined = not np.isnan(joined[k])
            bar = self.bar_rect(x0s[k], x1s[k], r.top(), int(bars.lanes[i]), is_joined)
            paint_block(p, bar, *fills[track.label], mark_start=not is_joined)
            if i == selected:
                paint_outline(p, bar, colors)
        # Over the bars, each run's label once, with the whole run's room.
        p.setFont(colors.small_font)
        p.setPen(colors.text)
        metrics = QFontMetrics(colors.small_font)
        for first in dict.fromkeys(bars.run_first[indices.start:indices.stop].tolist()):
            track = bars.tracks[first]
            left = math.floor(view.clamp_x(view.x_of(bars.starts[first])))
            room = view.clamp_x(view.x_of(bars.run_ends[first])) - left - 8
            text = whole_label(metrics, track.label, room) if room >= LABEL_PX else ""
            if text:
                top = self.lane_top(r.top(), int(bars.lanes[first])) + 1
                p.drawText(QRectF(left + 5, top, room, LANE_H - 2),
                           Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, text)
