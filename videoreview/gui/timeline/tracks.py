"""The timeline's tracks, top to bottom. Each track paints its row, says what is under a
click and what its tooltip reads, and paints its name in the header column. A new track
(notes, ...) is one class here and one line in TRACKS.

A track paints only the time range it is given (the damaged part of the view plus its
``margin_px``), slicing the model's sorted arrays with searchsorted; where more items
than pixels are in view it draws one mark per pixel column instead of one per item.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPen, QPolygonF

from ...records import BOUNDARY_KINDS
from ...timecode import timecode
from ..colors import (
    BOUNDARY_COLORS,
    CAPTION_COLOR,
    EDITED_COLOR,
    KEYFRAME_COLOR,
    NOTE_COLORS,
    TEXT_COLOR,
    identity_color,
)
from .model import TimelineModel, covering, in_range, nearest, ruler_steps, runs
from .style import mix

RULER_H = 24
THUMBNAIL_H = 54  # height of the strip's thumbnails: what to ask the ThumbnailLoader for
KEY_THUMB_H = 24
LANE_H = 18  # one identity
MIN_LANES = 4  # the minimum height leaves room for this many identity lanes
MARKER_HIT_PX = 5  # how near a boundary marker a click must be to grab it
DENSE_BOUNDARY_PX = 6  # fewer pixels per boundary than this: one mark per pixel column
DENSE_KEYFRAME_PX = 8
CAPTION_TEXT_PX = 40  # narrower caption blocks get no text
CAPTION_SEPARATOR_PX = 3  # block starts closer than this to the previous one get no separator line


@dataclass
class Hit:
    kind: str  # as Timeline.selected gives it: "caption", "boundary", "identity", "keyframe", "speech", "text"
    key: object
    time: float  # where clicking it seeks to
    index: int  # into the model's sorted items (lanes for identities)
    end: float = 0.0  # identities: end of the appearance


class Track:
    name = ""
    label = ""
    height = 26
    top = 0  # set by the timeline's layout

    @classmethod
    def rows(cls, model: TimelineModel | None) -> list[Track]:
        """The rows this track adds for ``model`` (None: no video open)."""
        return [cls()]

    @classmethod
    def reserved_height(cls, model: TimelineModel | None) -> int:
        """Height kept for this track in the timeline's minimum size."""
        return cls.height

    def margin_px(self, view) -> float:
        """How far beyond its time an item is drawn: a paint takes those items in too."""
        return 0.0

    def paint(self, view, p: QPainter, r: QRect, t0: float, t1: float, colors) -> None:
        pass

    def hit(self, view, t: float) -> Hit | None:
        return None

    def tooltip(self, view, hit: Hit) -> str:
        return ""

    def paint_header(self, view, p: QPainter, box: QRect, colors) -> None:
        p.setFont(colors.header_font)
        p.setPen(colors.text)
        metrics = QFontMetrics(colors.header_font)
        p.drawText(box, Qt.AlignmentFlag.AlignVCenter,
                   metrics.elidedText(self.label, Qt.TextElideMode.ElideRight, box.width()))


def _marker_hit(kind: str, times, items, t: float, reach: float) -> Hit | None:
    """The item (a boundary, a keyframe: sorted by ``times``) nearest to ``t`` within ``reach`` seconds."""
    i = nearest(times, t, reach)
    return None if i is None else Hit(kind, items[i].frame, items[i].time, i)


def _hours(model: TimelineModel) -> bool:
    return model.duration >= 3600


class RulerTrack(Track):
    name, height = "ruler", RULER_H

    def margin_px(self, view) -> float:
        return 120

    def paint(self, view, p, r, t0, t1, colors) -> None:
        model = view.model
        p.fillRect(r, colors.window)
        major, minor = ruler_steps(view.pps, model.fps)
        frames_in_labels = major < 1
        p.setPen(colors.dim)
        if minor * view.pps >= 4:
            start = max(0, math.floor(t0 / minor))
            stop = math.ceil(min(t1, model.duration) / minor)
            per_major = round(major / minor)
            for k in range(start, stop + 1):
                if k % per_major:
                    x = int(view.x_of(k * minor))
                    p.drawLine(x, r.bottom() - 4, x, r.bottom())
        p.setFont(colors.small_font)
        baseline = r.top() + 12
        for k in range(max(0, math.floor(t0 / major)), math.ceil(min(t1, model.duration) / major) + 1):
            t = k * major
            x = int(view.x_of(t))
            p.setPen(colors.line_strong)
            p.drawLine(x, r.bottom() - 9, x, r.bottom())
            p.setPen(colors.text)
            p.drawText(x + 4, baseline, timecode(t, model.fps if frames_in_labels else None, _hours(model)))

    def paint_header(self, view, p, box, colors) -> None:
        """The playhead's timecode."""
        p.setFont(colors.timecode_font)
        p.setPen(colors.text)
        p.drawText(box, Qt.AlignmentFlag.AlignVCenter, timecode(view.position(), view.model.fps,
                                                                _hours(view.model)))


class ThumbnailTrack(Track):
    name, label, height = "thumbnails", "Thumbnails", THUMBNAIL_H + 2

    def margin_px(self, view) -> float:
        return view.tile_w()

    def paint(self, view, p, r, t0, t1, colors) -> None:
        model = view.model
        tile_w = view.tile_w()
        reach = tile_w / view.pps * model.fps
        for t in view.tile_times(t0, t1):
            target = QRect(int(view.x_of(t)), r.top() + 1, tile_w - 1, THUMBNAIL_H)
            pixmap = view.thumbs.near(model.frame_at(t), reach)
            if pixmap is None:
                p.fillRect(target, colors.placeholder)
            else:
                p.drawPixmap(target, pixmap)


class BoundaryTrack(Track):
    name, label, height = "boundaries", "Shots / boundaries", 26

    def margin_px(self, view) -> float:
        return 8

    def hit(self, view, t) -> Hit | None:
        return _marker_hit("boundary", view.model.b_times, view.model.boundaries, t, MARKER_HIT_PX / view.pps)

    def tooltip(self, view, hit) -> str:
        model = view.model
        b = model.boundaries[hit.index]
        lines = [f"{b.kind.capitalize()} at {timecode(b.time, model.fps, _hours(model))} (frame {b.frame}), "
                 f"confidence {b.confidence:.2f}"]
        if b.caption is not None:
            lines.append(f"{b.caption.subject}: {b.caption.before} → {b.caption.after}")
        if b.edited:
            lines.append("(edited)")
        return "\n".join(lines)

    def paint(self, view, p, r, t0, t1, colors) -> None:
        model = view.model
        i0, i1 = (int(i) for i in np.searchsorted(model.b_times, [t0, t1]))
        if i0 == i1:
            return
        top, height = r.top() + 3, r.height() - 6
        v0, v1 = view.visible_range()
        in_view = int(np.searchsorted(model.b_times, v1) - np.searchsorted(model.b_times, v0))
        if in_view * DENSE_BOUNDARY_PX > view.content_width():
            # One mark per pixel column and kind; cuts drawn last, on top.
            cols = view.columns(model.b_times[i0:i1])
            kinds = model.b_kinds[i0:i1]
            for code in reversed(range(len(BOUNDARY_KINDS))):
                color = BOUNDARY_COLORS[BOUNDARY_KINDS[code]]
                for a, b in runs(np.unique(cols[kinds == code]), 1):
                    p.fillRect(a, top, b - a, height, color)
            for a, b in runs(np.unique(cols[model.b_edited[i0:i1]]), 1):
                p.fillRect(a, r.bottom() - 2, b - a, 3, EDITED_COLOR)
            return
        selected = view.selected_index("boundary", model.b_index)
        outline = QPen(EDITED_COLOR, 1.5)
        for i in range(i0, i1):
            b = model.boundaries[i]
            x = math.floor(view.x_of(b.time))
            color = BOUNDARY_COLORS[b.kind]
            if i == selected:
                p.fillRect(x - 5, r.top(), 11, r.height(), colors.selection_fill)
            p.fillRect(x - 1, top, 3, height, color)
            if b.caption is not None:
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(color)
                p.drawPolygon(QPolygonF([QPointF(x - 4.5, top), QPointF(x + 5.5, top), QPointF(x + 0.5, top + 6)]))
            if b.edited:
                p.setPen(outline)
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRect(QRectF(x - 3, top - 1.5, 7, height + 3))
        if selected is not None and i0 <= selected < i1:
            x = math.floor(view.x_of(model.boundaries[selected].time))
            p.setPen(QPen(colors.highlight, 1))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(x - 5, r.top(), 10, r.height() - 1)


class CaptionTrack(Track):
    name, label, height = "captions", "Captions", 26

    def hit(self, view, t) -> Hit | None:
        model = view.model
        i = int(np.searchsorted(model.c_starts, t, side="right")) - 1
        if i < 0 or t >= model.c_ends[i]:
            return None
        c = model.captions[i]
        return Hit("caption", c.frame, c.time, i)

    def tooltip(self, view, hit) -> str:
        caption = view.model.captions[hit.index]
        return caption.text + ("\n(edited)" if caption.edited else "")

    def paint(self, view, p, r, t0, t1, colors) -> None:
        model = view.model
        i0 = int(np.searchsorted(model.c_ends, t0, side="right"))
        i1 = int(np.searchsorted(model.c_starts, t1))
        if i0 >= i1:
            return
        # Blocks are contiguous: one fill under them all, then separators and text on top.
        first = max(0, i0 - 1)  # the block before: decides whether the first separator shows
        x0 = (model.c_starts[first:i1] - view.offset) * view.pps + view.left
        x1 = (model.c_ends[first:i1] - view.offset) * view.pps + view.left
        top, height = r.top() + 3, r.height() - 6
        skip = i0 - first
        cols = np.floor(x0).astype(np.int64)
        spaced = np.diff(cols, prepend=cols[0] - CAPTION_SEPARATOR_PX) >= CAPTION_SEPARATOR_PX
        # Clamped to the view: deep in a long video the coordinates run to millions, and a
        # block's text stays readable at the left edge while its start is scrolled away.
        x0, x1 = view.clamp_x(x0), view.clamp_x(x1)
        left = math.floor(x0[skip])
        p.fillRect(left, top, math.ceil(x1[-1]) - left, height, colors.caption_fill)
        for x in cols[skip:][spaced[skip:]].tolist():
            p.fillRect(x, top, 1, height, CAPTION_COLOR)
        widths = x1 - x0
        p.setFont(colors.small_font)
        metrics = QFontMetrics(colors.small_font)
        for k in np.flatnonzero(widths[skip:] >= CAPTION_TEXT_PX).tolist():
            i = i0 + k
            block = QRectF(x0[k + skip], top, widths[k + skip], height)
            if i % 2:
                p.fillRect(block.adjusted(1, 0, 0, 0), colors.caption_fill_alt)
            p.setPen(colors.text)
            text = metrics.elidedText(model.captions[i].text, Qt.TextElideMode.ElideRight, int(block.width()) - 10)
            p.drawText(block.adjusted(6, 0, -4, 0), Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, text)
        edited = model.c_edited[i0:i1]
        if edited.any():
            starts = np.floor(x0[skip:][edited]).astype(np.int64)
            ends = np.ceil(x1[skip:][edited]).astype(np.int64)
            for a, b in runs(starts, ends - starts):
                p.fillRect(a, r.bottom() - 4, max(2, b - a), 3, EDITED_COLOR)
        selected = view.selected_index("caption", model.c_index)
        if selected is not None and i0 <= selected < i1:
            k = selected - first
            p.setPen(QPen(colors.highlight, 2))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(QRectF(x0[k] + 1, top, max(2.0, widths[k] - 2), height))


def _paint_blocks(view, p, r, indices, items, label, fill, colors, selected: int | None = None) -> None:
    """Items with a start and an end as blocks with their text (where wide enough)."""
    top, height = r.top() + 3, r.height() - 6
    p.setFont(colors.small_font)
    metrics = QFontMetrics(colors.small_font)
    for i in indices:
        item = items[i]
        x0 = float(view.clamp_x(view.x_of(item.start)))
        x1 = float(view.clamp_x(view.x_of(max(item.end, item.start))))
        block = QRectF(math.floor(x0), top, max(2.0, x1 - math.floor(x0)), height)
        p.fillRect(block, fill(item))
        if getattr(item, "edited", False):
            p.fillRect(QRectF(block.left(), r.bottom() - 4, block.width(), 3), EDITED_COLOR)
        if block.width() >= CAPTION_TEXT_PX:
            p.setPen(colors.text)
            text = metrics.elidedText(label(item), Qt.TextElideMode.ElideRight, int(block.width()) - 8)
            p.drawText(block.adjusted(4, 0, -4, 0), Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, text)
        if i == selected:
            p.setPen(QPen(colors.highlight, 2))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(block.adjusted(1, 0, -1, 0))


class _OnlyWhenAnalysed(Track):
    """A row shown only for an analysis that has what it shows."""

    @classmethod
    def shown(cls, model: TimelineModel | None) -> bool:
        return False

    @classmethod
    def rows(cls, model) -> list[Track]:
        return [cls()] if cls.shown(model) else []

    @classmethod
    def reserved_height(cls, model) -> int:
        return cls.height if cls.shown(model) else 0


class SpeechTrack(_OnlyWhenAnalysed):
    """What is said: a block per segment in its speaker's colour. A click on a word seeks to
    it. Where nothing was said, the row says what the audio held."""

    name, label, height = "speech", "Speech", 26
    EMPTY = {"none": "no audio stream", "silent": "silent audio", "no speech": "no speech in the audio"}

    @classmethod
    def shown(cls, model) -> bool:
        return model is not None and model.analysis.speech is not None

    @staticmethod
    def text(view, segment) -> str:
        who = f"{view.model.analysis.person_name(segment.speaker)}: " if segment.speaker else ""
        return who + segment.text

    def hit(self, view, t) -> Hit | None:
        model = view.model
        found = covering(model.s_starts, model.s_reach, model.segments, t)
        if not found:
            return None
        i = found[-1]
        segment = model.segments[i]
        word = next((w for w in reversed(segment.words) if w.start <= t), None) if not segment.edited else None
        return Hit("speech", segment.start, word.start if word else segment.start, i)

    def tooltip(self, view, hit) -> str:
        model = view.model
        segment = model.segments[hit.index]
        hours = _hours(model)
        when = f"{timecode(segment.start, model.fps, hours)} – {timecode(segment.end, model.fps, hours)}"
        by = {"alone": " (alone on screen)", "reviewer": " (set by the reviewer)"}.get(segment.speaker_by, "")
        who = f"\nspeaker {model.analysis.person_name(segment.speaker)}{by}" if segment.speaker else ""
        return f"{when}{who}\n{segment.text}" + ("\n(edited)" if segment.edited else "")

    def paint(self, view, p, r, t0, t1, colors) -> None:
        model = view.model

        def fill(segment):
            if not segment.speaker:
                return colors.caption_fill
            return mix(colors.base, identity_color(segment.speaker), 0.45)

        _paint_blocks(view, p, r, in_range(model.s_starts, model.s_reach, t0, t1), model.segments,
                      lambda s: self.text(view, s), fill, colors, view.selected_index("speech", model.s_index))
        empty = self.EMPTY.get(model.analysis.speech.audio)
        if empty:
            p.setFont(colors.small_font)
            p.setPen(colors.dim)
            p.drawText(r.adjusted(view.left - r.left() + 6, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter, empty)


class ScreenTextTrack(_OnlyWhenAnalysed):
    """On-screen text: a block per span read, for as long as it stays on screen."""

    name, label, height = "screen-text", "On-screen text", 26

    @classmethod
    def shown(cls, model) -> bool:
        return model is not None and bool(model.texts)

    def hit(self, view, t) -> Hit | None:
        model = view.model
        found = covering(model.t_starts, model.t_reach, model.texts, t)
        return Hit("text", found[0], model.texts[found[0]].start, found[0]) if found else None

    def tooltip(self, view, hit) -> str:
        model = view.model
        span = model.texts[hit.index]
        together = [model.texts[i].text for i in in_range(model.t_starts, model.t_reach, span.start, span.end)
                    if model.texts[i].end > span.start]  # the lines on screen with it
        return f"On screen from {timecode(span.start, model.fps, _hours(model))}:\n" + "\n".join(together)

    def paint(self, view, p, r, t0, t1, colors) -> None:
        model = view.model
        fill = QColor(TEXT_COLOR)
        fill.setAlpha(110)
        _paint_blocks(view, p, r, in_range(model.t_starts, model.t_reach, t0, t1), model.texts,
                      lambda s: s.text, lambda s: fill, colors, view.selected_index("text", model.t_index))


class NotesTrack(Track):
    """The reviewer's notes: a flag per note at one frame, a block per range, in the tag's
    colour (resolved ones faded); and the range being marked with I and O."""

    name, label, height = "notes", "Notes", 22
    FLAG_W = 9
    HIT_PX = 6

    @classmethod
    def rows(cls, model) -> list[Track]:
        return [cls()] if model is not None else []

    @classmethod
    def reserved_height(cls, model) -> int:
        return cls.height if model is not None else 0

    def margin_px(self, view) -> float:
        return self.FLAG_W

    def hit(self, view, t) -> Hit | None:
        model = view.model
        reach = self.HIT_PX / view.pps
        found = in_range(model.n_starts, model.n_reach, t - reach, t + reach)
        near = [i for i in found if model.n_ends[i] >= t - reach]
        if not near:
            return None
        i = min(near, key=lambda i: abs(model.notes[i].time - t))  # the nearest start wins
        note = model.notes[i]
        return Hit("note", note.id, note.time, i)

    def tooltip(self, view, hit) -> str:
        model = view.model
        note = model.notes[hit.index]
        hours = _hours(model)
        when = timecode(note.time, model.fps, hours)
        if note.is_range:
            when += f" – {timecode(note.end_time, model.fps, hours)}"
        drawing = "\n(with a drawing)" if note.drawing else ""
        return f"{when}  {note.status}, {note.tag}\n{note.author}: {note.text}{drawing}"

    def paint(self, view, p, r, t0, t1, colors) -> None:
        model = view.model
        top, height = r.top() + 3, r.height() - 6
        marks = view.marks()
        if marks is not None:  # the range being marked: shaded, with its in and out edges
            x0, x1 = view.clamp_x(view.x_of(marks[0])), view.clamp_x(view.x_of(marks[1]))
            p.fillRect(QRectF(x0, r.top(), max(2.0, x1 - x0), r.height()), QColor(255, 255, 255, 40))
            p.setPen(QPen(colors.text, 1))
            for x in (x0, x1):
                p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()))
        selected = view.selected_index("note", model.n_index)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        for i in in_range(model.n_starts, model.n_reach, t0, t1):
            note = model.notes[i]
            colour = QColor(NOTE_COLORS[note.tag])
            if note.status == "resolved":
                colour.setAlpha(90)
            x0 = view.x_of(note.time)
            if note.is_range:
                x1 = view.x_of(model.n_ends[i])
                p.fillRect(QRectF(x0, top + height * 0.35, max(2.0, x1 - x0), height * 0.3), colour)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(colour)
            p.drawPolygon(QPolygonF([QPointF(x0, top), QPointF(x0 + self.FLAG_W, top + height * 0.3),
                                     QPointF(x0, top + height * 0.6)]))
            p.fillRect(QRectF(x0, top, 1.5, height), colour)
            if i == selected:
                p.setPen(QPen(colors.highlight, 2))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRect(QRectF(x0 - 2, top - 1, self.FLAG_W + 4, height + 2))
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        if not model.notes and marks is None:
            p.setFont(colors.small_font)
            p.setPen(colors.dim)
            p.drawText(r.adjusted(view.left - r.left() + 6, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter,
                       "N adds a note at the playhead (I and O mark a range first)")


class IdentityTrack(Track):
    """One lane per identity: when the person is on screen."""

    height = LANE_H

    def __init__(self, index: int = 0, model: TimelineModel | None = None):
        self.index = index
        if model is not None:
            lane = model.lanes[index]
            self.name, self.label = f"identity:{lane.identity.id}", lane.label
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
        return view.selection() == ("identity", view.model.lanes[self.index].identity.id)

    def hit(self, view, t) -> Hit | None:
        lane = view.model.lanes[self.index]
        slack = 2 / view.pps  # a presence bar is at least a couple of pixels wide
        j = int(np.searchsorted(lane.starts, t + slack, side="right")) - 1
        if j < 0 or t > lane.ends[j] + slack:
            return None
        return Hit("identity", lane.identity.id, float(lane.starts[j]), self.index, float(lane.ends[j]))

    def tooltip(self, view, hit) -> str:
        hours = _hours(view.model)
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


class KeyframeTrack(Track):
    name, label, height = "keyframes", "Keyframes", 36

    def margin_px(self, view) -> float:
        return view.key_thumb_w() / 2 + 4

    def hit(self, view, t) -> Hit | None:
        reach = max(MARKER_HIT_PX, view.key_thumb_w() / 2) / view.pps
        return _marker_hit("keyframe", view.model.k_times, view.model.keyframes, t, reach)

    def tooltip(self, view, hit) -> str:
        model = view.model
        keyframe = model.keyframes[hit.index]
        text = f"Keyframe at {timecode(keyframe.time, model.fps, _hours(model))} (frame {keyframe.frame})"
        return text + (f"\n{keyframe.reason}" if keyframe.reason else "") + ("\n(edited)" if keyframe.edited else "")

    def paint(self, view, p, r, t0, t1, colors) -> None:
        model = view.model
        i0, i1 = (int(i) for i in np.searchsorted(model.k_times, [t0, t1]))
        if i0 == i1:
            return
        mid = r.bottom() - 6
        v0, v1 = view.visible_range()
        in_view = int(np.searchsorted(model.k_times, v1) - np.searchsorted(model.k_times, v0))
        if in_view * DENSE_KEYFRAME_PX > view.content_width():
            for a, b in runs(np.unique(view.columns(model.k_times[i0:i1])), 1):
                p.fillRect(a, mid - 4, b - a, 9, KEYFRAME_COLOR)
            return
        selected = view.selected_index("keyframe", model.k_index)
        thumb_w = view.key_thumb_w()
        p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        for i in view.keyframes_with_thumbnails(t0, t1):
            pixmap = view.thumbs.get(model.keyframes[i].frame)
            if pixmap is not None:
                x = view.x_of(model.k_times[i])
                frame_rect = QRectF(x - thumb_w / 2, r.top() + 2, thumb_w, KEY_THUMB_H)
                p.drawPixmap(frame_rect, pixmap, QRectF(pixmap.rect()))
                p.setPen(QPen(colors.highlight if i == selected else KEYFRAME_COLOR, 2 if i == selected else 1))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRect(frame_rect)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        for i in range(i0, i1):
            keyframe = model.keyframes[i]
            x = math.floor(view.x_of(keyframe.time)) + 0.5
            size = 6 if i == selected else 4.5
            if keyframe.edited:
                p.setPen(QPen(EDITED_COLOR, 1.5))
            elif i == selected:
                p.setPen(QPen(colors.highlight, 2))
            else:
                p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(KEYFRAME_COLOR)
            p.drawPolygon(QPolygonF([QPointF(x, mid - size), QPointF(x + size, mid), QPointF(x, mid + size),
                                     QPointF(x - size, mid)]))
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)


# Top to bottom. A new track: its class above, and one line here.
TRACKS: list[type[Track]] = [RulerTrack, ThumbnailTrack, NotesTrack, BoundaryTrack, CaptionTrack, SpeechTrack,
                             ScreenTextTrack, IdentityTrack, KeyframeTrack]
