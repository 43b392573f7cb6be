"""The timeline: a time ruler, a thumbnail strip, boundaries, captions, one lane per identity
and keyframes of one Analysis, stacked like the tracks of a video editor.

Everything is painted in one paintEvent from numpy arrays sorted once in set_analysis: each
track looks up its visible slice with searchsorted, and where many items fall in one pixel
column (a two-hour video zoomed out) it draws one mark per column instead of one per item.
That keeps a paint within a few milliseconds with tens of thousands of items.
"""

from __future__ import annotations

import math
import time
from bisect import bisect_left, insort
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (QColor, QFont, QFontDatabase, QFontMetrics, QImage, QPainter, QPalette, QPen, QPixmap,
                           QPolygonF)
from PySide6.QtWidgets import QApplication, QScrollBar, QToolTip, QWidget

from ..records import BOUNDARY_KINDS, Analysis, Boundary, Identity, Keyframe
from ..summary.export.subtitles import caption_spans
from ..timecode import timecode
from .colors import BOUNDARY_COLORS, CAPTION_COLOR, EDITED_COLOR, KEYFRAME_COLOR, identity_color

HEADER_W = 136  # the fixed column of track names on the left
RULER_H = 24
THUMBNAIL_H = 54  # height of the strip's thumbnails: what to ask the ThumbnailLoader for
STRIP_H = THUMBNAIL_H + 2
BOUNDARY_H = 26
CAPTION_H = 26
LANE_H = 18  # one identity
KEYFRAME_H = 36
KEY_THUMB_H = 24
MIN_LANES = 4  # the minimum height leaves room for this many identity lanes

MAX_PX_PER_FRAME = 48  # deepest zoom
ZOOM_STEP = 1.25  # per wheel notch
BUTTON_ZOOM = 1.5  # per zoom_in() / zoom_out()
MARKER_HIT_PX = 5  # how near a boundary marker a click must be to grab it
DENSE_BOUNDARY_PX = 6  # fewer pixels per boundary than this: one mark per pixel column
DENSE_KEYFRAME_PX = 8
CAPTION_TEXT_PX = 40  # narrower caption blocks get no text
CAPTION_SEPARATOR_PX = 3  # block starts closer than this to the previous one get no separator line
MAX_THUMBNAILS = 800  # pixmaps kept for the strip (about 20 KB each)
THUMBNAIL_DEBOUNCE_MS = 60


class Timeline(QWidget):
    """Multi-track timeline of one Analysis. Times are seconds; x positions are widget
    coordinates, the tracks starting right of a fixed header column."""

    seekRequested = Signal(float)
    selected = Signal(str, object)  # kind ("caption", "boundary", "identity", "keyframe"), key
    boundaryDragged = Signal(int, float)  # old frame, new time (snapped to a frame)
    zoomChanged = Signal(float)  # pixels per second
    thumbnailsWanted = Signal(list)  # frames the strip and keyframe track now show

    THUMBNAIL_HEIGHT = THUMBNAIL_H

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setMouseTracking(True)  # hover cursor over draggable boundary markers
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)  # every paint fills its whole rect
        self._model: _Model | None = None
        self._pps = 1.0  # zoom: pixels per second
        self._offset = 0.0  # time at the left edge of the tracks
        self._fit = True  # showing the whole video: stays so when the widget is resized
        self._position = 0.0
        self._selection: tuple[str, object] | None = None
        self._press: _Press | None = None
        self._thumbs: OrderedDict[int, QPixmap] = OrderedDict()  # frame -> pixmap, least recently set first
        self._thumb_frames: list[int] = []  # the same frames, sorted, to find a near one
        self._wanted: list[int] = []
        self._tracks: list[_Track] = []
        self.last_paint_ms = 0.0

        self._scrollbar = QScrollBar(Qt.Orientation.Horizontal, self)
        self._scrollbar.valueChanged.connect(self._on_scrollbar)
        self._thumb_timer = QTimer(self)
        self._thumb_timer.setSingleShot(True)
        self._thumb_timer.setInterval(THUMBNAIL_DEBOUNCE_MS)
        self._thumb_timer.timeout.connect(self._emit_thumbnails_wanted)
        self._layout_tracks()

    # ------------------------------------------------------------------ public API

    def set_analysis(self, analysis: Analysis | None) -> None:
        """Show ``analysis`` (None: nothing). A new analysis of the same video keeps the
        zoom, scroll position, selection and thumbnails; another video starts zoomed to fit."""
        old = self._model
        self._model = _Model(analysis) if analysis is not None else None
        same_video = old is not None and self._model is not None and old.video_key == self._model.video_key
        if not same_video:
            self._selection = None
            self._press = None
            self._thumbs.clear()
            self._thumb_frames.clear()
            self._wanted = []
            self._fit = True
        self._layout_tracks()
        self.updateGeometry()
        if self._model is None:
            self.update()
            return
        self._position = min(self._position, self._model.duration)
        if self._fit:
            self._set_view(0.0, 0.0)  # clamped to the fitting zoom
        else:
            self._set_view(self._pps, self._offset)

    def analysis(self) -> Analysis | None:
        return self._model.analysis if self._model is not None else None

    def set_position(self, seconds: float) -> None:
        """Move the playhead. While it moves past the right edge the view pages along."""
        if self._model is None:
            self._position = max(0.0, seconds)
            return
        seconds = min(max(0.0, seconds), self._model.duration)
        old = self._position
        if seconds == old:
            return
        was_visible = self._is_visible(old)
        self._position = seconds
        if was_visible and not self._is_visible(seconds):
            span = self._span()
            # Playing forward: turn the page. Jumping back: centre on it.
            start = seconds - 0.05 * span if seconds > old else seconds - 0.5 * span
            self._set_view(self._pps, start)
            return
        self.update(QRect(0, 0, HEADER_W, RULER_H))  # the timecode there
        old_x, new_x = math.floor(self.x_of(old)), math.floor(self.x_of(seconds))
        if old_x != new_x:
            for x in (old_x, new_x):
                self.update(QRect(x - 7, 0, 15, self._tracks_bottom()))

    def position(self) -> float:
        return self._position

    def set_thumbnail(self, frame: int, image: QImage) -> None:
        """A decoded frame for the thumbnail strip and the keyframe track (any height: it
        is scaled to the strip)."""
        if self._model is None or image.isNull():
            return
        if image.height() != THUMBNAIL_H:
            image = image.scaledToHeight(THUMBNAIL_H, Qt.TransformationMode.SmoothTransformation)
        if frame not in self._thumbs:
            insort(self._thumb_frames, frame)
        self._thumbs[frame] = QPixmap.fromImage(image)
        self._thumbs.move_to_end(frame)
        while len(self._thumbs) > MAX_THUMBNAILS:
            dropped, _ = self._thumbs.popitem(last=False)
            del self._thumb_frames[bisect_left(self._thumb_frames, dropped)]
        for name in ("thumbnails", "keyframes"):
            self.update(self.track_rect(name))

    def thumbnail_frames(self) -> list[int]:
        """The frames the thumbnail strip and the keyframe track want at the current zoom
        and scroll position, left to right, without repeats."""
        model = self._model
        if model is None:
            return []
        t0, t1 = self.visible_range()
        frames = {model.frame_at(t): None for t in self._tile_times(t0, t1)}
        for i in self._keyframes_with_thumbnails(t0, t1):
            frames[model.keyframes[i].frame] = None
        return list(frames)

    def set_selection(self, kind: str | None, key: object = None) -> None:
        """Highlight one item (kind and key as in ``selected``); None clears."""
        selection = (kind, key) if kind is not None else None
        if selection != self._selection:
            self._selection = selection
            self.update()

    def selection(self) -> tuple[str, object] | None:
        return self._selection

    def zoom_in(self) -> None:
        self._zoom(BUTTON_ZOOM, self._zoom_anchor())

    def zoom_out(self) -> None:
        self._zoom(1 / BUTTON_ZOOM, self._zoom_anchor())

    def zoom_to_fit(self) -> None:
        self._set_view(0.0, 0.0)

    def pixels_per_second(self) -> float:
        return self._pps

    def visible_range(self) -> tuple[float, float]:
        """First and last second the tracks show."""
        return self._offset, self._offset + self._span()

    # -- geometry, for the owner and for tests

    def x_of(self, seconds: float) -> float:
        return HEADER_W + (seconds - self._offset) * self._pps

    def time_at(self, x: float) -> float:
        return self._offset + (x - HEADER_W) / self._pps

    def track_rect(self, name: str) -> QRect:
        """The area of a track right of the header column: "ruler", "thumbnails",
        "boundaries", "captions", "keyframes", "identity:P1", ...; a null QRect if there is
        no such track."""
        for track in self._tracks:
            if track.name == name:
                return QRect(HEADER_W, track.top, self._content_width(), track.height)
        return QRect()

    def track_names(self) -> list[str]:
        return [track.name for track in self._tracks]

    def item_at(self, pos: QPoint | QPointF) -> tuple[str, object] | None:
        """(kind, key) of the item under ``pos``, as ``selected`` would give it."""
        hit = self._hit(pos)
        return (hit.kind, hit.key) if hit is not None else None

    def tooltip_at(self, pos: QPoint | QPointF) -> str:
        """What hovering at ``pos`` shows: a caption's full text, a boundary's details, ..."""
        hit = self._hit(pos)
        if hit is None:
            return ""
        model = self._model
        hours = model.duration >= 3600
        if hit.kind == "caption":
            caption = model.captions[hit.index]
            return caption.text + ("\n(edited)" if caption.edited else "")
        if hit.kind == "boundary":
            b = model.boundaries[hit.index]
            lines = [f"{b.kind.capitalize()} at {timecode(b.time, model.fps, hours)} (frame {b.frame}), "
                     f"confidence {b.confidence:.2f}"]
            if b.caption is not None:
                lines.append(f"{b.caption.subject}: {b.caption.before} → {b.caption.after}")
            if b.edited:
                lines.append("(edited)")
            return "\n".join(lines)
        if hit.kind == "identity":
            label = model.lanes[hit.index].label
            return f"{label}: on screen {timecode(hit.time, None, hours)} – {timecode(hit.end, None, hours)}"
        keyframe = model.keyframes[hit.index]
        text = f"Keyframe at {timecode(keyframe.time, model.fps, hours)} (frame {keyframe.frame})"
        return text + (f"\n{keyframe.reason}" if keyframe.reason else "") + ("\n(edited)" if keyframe.edited else "")

    # ------------------------------------------------------------------ Qt overrides

    def sizeHint(self) -> QSize:
        return QSize(900, max(260, self.minimumSizeHint().height()))

    def minimumSizeHint(self) -> QSize:
        lanes = len(self._model.lanes) if self._model is not None else 0
        tracks = RULER_H + STRIP_H + BOUNDARY_H + CAPTION_H + KEYFRAME_H + max(MIN_LANES, lanes) * LANE_H
        return QSize(HEADER_W + 240, tracks + self._scrollbar.sizeHint().height())

    def resizeEvent(self, event) -> None:
        height = self._scrollbar.sizeHint().height()
        self._scrollbar.setGeometry(HEADER_W, self.height() - height, self._content_width(), height)
        if self._model is not None:
            self._set_view(0.0 if self._fit else self._pps, self._offset)
        super().resizeEvent(event)

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            text = self.tooltip_at(event.pos())
            if text:
                QToolTip.showText(event.globalPos(), text, self)
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    def wheelEvent(self, event) -> None:
        delta = event.angleDelta().y() or event.angleDelta().x()  # Shift+wheel arrives as x on some systems
        if self._model is None or not delta:
            event.ignore()
            return
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self._zoom(ZOOM_STEP ** (delta / 120), event.position().x())
        else:
            self._set_view(self._pps, self._offset - delta / 120 * 0.1 * self._span())
        event.accept()

    def mousePressEvent(self, event) -> None:
        if self._model is None or event.button() != Qt.MouseButton.LeftButton:
            super().mousePressEvent(event)
            return
        pos = event.position()
        if pos.x() < HEADER_W:
            self._click_header(pos)
            return
        hit = self._hit(pos)
        if hit is None:
            self._press = _Press(pos.x(), scrub=True)
            self._scrub(pos.x())
            return
        self._selection = (hit.kind, hit.key)
        self.update()
        self.selected.emit(hit.kind, hit.key)
        self.seekRequested.emit(hit.time)
        if hit.kind == "boundary":
            self._press = _Press(pos.x(), boundary=self._model.boundaries[hit.index])

    def mouseMoveEvent(self, event) -> None:
        x = event.position().x()
        press = self._press
        if press is None:
            hit = self._hit(event.position())
            if hit is not None and hit.kind == "boundary":
                self.setCursor(Qt.CursorShape.SizeHorCursor)
            else:
                self.unsetCursor()
            return
        if press.scrub:
            self._scrub(x)
        elif press.boundary is not None:
            if not press.dragging and abs(x - press.x) >= QApplication.startDragDistance():
                press.dragging = True
            if press.dragging:
                press.drag_time = self._snap(self.time_at(x))
                self.update()

    def mouseReleaseEvent(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton or self._press is None:
            return
        press, self._press = self._press, None
        if press.dragging:
            self.update()
            new_time = self._snap(self.time_at(event.position().x()))
            if self._model.frame_at(new_time) != press.boundary.frame:
                self.boundaryDragged.emit(press.boundary.frame, new_time)

    # ------------------------------------------------------------------ view

    def _content_width(self) -> int:
        return max(1, self.width() - HEADER_W)

    def _span(self) -> float:
        return self._content_width() / self._pps

    def _is_visible(self, seconds: float) -> bool:
        return self._offset <= seconds <= self._offset + self._span()

    def _fit_pps(self) -> float:
        return self._content_width() / self._model.duration

    def _clamp_pps(self, pps: float) -> float:
        """Between fitting the whole video and MAX_PX_PER_FRAME."""
        fit = self._fit_pps()
        return min(max(pps, fit), max(fit, self._model.fps * MAX_PX_PER_FRAME))

    def _set_view(self, pps: float, offset: float) -> None:
        """Zoom to ``pps`` with ``offset`` seconds at the left edge, both clamped."""
        model = self._model
        if model is None:
            return
        pps = self._clamp_pps(pps)
        offset = min(max(0.0, offset), max(0.0, model.duration - self._content_width() / pps))
        zoomed = pps != self._pps
        self._pps, self._offset = pps, offset
        self._fit = pps <= self._fit_pps() * (1 + 1e-9)
        self._sync_scrollbar()
        self.update()
        self._thumb_timer.start()
        if zoomed:
            self.zoomChanged.emit(pps)

    def _zoom(self, factor: float, anchor_x: float) -> None:
        """Zoom by ``factor`` keeping the time under ``anchor_x`` where it is."""
        if self._model is None:
            return
        anchor = self.time_at(anchor_x)
        pps = self._clamp_pps(self._pps * factor)
        self._set_view(pps, anchor - (anchor_x - HEADER_W) / pps)

    def _zoom_anchor(self) -> float:
        """The playhead when it is in view, else the middle."""
        if self._is_visible(self._position):
            return self.x_of(self._position)
        return HEADER_W + self._content_width() / 2

    def _sync_scrollbar(self) -> None:
        total = self._model.duration * self._pps
        width = self._content_width()
        bar = self._scrollbar
        bar.blockSignals(True)
        bar.setRange(0, max(0, math.ceil(total - width)))
        bar.setPageStep(width)
        bar.setSingleStep(max(1, width // 10))
        bar.setValue(round(self._offset * self._pps))
        bar.blockSignals(False)

    def _on_scrollbar(self, value: int) -> None:
        if self._model is not None:
            self._set_view(self._pps, value / self._pps)

    def _emit_thumbnails_wanted(self) -> None:
        frames = self.thumbnail_frames()
        if frames and frames != self._wanted:
            self._wanted = frames
            self.thumbnailsWanted.emit(frames)

    # ------------------------------------------------------------------ layout and hits

    def _layout_tracks(self) -> None:
        tracks = [_Track("ruler", "", RULER_H), _Track("thumbnails", "Thumbnails", STRIP_H),
                  _Track("boundaries", "Shots / boundaries", BOUNDARY_H), _Track("captions", "Captions", CAPTION_H)]
        if self._model is not None:
            tracks += [_Track(f"identity:{lane.identity.id}", lane.label, LANE_H, lane=k)
                       for k, lane in enumerate(self._model.lanes)]
        tracks.append(_Track("keyframes", "Keyframes", KEYFRAME_H))
        top = 0
        for track in tracks:
            track.top = top
            top += track.height
        self._tracks = tracks

    def _tracks_bottom(self) -> int:
        last = self._tracks[-1]
        return last.top + last.height

    def _track_at(self, y: float) -> _Track | None:
        for track in self._tracks:
            if track.top <= y < track.top + track.height:
                return track
        return None

    def _hit(self, pos: QPoint | QPointF) -> _Hit | None:
        model = self._model
        x, y = pos.x(), pos.y()
        if model is None or x < HEADER_W:
            return None
        track = self._track_at(y)
        if track is None:
            return None
        t = self.time_at(x)
        if track.name == "boundaries":
            i = _nearest(model.b_times, t, MARKER_HIT_PX / self._pps)
            if i is not None:
                b = model.boundaries[i]
                return _Hit("boundary", b.frame, b.time, i)
        elif track.name == "captions":
            i = int(np.searchsorted(model.c_starts, t, side="right")) - 1
            if i >= 0 and t < model.c_ends[i]:
                c = model.captions[i]
                return _Hit("caption", c.frame, c.time, i)
        elif track.name == "keyframes":
            reach = max(MARKER_HIT_PX, self._key_thumb_w() / 2) / self._pps
            i = _nearest(model.k_times, t, reach)
            if i is not None:
                k = model.keyframes[i]
                return _Hit("keyframe", k.frame, k.time, i)
        elif track.lane is not None:
            lane = model.lanes[track.lane]
            slack = 2 / self._pps  # a presence bar is at least a couple of pixels wide
            j = int(np.searchsorted(lane.starts, t + slack, side="right")) - 1
            if j >= 0 and t <= lane.ends[j] + slack:
                return _Hit("identity", lane.identity.id, float(lane.starts[j]), track.lane, float(lane.ends[j]))
        return None

    def _click_header(self, pos: QPointF) -> None:
        """A click on an identity's name selects the identity (no particular time to seek to)."""
        track = self._track_at(pos.y())
        if track is not None and track.lane is not None:
            pid = self._model.lanes[track.lane].identity.id
            self._selection = ("identity", pid)
            self.update()
            self.selected.emit("identity", pid)

    def _scrub(self, x: float) -> None:
        """Seek to the start of the frame under ``x``, once per frame while dragging."""
        model = self._model
        seconds = model.frame_at(self.time_at(x)) / model.fps
        if seconds != self._press.seek_time:
            self._press.seek_time = seconds
            self.seekRequested.emit(seconds)

    def _snap(self, seconds: float) -> float:
        """The nearest frame's time."""
        model = self._model
        frame = min(max(0, round(seconds * model.fps)), model.frame_count - 1)
        return frame / model.fps

    # ------------------------------------------------------------------ thumbnails

    def _tile_w(self) -> int:
        return max(16, round(THUMBNAIL_H * self._model.aspect))

    def _key_thumb_w(self) -> int:
        return max(10, round(KEY_THUMB_H * self._model.aspect)) if self._model is not None else 0

    def _tile_times(self, t0: float, t1: float) -> list[float]:
        """Start times of the strip's tiles between t0 and t1. Tiles sit at multiples of one
        tile width, so scrolling keeps them (and the frames they want) in place."""
        step = self._tile_w() / self._pps
        first = max(0, math.floor(t0 / step))
        last = min(math.ceil(t1 / step), math.ceil(self._model.duration / step))
        return [k * step for k in range(first, last)]

    def _thumbnail_near(self, frame: int, reach: float) -> QPixmap | None:
        """The pixmap of ``frame`` or, while that one is loading, of the loaded frame nearest
        to it within ``reach`` frames (so zooming does not flash placeholders)."""
        pixmap = self._thumbs.get(frame)
        if pixmap is not None or not self._thumb_frames:
            return pixmap
        i = bisect_left(self._thumb_frames, frame)
        near = [f for f in self._thumb_frames[max(0, i - 1):i + 1] if abs(f - frame) <= reach]
        return self._thumbs[min(near, key=lambda f: abs(f - frame))] if near else None

    def _keyframes_with_thumbnails(self, t0: float, t1: float) -> list[int]:
        """Indices of the keyframes between t0 and t1 with room for a thumbnail: both
        neighbours at least a thumbnail width away, so any paint region picks the same ones."""
        times = self._model.k_times
        i0, i1 = (int(i) for i in np.searchsorted(times, [t0, t1]))
        room = (self._key_thumb_w() + 6) / self._pps
        apart = (np.diff(times, prepend=-math.inf) >= room) & (np.diff(times, append=math.inf) >= room)
        return (np.flatnonzero(apart[i0:i1]) + i0).tolist()

    # ------------------------------------------------------------------ painting

    def paintEvent(self, event) -> None:
        started = time.perf_counter()
        painter = QPainter(self)
        colors = _Colors(self.palette(), self.font())
        if self._model is None:
            painter.fillRect(event.rect(), colors.base)
            painter.setPen(colors.dim)
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "No video")
        else:
            # Rect by rect: a moving playhead damages two thin strips, not what lies between.
            for rect in event.region():
                painter.setClipRect(rect)
                self._paint_tracks(painter, rect, colors)
        painter.end()
        self.last_paint_ms = (time.perf_counter() - started) * 1000

    def _paint_tracks(self, p: QPainter, rect: QRect, colors: _Colors) -> None:
        width = self.width()
        bottom = self._tracks_bottom()
        p.fillRect(rect, colors.base)
        content = QRect(HEADER_W, 0, self._content_width(), bottom).intersected(rect)
        if not content.isEmpty():
            p.save()
            p.setClipRect(content)  # inside rect: tracks must not draw over the header
            for n, track in enumerate(self._tracks):
                area = QRect(HEADER_W, track.top, width - HEADER_W, track.height)
                if not area.intersects(content):
                    continue
                if track.name == "ruler":
                    p.fillRect(area, colors.window)
                elif n % 2:
                    p.fillRect(area, colors.stripe)
                self._paint_track(p, track, area, content, colors)
            self._paint_video_end(p, content, colors)
            self._paint_drag(p, colors)
            self._paint_playhead(p, colors)
            p.restore()
        if rect.left() < HEADER_W:
            self._paint_header(p, colors)
        p.setPen(colors.line)
        for track in self._tracks[1:]:
            p.drawLine(0, track.top, width, track.top)
        p.drawLine(0, bottom, width, bottom)
        p.drawLine(HEADER_W - 1, 0, HEADER_W - 1, bottom)

    def _paint_track(self, p: QPainter, track: _Track, area: QRect, content: QRect, colors: _Colors) -> None:
        def times(margin_px: float) -> tuple[float, float]:
            """The time range to draw for the damaged part, plus items reaching into it."""
            return self.time_at(content.left() - margin_px), self.time_at(content.right() + 1 + margin_px)

        if track.name == "ruler":
            self._paint_ruler(p, area, *times(120), colors)
        elif track.name == "thumbnails":
            self._paint_strip(p, area, *times(self._tile_w()), colors)
        elif track.name == "boundaries":
            self._paint_boundaries(p, area, *times(8), colors)
        elif track.name == "captions":
            self._paint_captions(p, area, *times(0), colors)
        elif track.name == "keyframes":
            self._paint_keyframes(p, area, *times(self._key_thumb_w() / 2 + 4), colors)
        else:
            self._paint_lane(p, area, track.lane, *times(2), colors)

    def _columns(self, times: np.ndarray) -> np.ndarray:
        """Pixel column of each time."""
        return np.floor((times - self._offset) * self._pps + HEADER_W).astype(np.int64)

    def _clamp(self, xs: np.ndarray) -> np.ndarray:
        """x positions limited to just outside the tracks' area."""
        return np.clip(xs, HEADER_W - 4, self.width() + 4)

    def _paint_ruler(self, p: QPainter, r: QRect, t0: float, t1: float, colors: _Colors) -> None:
        model = self._model
        major, minor = ruler_steps(self._pps, model.fps)
        frames_in_labels = major < 1
        hours = model.duration >= 3600
        p.setPen(colors.dim)
        if minor * self._pps >= 4:
            start = max(0, math.floor(t0 / minor))
            stop = math.ceil(min(t1, model.duration) / minor)
            per_major = round(major / minor)
            for k in range(start, stop + 1):
                if k % per_major:
                    x = int(self.x_of(k * minor))
                    p.drawLine(x, r.bottom() - 4, x, r.bottom())
        p.setFont(colors.small_font)
        baseline = r.top() + 12
        for k in range(max(0, math.floor(t0 / major)), math.ceil(min(t1, model.duration) / major) + 1):
            t = k * major
            x = int(self.x_of(t))
            p.setPen(colors.line_strong)
            p.drawLine(x, r.bottom() - 9, x, r.bottom())
            p.setPen(colors.text)
            p.drawText(x + 4, baseline, timecode(t, model.fps if frames_in_labels else None, hours))

    def _paint_strip(self, p: QPainter, r: QRect, t0: float, t1: float, colors: _Colors) -> None:
        model = self._model
        tile_w = self._tile_w()
        reach = tile_w / self._pps * model.fps
        for t in self._tile_times(t0, t1):
            target = QRect(int(self.x_of(t)), r.top() + 1, tile_w - 1, THUMBNAIL_H)
            pixmap = self._thumbnail_near(model.frame_at(t), reach)
            if pixmap is None:
                p.fillRect(target, colors.placeholder)
            else:
                p.drawPixmap(target, pixmap)

    def _paint_boundaries(self, p: QPainter, r: QRect, t0: float, t1: float, colors: _Colors) -> None:
        model = self._model
        i0, i1 = (int(i) for i in np.searchsorted(model.b_times, [t0, t1]))
        if i0 == i1:
            return
        top, height = r.top() + 3, r.height() - 6
        v0, v1 = self.visible_range()
        in_view = int(np.searchsorted(model.b_times, v1) - np.searchsorted(model.b_times, v0))
        if in_view * DENSE_BOUNDARY_PX > self._content_width():
            # One mark per pixel column and kind; cuts drawn last, on top.
            cols = self._columns(model.b_times[i0:i1])
            kinds = model.b_kinds[i0:i1]
            for code in reversed(range(len(BOUNDARY_KINDS))):
                color = BOUNDARY_COLORS[BOUNDARY_KINDS[code]]
                for a, b in _runs(np.unique(cols[kinds == code]), 1):
                    p.fillRect(a, top, b - a, height, color)
            edited = np.unique(cols[model.b_edited[i0:i1]])
            for a, b in _runs(edited, 1):
                p.fillRect(a, r.bottom() - 2, b - a, 3, EDITED_COLOR)
            return
        selected = self._selected_index("boundary", model.b_index)
        outline = QPen(EDITED_COLOR, 1.5)
        for i in range(i0, i1):
            b = model.boundaries[i]
            x = math.floor(self.x_of(b.time))
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
            x = math.floor(self.x_of(model.boundaries[selected].time))
            p.setPen(QPen(colors.highlight, 1))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(x - 5, r.top(), 10, r.height() - 1)

    def _paint_captions(self, p: QPainter, r: QRect, t0: float, t1: float, colors: _Colors) -> None:
        model = self._model
        i0 = int(np.searchsorted(model.c_ends, t0, side="right"))
        i1 = int(np.searchsorted(model.c_starts, t1))
        if i0 >= i1:
            return
        # Blocks are contiguous: one fill under them all, then separators and text on top.
        first = max(0, i0 - 1)  # the block before: decides whether the first separator shows
        x0 = (model.c_starts[first:i1] - self._offset) * self._pps + HEADER_W
        x1 = (model.c_ends[first:i1] - self._offset) * self._pps + HEADER_W
        top, height = r.top() + 3, r.height() - 6
        skip = i0 - first
        cols = np.floor(x0).astype(np.int64)
        spaced = np.diff(cols, prepend=cols[0] - CAPTION_SEPARATOR_PX) >= CAPTION_SEPARATOR_PX
        # Clamped to the view: deep in a long video the coordinates run to millions, and a
        # block's text stays readable at the left edge while its start is scrolled away.
        x0, x1 = self._clamp(x0), self._clamp(x1)
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
            for a, b in _runs(starts, ends - starts):
                p.fillRect(a, r.bottom() - 4, max(2, b - a), 3, EDITED_COLOR)
        selected = self._selected_index("caption", model.c_index)
        if selected is not None and i0 <= selected < i1:
            k = selected - first
            p.setPen(QPen(colors.highlight, 2))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(QRectF(x0[k] + 1, top, max(2.0, widths[k] - 2), height))

    def _paint_lane(self, p: QPainter, r: QRect, index: int, t0: float, t1: float, colors: _Colors) -> None:
        lane = self._model.lanes[index]
        if self._selection == ("identity", lane.identity.id):
            p.fillRect(r, colors.selection_fill)
        j0 = int(np.searchsorted(lane.ends, t0))
        j1 = int(np.searchsorted(lane.starts, t1))
        if j0 >= j1:
            return
        starts = np.floor(self._clamp((lane.starts[j0:j1] - self._offset) * self._pps + HEADER_W)).astype(np.int64)
        ends = np.ceil(self._clamp((lane.ends[j0:j1] - self._offset) * self._pps + HEADER_W)).astype(np.int64)
        for a, b in _runs(starts, np.maximum(ends - starts, 2)):
            p.fillRect(a, r.top() + 4, b - a, r.height() - 8, lane.color)

    def _paint_keyframes(self, p: QPainter, r: QRect, t0: float, t1: float, colors: _Colors) -> None:
        model = self._model
        i0, i1 = (int(i) for i in np.searchsorted(model.k_times, [t0, t1]))
        if i0 == i1:
            return
        mid = r.bottom() - 6
        v0, v1 = self.visible_range()
        in_view = int(np.searchsorted(model.k_times, v1) - np.searchsorted(model.k_times, v0))
        if in_view * DENSE_KEYFRAME_PX > self._content_width():
            for a, b in _runs(np.unique(self._columns(model.k_times[i0:i1])), 1):
                p.fillRect(a, mid - 4, b - a, 9, KEYFRAME_COLOR)
            return
        selected = self._selected_index("keyframe", model.k_index)
        thumb_w = self._key_thumb_w()
        p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        for i in self._keyframes_with_thumbnails(t0, t1):
            pixmap = self._thumbs.get(model.keyframes[i].frame)
            if pixmap is not None:
                x = self.x_of(model.k_times[i])
                frame_rect = QRectF(x - thumb_w / 2, r.top() + 2, thumb_w, KEY_THUMB_H)
                p.drawPixmap(frame_rect, pixmap, QRectF(pixmap.rect()))
                p.setPen(QPen(colors.highlight if i == selected else KEYFRAME_COLOR, 2 if i == selected else 1))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRect(frame_rect)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        for i in range(i0, i1):
            keyframe = model.keyframes[i]
            x = math.floor(self.x_of(keyframe.time)) + 0.5
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

    def _paint_video_end(self, p: QPainter, content: QRect, colors: _Colors) -> None:
        """Past the end of the video (zoomed to fit, a column or two may be left over)."""
        end = math.ceil(self.x_of(self._model.duration))
        if end <= content.right():
            p.fillRect(QRect(end, RULER_H, content.right() - end + 1, content.bottom() - RULER_H + 1), colors.base)

    def _paint_drag(self, p: QPainter, colors: _Colors) -> None:
        press = self._press
        if press is None or not press.dragging:
            return
        x = math.floor(self.x_of(press.drag_time))
        color = BOUNDARY_COLORS[press.boundary.kind]
        p.setPen(QPen(color, 1, Qt.PenStyle.DashLine))
        p.drawLine(x, RULER_H, x, self._tracks_bottom())
        r = self.track_rect("boundaries")
        p.fillRect(x - 1, r.top() + 3, 3, r.height() - 6, color)
        label = timecode(press.drag_time, self._model.fps, self._model.duration >= 3600)
        metrics = QFontMetrics(colors.small_font)
        box = QRect(x + 6, r.top() + 4, metrics.horizontalAdvance(label) + 8, r.height() - 8)
        p.fillRect(box, colors.window)
        p.setPen(colors.text)
        p.setFont(colors.small_font)
        p.drawText(box, Qt.AlignmentFlag.AlignCenter, label)

    def _paint_playhead(self, p: QPainter, colors: _Colors) -> None:
        x = math.floor(self.x_of(self._position))
        p.fillRect(x, 0, 1, self._tracks_bottom(), colors.playhead)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(colors.playhead)
        cx = x + 0.5
        p.drawPolygon(QPolygonF([QPointF(cx - 6, 0), QPointF(cx + 6, 0), QPointF(cx + 6, 8), QPointF(cx, 14),
                                 QPointF(cx - 6, 8)]))
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)

    def _paint_header(self, p: QPainter, colors: _Colors) -> None:
        model = self._model
        p.fillRect(0, 0, HEADER_W, self._tracks_bottom(), colors.window)
        metrics = QFontMetrics(colors.header_font)
        for track in self._tracks:
            box = QRect(10, track.top, HEADER_W - 18, track.height)
            if track.name == "ruler":
                p.setFont(colors.timecode_font)
                p.setPen(colors.text)
                p.drawText(box, Qt.AlignmentFlag.AlignVCenter,
                           timecode(self._position, model.fps, model.duration >= 3600))
                continue
            p.setFont(colors.header_font)
            if track.lane is not None:
                lane = model.lanes[track.lane]
                chosen = self._selection == ("identity", lane.identity.id)
                if chosen:
                    p.fillRect(0, track.top, HEADER_W - 1, track.height, colors.selection_fill)
                p.setRenderHint(QPainter.RenderHint.Antialiasing)
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(lane.color)
                cy = track.top + track.height / 2
                p.drawEllipse(QPointF(box.left() + 4, cy), 4, 4)
                if lane.identity.edited:
                    p.setBrush(EDITED_COLOR)
                    p.drawEllipse(QPointF(HEADER_W - 10, cy), 3, 3)
                p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
                box.adjust(14, 0, -10, 0)
            p.setPen(colors.text)
            p.drawText(box, Qt.AlignmentFlag.AlignVCenter,
                       metrics.elidedText(track.label, Qt.TextElideMode.ElideRight, box.width()))

    def _selected_index(self, kind: str, index: dict) -> int | None:
        if self._selection is None or self._selection[0] != kind:
            return None
        return index.get(self._selection[1])


# ---------------------------------------------------------------------- helpers


_SECOND_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400)
_SUBDIVISIONS = {1: 4, 2: 4, 5: 5, 10: 10, 15: 3, 30: 6, 60: 6, 120: 4, 300: 5, 600: 10, 900: 3, 1800: 6, 3600: 6,
                 7200: 4, 14400: 4}
LABEL_SPACING_PX = 90


def ruler_steps(pps: float, fps: float) -> tuple[float, float]:
    """(major, minor) tick spacing in seconds: labels at least LABEL_SPACING_PX apart; below
    a second, steps are whole frames and minor ticks mark every frame."""
    frame = 1 / fps
    rate = round(fps)
    if abs(fps - rate) < 0.01:  # steps that divide the second, so each second's labels start at .00
        frame_steps = [n for n in range(1, rate) if rate % n == 0]
    else:
        frame_steps = [n for n in (1, 2, 5, 10) if n < fps]
    for frames in frame_steps:
        if frames * frame * pps >= LABEL_SPACING_PX:
            return frames * frame, frame
    for step in _SECOND_STEPS:
        if step * pps >= LABEL_SPACING_PX:
            minor = step / _SUBDIVISIONS[step]
            if step == 1 and frame * pps >= 5:
                minor = frame
            return float(step), minor
    return float(_SECOND_STEPS[-1]), _SECOND_STEPS[-1] / 4


def _runs(starts: np.ndarray, widths) -> list[tuple[int, int]]:
    """Merge sorted pixel spans [start, start + width) that touch or overlap into
    (left, right) pairs: one fill per run instead of one per item."""
    if not len(starts):
        return []
    ends = np.maximum.accumulate(starts + widths)
    breaks = np.flatnonzero(starts[1:] > ends[:-1]) + 1
    firsts = np.concatenate(([0], breaks))
    lasts = np.concatenate((breaks - 1, [len(starts) - 1]))
    return list(zip(starts[firsts].tolist(), ends[lasts].tolist()))


def _nearest(times: np.ndarray, t: float, reach: float) -> int | None:
    """Index of the time nearest to ``t`` if within ``reach``."""
    if not len(times):
        return None
    i = int(np.searchsorted(times, t))
    candidates = [j for j in (i - 1, i) if 0 <= j < len(times)]
    best = min(candidates, key=lambda j: abs(times[j] - t))
    return best if abs(times[best] - t) <= reach else None


def _mix(a: QColor, b: QColor, amount: float) -> QColor:
    """``a`` moved ``amount`` of the way towards ``b``."""
    return QColor.fromRgbF(*(x + (y - x) * amount for x, y in zip(a.getRgbF()[:3], b.getRgbF()[:3])))


class _Colors:
    """The palette's colours and the fonts for one paint: follows dark and light themes."""

    def __init__(self, palette: QPalette, font: QFont):
        role = QPalette.ColorRole
        self.base = palette.color(role.Base)
        self.window = palette.color(role.Window)
        self.text = palette.color(role.Text)
        self.dim = palette.color(role.PlaceholderText)
        self.highlight = palette.color(role.Highlight)
        self.playhead = palette.color(role.WindowText)
        self.stripe = _mix(self.base, self.text, 0.03)
        self.line = _mix(self.base, self.text, 0.14)
        self.line_strong = _mix(self.base, self.text, 0.45)
        self.placeholder = _mix(self.base, self.text, 0.08)
        self.caption_fill = _mix(self.base, CAPTION_COLOR, 0.35)
        self.caption_fill_alt = _mix(self.base, CAPTION_COLOR, 0.48)
        self.selection_fill = QColor(self.highlight)
        self.selection_fill.setAlpha(70)
        self.header_font = font
        self.small_font = QFont(font)
        self.small_font.setPointSizeF(font.pointSizeF() * 0.85)
        self.timecode_font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


@dataclass
class _Track:
    name: str
    label: str
    height: int
    lane: int | None = None  # index into _Model.lanes for identity tracks
    top: int = 0


@dataclass
class _Hit:
    kind: str
    key: object
    time: float  # where clicking it seeks to
    index: int  # into the model's sorted items (lanes for identities)
    end: float = 0.0  # identities: end of the appearance


@dataclass
class _Press:
    """A left button press in progress: scrubbing the playhead or dragging a boundary."""

    x: float
    scrub: bool = False
    boundary: Boundary | None = None  # the pressed boundary (kept if a new analysis arrives meanwhile)
    dragging: bool = False
    drag_time: float = 0.0
    seek_time: float | None = None  # scrubbing: the last time sent


@dataclass
class _Lane:
    identity: Identity
    label: str
    color: QColor
    starts: np.ndarray  # appearances, sorted and merged so that ends are sorted too
    ends: np.ndarray


class _Model:
    """An Analysis as sorted arrays, built once per set_analysis so paints only slice."""

    def __init__(self, analysis: Analysis):
        self.analysis = analysis
        video = analysis.video
        self.video_key = (analysis.content_hash, video.path)
        self.fps = video.fps if video.fps > 0 else 25.0
        self.frame_count = max(1, video.frame_count)
        self.aspect = video.width / video.height if video.width > 0 and video.height > 0 else 16 / 9
        latest = max([0.0, *(b.time for b in analysis.boundaries), *(c.time for c in analysis.captions),
                      *(k.time for k in analysis.keyframes)])
        self.duration = max(video.duration, latest + 1 / self.fps)

        self.boundaries: list[Boundary] = sorted(analysis.boundaries, key=lambda b: (b.time, b.frame))
        self.b_times = np.array([b.time for b in self.boundaries], np.float64)
        self.b_kinds = np.array([BOUNDARY_KINDS.index(b.kind) for b in self.boundaries], np.int8)
        self.b_edited = np.array([b.edited for b in self.boundaries], bool)
        self.b_index = {b.frame: i for i, b in enumerate(self.boundaries)}

        # A block lasts as long as the caption applies, as a subtitle cue does.
        self.captions, self.c_ends = caption_spans(analysis, self.duration)
        self.c_starts = np.array([c.time for c in self.captions], np.float64)
        self.c_edited = np.array([c.edited for c in self.captions], bool)
        self.c_index = {c.frame: i for i, c in enumerate(self.captions)}

        self.lanes = [self._lane(identity) for identity in analysis.identities]

        self.keyframes: list[Keyframe] = sorted(analysis.keyframes, key=lambda k: (k.time, k.frame))
        self.k_times = np.array([k.time for k in self.keyframes], np.float64)
        self.k_index = {k.frame: i for i, k in enumerate(self.keyframes)}

    def frame_at(self, seconds: float) -> int:
        return min(max(0, int(seconds * self.fps + 1e-6)), self.frame_count - 1)

    @staticmethod
    def _lane(identity: Identity) -> _Lane:
        spans = sorted((a.start, max(a.start, a.end)) for a in identity.appearances)
        merged: list[list[float]] = []
        for start, end in spans:
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        bounds = np.array(merged, np.float64).reshape(-1, 2)
        label = f"{identity.id} {identity.name}" if identity.name else identity.id
        return _Lane(identity, label, identity_color(identity.id), bounds[:, 0].copy(), bounds[:, 1].copy())
