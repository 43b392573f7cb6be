"""The People track: one bar per person track (a body followed through a shot by the poses
stage), cut into its status spans ("walking", "sitting", ...), each in its status's colour
and labelled with it; a tag at the bar's start says who it is ("P1", or "person" when no
face named them). Person tracks seen at the same time stack in lanes (lanes.py). Spans of
one status, and bars of one named person, a short gap apart are drawn as one."""

from __future__ import annotations

import bisect
import math

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFontMetrics

from ....records import PoseTrack
from ....timecode import timecode
from ...analysis_index import in_range
from ...colors import UNKNOWN_STATUS_COLOR, identity_color, status_color
from ...labels import identity_label
from ..style import mix
from .base import Hit, shows_hours
from .lanes import JOIN_GAP_S, LABEL_PX, LANE_H, LanedTrack, paint_block, paint_outline, whole_label

TAG_PAD = 4  # either side of the tag's text
TAG_DARK, TAG_LIGHT = QColor("#15171a"), QColor("#ffffff")  # the tag's letters, whichever reads on its fill

def who(track: PoseTrack) -> str:
    """The tag on a person's bar: their identity's id, or "person"."""
    return track.identity or "person"


def tag_text(fill: QColor) -> QColor:
    """Dark letters on a light fill, white on a dark one (by its perceived brightness)."""
    return TAG_DARK if 0.299 * fill.redF() + 0.587 * fill.greenF() + 0.114 * fill.blueF() > 0.55 else TAG_LIGHT


def shown_spans(track: PoseTrack) -> list[tuple[float, float, str, int]]:
    """The status spans as drawn: (start, end, status, index of its first span). Spans of
    one status less than JOIN_GAP_S apart are one: "walking" with a frame unknown in
    the middle is walking, not two slivers."""
    shown: list[tuple[float, float, str, int]] = []
    for k, span in enumerate(track.statuses):
        if shown and shown[-1][2] == span.status and span.start - shown[-1][1] < JOIN_GAP_S:
            start, _, status, first = shown[-1]
            shown[-1] = (start, span.end, status, first)
        else:
            shown.append((span.start, span.end, span.status, k))
    return shown


def span_at(track: PoseTrack, t: float, slack: float) -> tuple[float, float, str, int] | None:
    """The shown status span of ``track`` under ``t`` (or within ``slack`` of it), if any."""
    spans = shown_spans(track)
    k = bisect.bisect_right([s[0] for s in spans], t) - 1
    if k >= 0 and t < spans[k][1]:
        return spans[k]
    near = [spans[j] for j in (k, k + 1) if 0 <= j < len(spans) and spans[j][0] - slack <= t <= spans[j][1] + slack]
    return near[0] if near else None


class PeopleTrack(LanedTrack):
    """A bar per person track, cut into status spans; shown when the Analysis has person tracks."""

    capability = "poses"
    name, label = "poses", "People"

    @staticmethod
    def records(analysis) -> tuple:
        return analysis.poses

    @staticmethod
    def join_label(record) -> str | None:
        return record.identity  # one named person seen again; "person" bars are never joined

    def hit_at(self, view, t, y) -> Hit | None:
        found = self.bar_at(view, t, y)
        if found is None:
            return None
        i, slack = found
        track = self.packed(view.model).tracks[i]
        span = span_at(track, t, slack)
        if span is None:  # where no status is known: the whole person, from where they were first seen
            return Hit("poses", (track.id, None), track.start, i, track.end)
        start, end, _status, k = span
        return Hit("poses", (track.id, k), start, i, end)

    def tooltip(self, view, hit) -> str:
        model = view.model
        track = self.packed(model).tracks[hit.index]
        hours = shows_hours(model)

        def span(start: float, end: float) -> str:
            return f"{timecode(start, model.fps, hours)} – {timecode(end, model.fps, hours)}"

        name = identity_label(track.identity, model.names.get(track.identity)) if track.identity else "person"
        seen = f"seen {span(track.start, track.end)}, mean score {track.score:.2f}"
        k = hit.key[1]
        if k is None:
            return f"{name}, status not known here\n{seen}"
        return f"{name} {track.statuses[k].status}: {span(hit.time, hit.end)}\n{seen}"

    def paint(self, view, p, r, t0, t1, colors) -> None:
        bars = self.packed(view.model)
        indices = in_range(bars.starts, bars.reach, t0, t1)
        if not len(indices):
            return
        selected = view.selection() if view.selection() and view.selection()[0] == "poses" else None
        p.setFont(colors.small_font)
        metrics = QFontMetrics(colors.small_font)
        unknown = mix(colors.base, UNKNOWN_STATUS_COLOR, 0.3)
        fills: dict[str, tuple[QColor, QColor]] = {}

        def x_at(seconds: float) -> float:
            return float(view.clamp_x(view.x_of(seconds)))

        for i in indices:
            track = bars.tracks[i]
            joined = not np.isnan(bars.joined_from[i])
            bar = self.bar_rect(x_at(bars.drawn_start(i)), x_at(bars.ends[i]), r.top(), int(bars.lanes[i]), joined)
            top = bar.top()
            p.fillRect(bar, unknown)
            tag = None if joined else self._tag(track, bar, metrics)  # one tag per run of one person
            outline = bar if selected == ("poses", (track.id, None)) else None
            for start, end, status, k in shown_spans(track):
                if end < t0 or start > t1:
                    continue
                if status not in fills:
                    solid = status_color(status)
                    fills[status] = (solid, mix(colors.base, solid, 0.5))
                x0 = max(bar.left(), math.floor(x_at(start)))
                x1 = min(bar.right(), math.ceil(x_at(end)))
                segment = QRectF(x0, top, max(1.0, x1 - x0), LANE_H - 2)
                paint_block(p, segment, *fills[status])
                # The status's name, right of the tag where the tag covers the segment's start.
                text_left = max(segment.left() + 5, tag.right() + 4 if tag is not None else 0)
                room = segment.right() - 2 - text_left
                text = whole_label(metrics, status, room) if segment.width() >= LABEL_PX else ""
                if text:
                    p.setPen(colors.text)
                    p.drawText(QRectF(text_left, top, room, LANE_H - 2),
                               Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, text)
                if selected == ("poses", (track.id, k)):
                    outline = segment
            if tag is not None:
                colour = identity_color(track.identity) if track.identity else UNKNOWN_STATUS_COLOR
                p.fillRect(tag, colour)
                p.setPen(tag_text(colour))
                p.drawText(tag, Qt.AlignmentFlag.AlignCenter, who(track))
            if outline is not None:  # over the tag too
                paint_outline(p, outline, colors)

    @staticmethod
    def _tag(track: PoseTrack, bar: QRectF, metrics: QFontMetrics) -> QRectF | None:
        """Where the who-tag goes at the bar's start; None when the bar is too short for it."""
        width = metrics.horizontalAdvance(who(track)) + 2 * TAG_PAD
        if bar.width() < width + LABEL_PX / 2:
            return None
        return QRectF(bar.left(), bar.top(), width, bar.height())
