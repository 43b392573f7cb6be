"""The Objects track: one bar per object track (one COCO label followed through a shot),
from its first sample to the first sample without it, labelled and in its label's
colour, in lanes (lanes.py)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics

from ....timecode import timecode
from ...analysis_index import in_range
from ...colors import object_color
from ..style import mix
from .base import Hit, shows_hours
from .lanes import LABEL_PX, LanedTrack, paint_block, paint_outline, whole_label


class ObjectsTrack(LanedTrack):
    """A bar per object track, in lanes; shown when the Analysis has object tracks."""

    name, label = "objects", "Objects"

    @staticmethod
    def records(analysis) -> tuple:
        return analysis.object_tracks

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
            bar = self.bar_rect(x0s[k], x1s[k], r.top(), int(bars.lanes[i]))
            paint_block(p, bar, *fills[track.label])
            text = whole_label(metrics, track.label, bar.width() - 7) if bar.width() >= LABEL_PX else ""
            if text:
                p.setPen(colors.text)
                p.drawText(bar.adjusted(5, 0, -2, 0), Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                           text)
            if i == selected:
                paint_outline(p, bar, colors)
