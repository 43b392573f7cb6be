"""Tracks of marks at an instant: the boundaries (shots and events) and the keyframes. A
click grabs the nearest mark; where more marks are in view than pixels, one mark per pixel
column is drawn instead."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPainter, QPen, QPolygonF

from ....records import BOUNDARY_KINDS
from ....timecode import timecode
from ...colors import BOUNDARY_COLORS, EDITED_COLOR, KEYFRAME_COLOR
from .base import KEY_THUMB_H, MARKER_HIT_PX, Hit, Track, marker_hit, runs, shows_hours

DENSE_BOUNDARY_PX = 6  # fewer pixels per boundary than this: one mark per pixel column
DENSE_KEYFRAME_PX = 8


class BoundaryTrack(Track):
    capability = "boundaries"
    name, label, height, compact_height = "boundaries", "Shots / boundaries", 26, 20

    def margin_px(self, view) -> float:
        return 8

    def hit(self, view, t) -> Hit | None:
        return marker_hit("boundaries", view.model.boundary_times, view.model.boundaries, t, MARKER_HIT_PX / view.pps)

    def tooltip(self, view, hit) -> str:
        model = view.model
        b = model.boundaries[hit.index]
        lines = [f"{b.kind.capitalize()} at {timecode(b.time, model.fps, shows_hours(model))} (frame {b.frame}), "
                 f"confidence {b.confidence:.2f}"]
        if b.caption is not None:
            lines.append(f"{b.caption.subject}: {b.caption.before} → {b.caption.after}")
        if b.edited:
            lines.append("(edited)")
        return "\n".join(lines)

    def paint(self, view, p, r, t0, t1, colors) -> None:
        model = view.model
        i0, i1 = (int(i) for i in np.searchsorted(model.boundary_times, [t0, t1]))
        if i0 == i1:
            return
        top, height = r.top() + 3, r.height() - 6
        v0, v1 = view.visible_range()
        in_view = int(np.searchsorted(model.boundary_times, v1) - np.searchsorted(model.boundary_times, v0))
        if in_view * DENSE_BOUNDARY_PX > view.content_width():
            # One mark per pixel column and kind; cuts drawn last, on top.
            cols = view.columns(model.boundary_times[i0:i1])
            kinds = model.boundary_kinds[i0:i1]
            for code in reversed(range(len(BOUNDARY_KINDS))):
                color = BOUNDARY_COLORS[BOUNDARY_KINDS[code]]
                for a, b in runs(np.unique(cols[kinds == code]), 1):
                    p.fillRect(a, top, b - a, height, color)
            for a, b in runs(np.unique(cols[model.boundary_edited[i0:i1]]), 1):
                p.fillRect(a, r.bottom() - 2, b - a, 3, EDITED_COLOR)
            return
        selected = view.selected_index("boundaries", model.boundary_index_by_frame)
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


class KeyframeTrack(Track):
    name, label, height = "keyframes", "Keyframes", 36

    def margin_px(self, view) -> float:
        return view.key_thumb_w() / 2 + 4

    def hit(self, view, t) -> Hit | None:
        reach = max(MARKER_HIT_PX, view.key_thumb_w() / 2) / view.pps
        return marker_hit("keyframe", view.model.keyframe_times, view.model.keyframes, t, reach)

    def tooltip(self, view, hit) -> str:
        model = view.model
        keyframe = model.keyframes[hit.index]
        text = f"Keyframe at {timecode(keyframe.time, model.fps, shows_hours(model))} (frame {keyframe.frame})"
        return text + (f"\n{keyframe.reason}" if keyframe.reason else "") + ("\n(edited)" if keyframe.edited else "")

    def paint(self, view, p, r, t0, t1, colors) -> None:
        model = view.model
        i0, i1 = (int(i) for i in np.searchsorted(model.keyframe_times, [t0, t1]))
        if i0 == i1:
            return
        mid = r.bottom() - 6
        v0, v1 = view.visible_range()
        in_view = int(np.searchsorted(model.keyframe_times, v1) - np.searchsorted(model.keyframe_times, v0))
        if in_view * DENSE_KEYFRAME_PX > view.content_width():
            for a, b in runs(np.unique(view.columns(model.keyframe_times[i0:i1])), 1):
                p.fillRect(a, mid - 4, b - a, 9, KEYFRAME_COLOR)
            return
        selected = view.selected_index("keyframe", model.keyframe_index_by_frame)
        thumb_w = view.key_thumb_w()
        p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        for i in view.keyframes_with_thumbnails(t0, t1):
            pixmap = view.thumbs.get(model.keyframes[i].frame)
            if pixmap is not None:
                x = view.x_of(model.keyframe_times[i])
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
