"""The Notes track: the reviewer's notes where they are in the video, and the range being
marked for the next one."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPolygonF

from ....timecode import timecode
from ...analysis_index import in_range
from ...colors import NOTE_COLORS
from .base import Hit, Track, shows_hours


class NotesTrack(Track):
    """The reviewer's notes: a flag per note at one frame, a block per range, in the tag's
    colour (resolved ones faded); and the range being marked with I and O."""

    name, label, height, compact_height = "notes", "Notes", 22, 18
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
        found = in_range(model.note_starts, model.note_reach, t - reach, t + reach)
        near = [i for i in found if model.note_ends[i] >= t - reach]
        if not near:
            return None
        i = min(near, key=lambda i: abs(model.notes[i].time - t))  # the nearest start wins
        note = model.notes[i]
        return Hit("note", note.id, note.time, i)

    def tooltip(self, view, hit) -> str:
        model = view.model
        note = model.notes[hit.index]
        hours = shows_hours(model)
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
        selected = view.selected_index("note", model.note_index_by_id)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        for i in in_range(model.note_starts, model.note_reach, t0, t1):
            note = model.notes[i]
            colour = QColor(NOTE_COLORS[note.tag])
            if note.status == "resolved":
                colour.setAlpha(90)
            x0 = view.x_of(note.time)
            if note.is_range:
                x1 = view.x_of(model.note_ends[i])
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
