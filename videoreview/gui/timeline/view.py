"""The timeline widget: its tracks (tracks/) stacked like a video editor's under one zoom
and scroll, painted in one paintEvent (painting.py) from the index's sorted arrays (a few
milliseconds even with tens of thousands of items); it seeks, selects, drags boundaries,
asks for thumbnails. Where the tracks are taller than the widget, the ruler stays at the
top and the rest scrolls (a vertical scroll bar, the wheel over the track names, or
Alt+wheel), so a short timeline leaves the picture its room."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QApplication, QScrollBar, QToolTip, QWidget

from ...records import Analysis, Boundary
from ..analysis_index import AnalysisIndex
from .painting import paint
from .style import Colors
from .thumbnail_wants import ThumbnailWants
from .thumbs import Thumbnails
from .tracks import RULER_H, THUMBNAIL_H, Hit, Track
from .tracks import tracks as track_kinds  # (a local is named tracks)

HEADER_W = 136  # the fixed column of track names on the left
MAX_PX_PER_FRAME = 48  # deepest zoom
ZOOM_STEP = 1.25  # per wheel notch
LANE_SCROLL_PX = 26  # per wheel notch, scrolling the tracks up and down
MIN_VISIBLE_TRACKS_PX = 3 * 26  # the least a timeline shows under its ruler
BUTTON_ZOOM = 1.5  # per zoom_in() / zoom_out()
THUMBNAIL_DEBOUNCE_MS = 60


@dataclass
class _Press:
    """A left button press in progress: scrubbing the playhead or dragging a boundary."""

    x: float
    scrub: bool = False
    boundary: Boundary | None = None  # the pressed boundary (kept if a new analysis arrives meanwhile)
    dragging: bool = False
    drag_time: float = 0.0
    seek_time: float | None = None  # scrubbing: the last time sent


class Timeline(ThumbnailWants, QWidget):
    """Multi-track timeline of one Analysis. Times are seconds; x positions are widget
    coordinates, the tracks starting right of a fixed header column."""

    seekRequested = Signal(float)
    selected = Signal(str, object)  # kind (a capability key, "keyframe" or "note"), key
    boundaryDragged = Signal(int, float)  # old frame, new time (snapped to a frame)
    zoomChanged = Signal(float)  # pixels per second
    thumbnailsWanted = Signal(list)  # frames the strip and keyframe track now show

    THUMBNAIL_HEIGHT = THUMBNAIL_H
    left = HEADER_W  # where the tracks start: for the tracks' painting

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setMouseTracking(True)  # hover cursor over draggable boundary markers
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)  # every paint fills its whole rect
        self.model: AnalysisIndex | None = None
        self.pps = 1.0  # zoom: pixels per second
        self.offset = 0.0  # time at the left edge of the tracks
        self._fit = True  # showing the whole video: stays so when the widget is resized
        self._position = 0.0
        self._selection: tuple[str, object] | None = None
        self._marks: tuple[float, float] | None = None  # the range marked with I and O
        self._press: _Press | None = None
        self.thumbs = Thumbnails()
        self._wanted: list[int] = []
        self._tracks: list[Track] = []
        self._strip_h = THUMBNAIL_H  # the thumbnails' height now (less where the tracks do not all fit)
        self.last_paint_ms = 0.0

        self._scrollbar = QScrollBar(Qt.Orientation.Horizontal, self)
        self._scrollbar.valueChanged.connect(self._on_scrollbar)
        self._lanes_bar = QScrollBar(Qt.Orientation.Vertical, self)  # shown when the tracks overflow
        self._lanes_bar.hide()
        self._lanes_bar.valueChanged.connect(self._on_lanes_bar)
        self._thumb_timer = QTimer(self)
        self._thumb_timer.setSingleShot(True)
        self._thumb_timer.setInterval(THUMBNAIL_DEBOUNCE_MS)
        self._thumb_timer.timeout.connect(self._emit_thumbnails_wanted)
        self._layout_tracks()

    # ------------------------------------------------------------------ public API

    def set_analysis(self, analysis: Analysis | None) -> None:
        """Show ``analysis`` (None: nothing). A new analysis of the same video keeps the
        zoom, scroll position, selection and thumbnails; another video starts zoomed to fit."""
        old = self.model
        self.model = AnalysisIndex.of(analysis) if analysis is not None else None
        same_video = old is not None and self.model is not None and old.video_key == self.model.video_key
        if not same_video:
            self._selection = None
            self._press = None
            self.thumbs.clear()
            self._wanted = []
            self._fit = True
        self._layout_tracks()
        self.updateGeometry()
        if self.model is None:
            self.update()
            return
        self._position = min(self._position, self.model.duration)
        self._set_view(0.0 if self._fit else self.pps, self.offset)  # 0: clamped to the fitting zoom

    def analysis(self) -> Analysis | None:
        return self.model.analysis if self.model is not None else None

    def set_position(self, seconds: float) -> None:
        """Move the playhead. While it moves past the right edge the view pages along."""
        if self.model is None:
            self._position = max(0.0, seconds)
            return
        seconds = min(max(0.0, seconds), self.model.duration)
        old = self._position
        if seconds == old:
            return
        was_visible = self._is_visible(old)
        self._position = seconds
        if was_visible and not self._is_visible(seconds):
            span = self._span()
            # Playing forward: turn the page. Jumping back: centre on it.
            start = seconds - 0.05 * span if seconds > old else seconds - 0.5 * span
            self._set_view(self.pps, start)
            return
        self.update(QRect(0, 0, HEADER_W, RULER_H))  # the timecode there
        old_x, new_x = math.floor(self.x_of(old)), math.floor(self.x_of(seconds))
        if old_x != new_x:
            for x in (old_x, new_x):
                self.update(QRect(x - 7, 0, 15, self.tracks_bottom()))

    def position(self) -> float:
        return self._position

    def set_selection(self, kind: str | None, key: object = None) -> None:
        """Highlight one item (kind and key as in ``selected``); None clears."""
        selection = (kind, key) if kind is not None else None
        if selection != self._selection:
            self._selection = selection
            self.update()

    def selection(self) -> tuple[str, object] | None:
        return self._selection

    def set_marks(self, marks: tuple[float, float] | None) -> None:
        """Show the range being marked for a note (start and end times), or none."""
        if marks != self._marks:
            self._marks = marks
            self.update()

    def marks(self) -> tuple[float, float] | None:
        return self._marks

    def selected_index(self, kind: str, index: dict | None = None) -> int | None:
        """The selected item's position in the model's list, if of ``kind``: looked up in
        ``index`` (kind's key -> position), or the key itself when there is no index (an
        on-screen text span is selected by its position)."""
        if self._selection is None or self._selection[0] != kind:
            return None
        return self._selection[1] if index is None else index.get(self._selection[1])

    def zoom_in(self) -> None:
        self._zoom(BUTTON_ZOOM, self._zoom_anchor())

    def zoom_out(self) -> None:
        self._zoom(1 / BUTTON_ZOOM, self._zoom_anchor())

    def zoom_to_fit(self) -> None:
        self._set_view(0.0, 0.0)

    def pixels_per_second(self) -> float:
        return self.pps

    def visible_range(self) -> tuple[float, float]:
        """First and last second the tracks show."""
        return self.offset, self.offset + self._span()

    # -- geometry, for the tracks, the owner and tests

    def x_of(self, seconds):
        """x of a time (or of an array of times)."""
        return HEADER_W + (seconds - self.offset) * self.pps

    def time_at(self, x: float) -> float:
        return self.offset + (x - HEADER_W) / self.pps

    def columns(self, times: np.ndarray) -> np.ndarray:
        """Pixel column of each time."""
        return np.floor((times - self.offset) * self.pps + HEADER_W).astype(np.int64)

    def clamp_x(self, xs: np.ndarray) -> np.ndarray:
        """x positions limited to just outside the tracks' area."""
        return np.clip(xs, HEADER_W - 4, self.width() + 4)

    def content_width(self) -> int:
        lanes_bar = self._lanes_bar.sizeHint().width() if self._lanes_bar.isVisibleTo(self) else 0
        return max(1, self.width() - HEADER_W - lanes_bar)

    def scroll_lanes(self, pixels: int) -> None:
        """Scroll the tracks under the ruler by ``pixels`` (down: positive), where they overflow."""
        self._lanes_bar.setValue(self._lanes_bar.value() + pixels)

    def reveal(self, *names: str) -> None:
        """Scroll the tracks under the ruler so the named ones show (from the first, as many as fit)."""
        tracks = [t for t in self._tracks if t.name in names and t.name != "ruler"]
        if not tracks or not self._lanes_bar.isVisibleTo(self):
            return
        first, last = min(t.top for t in tracks), max(t.top + t.height for t in tracks)
        if first < RULER_H:
            self.scroll_lanes(first - RULER_H)
        elif last > self.view_bottom():
            self.scroll_lanes(min(last - self.view_bottom(), first - RULER_H))

    def lanes_scroll(self) -> int:
        """How far the tracks under the ruler are scrolled down, in pixels (0: not scrolled)."""
        return self._lanes_bar.value()

    def visible_tracks(self) -> list[str]:
        """The tracks shown whole now (the ruler included)."""
        bottom = self.view_bottom()
        return [t.name for t in self._tracks
                if t.name == "ruler" or (t.top >= RULER_H and t.top + t.height <= bottom)]

    def view_bottom(self) -> int:
        """Where the tracks' area ends: above the horizontal scroll bar."""
        return self.height() - self._scrollbar.sizeHint().height()

    def track_rect(self, name: str) -> QRect:
        """The area of a track right of the header column: "ruler", "thumbnails",
        "boundaries", "captions", "keyframes", "faces:P1", ...; a null QRect if there is
        no such track."""
        for track in self._tracks:
            if track.name == name:
                return QRect(HEADER_W, track.top, self.content_width(), track.height)
        return QRect()

    def track_names(self) -> list[str]:
        return [track.name for track in self._tracks]

    def item_at(self, pos: QPoint | QPointF) -> tuple[str, object] | None:
        """(kind, key) of the item under ``pos``, as ``selected`` would give it."""
        found = self._hit(pos)
        return (found[1].kind, found[1].key) if found is not None else None

    def tooltip_at(self, pos: QPoint | QPointF) -> str:
        """What hovering at ``pos`` shows: a caption's full text, a boundary's details, ..."""
        found = self._hit(pos)
        return found[0].tooltip(self, found[1]) if found is not None else ""

    # ------------------------------------------------------------------ Qt overrides

    def sizeHint(self) -> QSize:
        """Room for every track."""
        tracks = sum(kind.reserved_height(self.model) for kind in track_kinds())
        return QSize(900, max(260, tracks + self._scrollbar.sizeHint().height()))

    def minimumSizeHint(self) -> QSize:
        """The ruler and a few tracks: the rest scrolls."""
        return QSize(HEADER_W + 240, RULER_H + MIN_VISIBLE_TRACKS_PX + self._scrollbar.sizeHint().height())

    def resizeEvent(self, event) -> None:
        self._layout_tracks()
        if self.model is not None:
            self._set_view(0.0 if self._fit else self.pps, self.offset)
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
        if self.model is None or not delta:
            event.ignore()
            return
        over_names = event.position().x() < HEADER_W
        if (over_names or event.modifiers() & Qt.KeyboardModifier.AltModifier) and self._lanes_bar.isVisibleTo(self):
            self.scroll_lanes(round(-delta / 120 * LANE_SCROLL_PX))
        elif event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self._zoom(ZOOM_STEP ** (delta / 120), event.position().x())
        else:
            self._set_view(self.pps, self.offset - delta / 120 * 0.1 * self._span())
        event.accept()

    def mousePressEvent(self, event) -> None:
        if self.model is None or event.button() != Qt.MouseButton.LeftButton:
            super().mousePressEvent(event)
            return
        pos = event.position()
        if pos.x() < HEADER_W:
            self._click_header(pos)
            return
        found = self._hit(pos)
        if found is None:
            self._press = _Press(pos.x(), scrub=True)
            self._scrub(pos.x())
            return
        hit = found[1]
        self._selection = (hit.kind, hit.key)
        self.update()
        self.selected.emit(hit.kind, hit.key)
        self.seekRequested.emit(hit.time)
        if hit.kind == "boundaries":
            self._press = _Press(pos.x(), boundary=self.model.boundaries[hit.index])

    def mouseMoveEvent(self, event) -> None:
        x = event.position().x()
        press = self._press
        if press is None:
            found = self._hit(event.position())
            if found is not None and found[1].kind == "boundaries":
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
                press.drag_time = self.model.snap(self.time_at(x))
                self.update()

    def mouseReleaseEvent(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton or self._press is None:
            return
        press, self._press = self._press, None
        if press.dragging:
            self.update()
            new_time = self.model.snap(self.time_at(event.position().x()))
            if self.model.frame_at(new_time) != press.boundary.frame:
                self.boundaryDragged.emit(press.boundary.frame, new_time)

    # ------------------------------------------------------------------ view

    def _span(self) -> float:
        return self.content_width() / self.pps

    def _is_visible(self, seconds: float) -> bool:
        return self.offset <= seconds <= self.offset + self._span()

    def _fit_pps(self) -> float:
        return self.content_width() / self.model.duration

    def _clamp_pps(self, pps: float) -> float:
        """Between fitting the whole video and MAX_PX_PER_FRAME."""
        fit = self._fit_pps()
        return min(max(pps, fit), max(fit, self.model.fps * MAX_PX_PER_FRAME))

    def _set_view(self, pps: float, offset: float) -> None:
        """Zoom to ``pps`` with ``offset`` seconds at the left edge, both clamped."""
        model = self.model
        if model is None:
            return
        pps = self._clamp_pps(pps)
        offset = min(max(0.0, offset), max(0.0, model.duration - self.content_width() / pps))
        zoomed = pps != self.pps
        self.pps, self.offset = pps, offset
        self._fit = pps <= self._fit_pps() * (1 + 1e-9)
        self._sync_scrollbar()
        self.update()
        self._thumb_timer.start()
        if zoomed:
            self.zoomChanged.emit(pps)

    def _zoom(self, factor: float, anchor_x: float) -> None:
        """Zoom by ``factor`` keeping the time under ``anchor_x`` where it is."""
        if self.model is None:
            return
        anchor = self.time_at(anchor_x)
        pps = self._clamp_pps(self.pps * factor)
        self._set_view(pps, anchor - (anchor_x - HEADER_W) / pps)

    def _zoom_anchor(self) -> float:
        """The playhead when it is in view, else the middle."""
        if self._is_visible(self._position):
            return self.x_of(self._position)
        return HEADER_W + self.content_width() / 2

    def _sync_scrollbar(self) -> None:
        total = self.model.duration * self.pps
        width = self.content_width()
        bar = self._scrollbar
        bar.blockSignals(True)
        bar.setRange(0, max(0, math.ceil(total - width)))
        bar.setPageStep(width)
        bar.setSingleStep(max(1, width // 10))
        bar.setValue(round(self.offset * self.pps))
        bar.blockSignals(False)

    def _on_scrollbar(self, value: int) -> None:
        if self.model is not None:
            self._set_view(self.pps, value / self.pps)

    # ------------------------------------------------------------------ layout and hits

    def _layout_tracks(self) -> None:
        """Stack the tracks; where they are taller than the widget, at their compact heights,
        and if that is still too tall, with the lanes' scroll bar shifting the tracks under
        the ruler."""
        tracks = [track for kind in track_kinds() for track in kind.rows(self.model)]
        if sum(track.height for track in tracks) > self.view_bottom():  # lanes follow the window's height
            for track in tracks:
                track.height = track.compact_height or track.height
        self._strip_h = next((t.height - 2 for t in tracks if t.name == "thumbnails"), THUMBNAIL_H)
        overflow = sum(track.height for track in tracks) - self.view_bottom()
        bar = self._lanes_bar
        bar.blockSignals(True)
        bar.setVisible(overflow > 0)
        bar.setRange(0, max(0, overflow))
        bar.setPageStep(max(1, self.view_bottom() - RULER_H))
        bar.setSingleStep(LANE_SCROLL_PX)
        bar.blockSignals(False)
        top = 0
        for track in tracks:
            track.top = top - (bar.value() if track.name != "ruler" else 0)
            top += track.height
        self._tracks = tracks
        scroll_h = self._scrollbar.sizeHint().height()
        self._scrollbar.setGeometry(HEADER_W, self.height() - scroll_h, self.content_width(), scroll_h)
        width = bar.sizeHint().width()
        bar.setGeometry(self.width() - width, RULER_H, width, self.view_bottom() - RULER_H)

    def _on_lanes_bar(self, _value: int) -> None:
        self._layout_tracks()
        self.update()

    def tracks_bottom(self) -> int:
        """The bottom of the last track, or of the tracks' area where they overflow it."""
        last = self._tracks[-1]
        return min(last.top + last.height, self.view_bottom())

    def _track_at(self, y: float) -> Track | None:
        for track in self._tracks:
            if track.top <= y < track.top + track.height:
                return track
        return None

    def _hit(self, pos: QPoint | QPointF) -> tuple[Track, Hit] | None:
        if self.model is None or pos.x() < HEADER_W:
            return None
        track = self._track_at(pos.y())
        hit = track.hit_at(self, self.time_at(pos.x()), pos.y()) if track is not None else None
        return (track, hit) if hit is not None else None

    def _click_header(self, pos: QPointF) -> None:
        """A click on an identity's name selects the identity (no particular time to seek to)."""
        track = self._track_at(pos.y())
        if track is not None and track.name.startswith("faces:"):
            pid = track.name.partition(":")[2]
            self._selection = ("faces", pid)
            self.update()
            self.selected.emit("faces", pid)

    def _scrub(self, x: float) -> None:
        """Seek to the start of the frame under ``x``, once per frame while dragging."""
        model = self.model
        seconds = model.frame_at(self.time_at(x)) / model.fps
        if seconds != self._press.seek_time:
            self._press.seek_time = seconds
            self.seekRequested.emit(seconds)

    # ------------------------------------------------------------------ painting

    def paintEvent(self, event) -> None:
        started = time.perf_counter()
        painter = QPainter(self)
        colors = Colors(self.palette(), self.font())
        if self.model is None:
            painter.fillRect(event.rect(), colors.base)
            painter.setPen(colors.dim)
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "No video")
        else:
            press = self._press
            drag = (press.boundary, press.drag_time) if press is not None and press.dragging else None
            # Rect by rect: a moving playhead damages two thin strips, not what lies between.
            for rect in event.region():
                painter.setClipRect(rect)
                paint(self, painter, rect, colors, self._tracks, drag)
        painter.end()
        self.last_paint_ms = (time.perf_counter() - started) * 1000
