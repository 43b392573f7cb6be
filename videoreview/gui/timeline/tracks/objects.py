"""The Objects track: one bar per object track (one COCO label followed through a shot),
from its first sample to the first sample without it, labelled and in its label's
colour, in lanes (lanes.py); bars of one label a short gap apart are drawn as one.

Above the bars, a row of shot tags (what an image-text model names in each shot,
records.ShotTag): along each shot's span a thin line, and on it a chip per name, most
probable first, as many as the span has room for, then "+N" for the rest (a shot too
short for a name has its line alone). Hover says
the name, its probability and the model; a click selects the tag (kind "image-text", key
(shot's first frame, name)) for the Details panel."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFontMetrics, QPen

from ....records import ShotTag
from ....timecode import timecode
from ...analysis_index import AnalysisIndex, in_range
from ...colors import object_color
from ..style import Colors, mix
from .base import Hit, shows_hours
from .lanes import LABEL_PX, LANE_H, PAD, LanedTrack, paint_block, paint_outline, whole_label

TAG_ROW_H = LANE_H + 2  # the row of shot tags above the bars
CHIP_PAD = 4  # either side of a chip's name
CHIP_GAP = 3  # between chips
SHOT_GAP = 2  # pixels a shot's line stops short of the next shot


def tag_key(tag: ShotTag) -> tuple[int, str]:
    """A shot tag as the timeline and the Details panel name it: its shot's first frame and its name."""
    return tag.frame, tag.name


@dataclass
class Shots:
    """The shot tags by shot, in time order: each shot's span and its tags, most probable first."""

    tags: list[list[ShotTag]]
    starts: np.ndarray
    reach: np.ndarray  # the latest end so far (analysis_index.spans)
    ends: np.ndarray
    index: dict[tuple[int, str], int]  # tag_key -> its shot's position

    @classmethod
    def of(cls, tags) -> Shots:
        by_shot: dict[tuple[float, float, int], list[ShotTag]] = {}
        for tag in tags:
            by_shot.setdefault((tag.start, max(tag.start, tag.end), tag.frame), []).append(tag)
        spans = sorted(by_shot)
        grouped = [sorted(by_shot[span], key=lambda t: (-t.score, t.name)) for span in spans]
        starts = np.array([s[0] for s in spans], np.float64)
        ends = np.array([s[1] for s in spans], np.float64)
        reach = np.maximum.accumulate(ends) if len(ends) else ends
        return cls(grouped, starts, reach, ends, {tag_key(t): i for i, shot in enumerate(grouped) for t in shot})


_shots: list[tuple[AnalysisIndex, Shots]] = []  # the last index and its shots


def shots_of(model: AnalysisIndex) -> Shots:
    """The shot tags of ``model``, grouped once per index."""
    if not _shots or _shots[0][0] is not model:
        _shots[:] = [(model, Shots.of(model.analysis.shot_tags))]
    return _shots[0][1]


class ObjectsTrack(LanedTrack):
    """A bar per object track, in lanes, under a row of shot tags; shown when the Analysis
    has object tracks or shot tags."""

    capability = "objects"
    name, label = "objects", "Objects"

    def __init__(self, model: AnalysisIndex | None = None):
        super().__init__(model)
        self.head = TAG_ROW_H if self.has_tags(model) else 0

    @staticmethod
    def records(analysis) -> tuple:
        return analysis.object_tracks

    @staticmethod
    def join_label(record) -> str | None:
        return record.label

    @staticmethod
    def has_tags(model) -> bool:
        return model is not None and bool(model.analysis.shot_tags)

    @classmethod
    def shown(cls, model) -> bool:
        return super().shown(model) or cls.has_tags(model)

    @classmethod
    def height_for(cls, model) -> int:
        if not cls.shown(model):
            return 0
        return (TAG_ROW_H if cls.has_tags(model) else 0) + cls.packed(model).lane_count * LANE_H + 2 * PAD

    # -- the shot tags' row

    def chips(self, view, shot: int, metrics: QFontMetrics) -> list[tuple[QRectF, int | None]]:
        """Where shot ``shot``'s chips go at this zoom: (rectangle, the tag's place in the
        shot's tags, or None for the "+N" chip of those without room), left to right from the
        shot's start (or the view's left edge), in the row at the track's top."""
        shots = shots_of(view.model)
        tags = shots.tags[shot]
        left = max(math.floor(view.x_of(shots.starts[shot])) + 2, math.floor(view.x_of(view.offset)) + 2)
        right = min(view.x_of(shots.ends[shot]), view.width()) - SHOT_GAP - 1
        top = self.top + PAD + 1
        widths = [metrics.horizontalAdvance(t.name) + 2 * CHIP_PAD for t in tags]

        def more(n: int) -> float:
            return metrics.horizontalAdvance(f"+{n}") + 2 * CHIP_PAD

        placed: list[tuple[QRectF, int | None]] = []
        x = left
        for k, width in enumerate(widths):
            rest = len(tags) - k - 1
            # Room for this chip, and for "+N" after it unless it is the last.
            needed = width + (CHIP_GAP + more(rest) if rest else 0)
            if x + needed > right:
                break
            placed.append((QRectF(x, top, width, TAG_ROW_H - 4), k))
            x += width + CHIP_GAP
        hidden = len(tags) - len(placed)
        if placed and hidden and x + more(hidden) <= right:  # (a shot with no name shown has its line alone)
            placed.append((QRectF(x, top, more(hidden), TAG_ROW_H - 4), None))
        return placed

    def tag_at(self, view, t: float) -> tuple[int, int] | None:
        """The shot under time ``t`` in the tags' row and the tag under the mouse there (its
        place in the shot's tags): the chip's, from its left edge to the next chip (the
        first chip's from the shot's start); for "+N" the first of those it counts; past the
        chips (or where none has room), the shot's most probable."""
        shots = shots_of(view.model)
        found = [i for i in in_range(shots.starts, shots.reach, t, t + 1e-9) if shots.ends[i] >= t]
        if not found:
            return None
        shot = found[-1]
        x = view.x_of(t)
        placed = self.chips(view, shot, QFontMetrics(Colors(view.palette(), view.font()).small_font))
        under = [(rect, k) for n, (rect, k) in enumerate(placed) if n == 0 or rect.left() <= x]
        if not under or x > under[-1][0].right() + CHIP_GAP:
            return shot, 0
        k = under[-1][1]
        return shot, k if k is not None else sum(1 for _, j in placed if j is not None)

    # -- clicks and hover

    def hit_at(self, view, t, y) -> Hit | None:
        if self.head and self.top + PAD <= y < self.top + PAD + self.head:
            found = self.tag_at(view, t)
            if found is None:
                return None
            shot, k = found
            shots = shots_of(view.model)
            return Hit("image-text", tag_key(shots.tags[shot][k]), float(shots.starts[shot]), shot,
                       float(shots.ends[shot]))
        found = self.bar_at(view, t, y)
        if found is None:
            return None
        i = found[0]
        track = self.packed(view.model).tracks[i]
        return Hit("objects", track.id, track.start, i, track.end)

    def tooltip(self, view, hit) -> str:
        model = view.model
        hours = shows_hours(model)
        if hit.kind == "image-text":
            tags = shots_of(model).tags[hit.index]
            tag = next(t for t in tags if tag_key(t) == hit.key)
            others = ", ".join(f"{t.name} {t.score:.2f}" for t in tags if t is not tag)
            edited = ", edited by a reviewer" if tag.edited else ""
            return (f"{tag.name}: probability {tag.score:.2f}\n"
                    f"shot {timecode(tag.start, model.fps, hours)} – {timecode(tag.end, model.fps, hours)}\n"
                    f"named by {tag.engine or 'an unknown engine'}{edited}"
                    + (f"\nalso in this shot: {others}" if others else ""))
        track = self.packed(model).tracks[hit.index]
        seen = f", seen in {track.detections} samples" if track.detections else ""
        return (f"{track.label}: {timecode(track.start, model.fps, hours)} – {timecode(track.end, model.fps, hours)}"
                f"\nmean score {track.score:.2f}{seen}")

    # -- painting

    def paint(self, view, p, r, t0, t1, colors) -> None:
        if self.head:
            self.paint_tags(view, p, r, t0, t1, colors)
        bars = self.packed(view.model)
        indices = in_range(bars.starts, bars.reach, t0, t1)
        if not len(indices):
            return
        joined = bars.joined_from[indices.start:indices.stop]
        drawn_from = np.where(np.isnan(joined), bars.starts[indices.start:indices.stop], joined)
        x0s = view.clamp_x(view.x_of(drawn_from))
        x1s = view.clamp_x(view.x_of(bars.ends[indices.start:indices.stop]))
        selected = view.selected_index("objects", bars.index)
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

    def paint_tags(self, view, p, r, t0, t1, colors) -> None:
        """Each shot's line along its span and its chips on it. The selected tag is outlined:
        its chip, else the "+N" chip it is counted in, else the shot's line."""
        shots = shots_of(view.model)
        indices = in_range(shots.starts, shots.reach, t0, t1)
        if not len(indices):
            return
        selection = view.selection()
        selected = shots.index.get(selection[1]) if selection is not None and selection[0] == "image-text" else None
        line = mix(colors.base, colors.text, 0.3)
        row_top = r.top() + PAD
        p.setFont(colors.small_font)
        metrics = QFontMetrics(colors.small_font)
        for shot in indices:
            x0 = math.floor(view.clamp_x(view.x_of(shots.starts[shot])))
            x1 = math.ceil(view.clamp_x(view.x_of(shots.ends[shot])))
            span = QRectF(x0, row_top + TAG_ROW_H - 3, max(1.0, x1 - x0 - SHOT_GAP), 2)
            p.fillRect(span, line)
            tags = shots.tags[shot]
            placed = self.chips(view, shot, metrics)
            for rect, k in placed:
                if k is None:  # the tags without room
                    p.setPen(Qt.PenStyle.NoPen)
                    p.setBrush(colors.placeholder)
                    p.drawRoundedRect(rect, 3, 3)
                    p.setPen(colors.dim)
                    p.drawText(rect, Qt.AlignmentFlag.AlignCenter, f"+{len(tags) - len(placed) + 1}")
                    continue
                solid = object_color(tags[k].name)
                p.setPen(QPen(solid, 1))
                p.setBrush(mix(colors.base, solid, 0.35))
                p.drawRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5), 3, 3)
                p.setPen(colors.text)
                p.drawText(rect, Qt.AlignmentFlag.AlignCenter, tags[k].name)
            if shot == selected:
                # its chip, else the "+N" it is counted in, else the shot's line
                outline = next((rect for rect, k in placed if k is not None and tag_key(tags[k]) == selection[1]),
                               next((rect for rect, k in placed if k is None), span.adjusted(0, 5 - TAG_ROW_H, 0, 1)))
                paint_outline(p, outline.adjusted(-2, -1, 2, 1), colors)
