"""What every track is: a ``Track`` paints its row, says what is under a click (a
``Hit``) and what its tooltip reads, and paints its name in the header column; with the
row heights the view lays out and the helpers the tracks share."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFontMetrics, QPainter

from ...analysis_index import AnalysisIndex, nearest

RULER_H = 24
THUMBNAIL_H = 54  # height of the strip's thumbnails: what to ask the ThumbnailLoader for
KEY_THUMB_H = 24
MARKER_HIT_PX = 5  # how near a boundary marker a click must be to grab it


@dataclass
class Hit:
    # As Timeline.selected gives it: the capability key of what a capability's track shows ("boundaries",
    # "captions", "faces" (an identity), "speech", "screen-text", "objects", "image-text" (a shot tag; key: its
    # shot's first frame and its name), "poses" (key: the person track's id and its status span's index, None
    # where no status is known)), or "keyframe", "note".
    kind: str
    key: object
    time: float  # where clicking it seeks to
    index: int  # into the model's sorted items (lanes for identities)
    end: float = 0.0  # identities: end of the appearance; objects: of the object track; people: of the span


class Track:
    name = ""
    label = ""
    capability: str | None = None  # the capability whose results it shows (capabilities.py)
    height = 26
    compact_height: int | None = None  # its height where the tracks do not all fit (None: the same)
    top = 0  # set by the timeline's layout

    @classmethod
    def rows(cls, model: AnalysisIndex | None) -> list[Track]:
        """The rows this track adds for ``model`` (None: no video open)."""
        return [cls()]

    @classmethod
    def reserved_height(cls, model: AnalysisIndex | None) -> int:
        """Height kept for this track in the timeline's minimum size."""
        return cls.height

    def margin_px(self, view) -> float:
        """How far beyond its time an item is drawn: a paint takes those items in too."""
        return 0.0

    def paint(self, view, p: QPainter, r: QRect, t0: float, t1: float, colors) -> None:
        pass

    def hit(self, view, t: float) -> Hit | None:
        return None

    def hit_at(self, view, t: float, y: float) -> Hit | None:
        """What a click at time ``t`` and height ``y`` (widget coordinates) hits: for a
        track of several lanes; the others go by the time alone (``hit``)."""
        return self.hit(view, t)

    def tooltip(self, view, hit: Hit) -> str:
        return ""

    def paint_header(self, view, p: QPainter, box: QRect, colors) -> None:
        p.setFont(colors.header_font)
        p.setPen(colors.text)
        metrics = QFontMetrics(colors.header_font)
        p.drawText(box, Qt.AlignmentFlag.AlignVCenter,
                   metrics.elidedText(self.label, Qt.TextElideMode.ElideRight, box.width()))


class OnlyWhenAnalysed(Track):
    """A row shown only for an analysis that has what it shows."""

    @classmethod
    def shown(cls, model: AnalysisIndex | None) -> bool:
        return False

    @classmethod
    def rows(cls, model) -> list[Track]:
        return [cls()] if cls.shown(model) else []

    @classmethod
    def reserved_height(cls, model) -> int:
        return cls.height if cls.shown(model) else 0


def marker_hit(kind: str, times, items, t: float, reach: float) -> Hit | None:
    """The item (a boundary, a keyframe: sorted by ``times``) nearest to ``t`` within ``reach`` seconds."""
    i = nearest(times, t, reach)
    return None if i is None else Hit(kind, items[i].frame, items[i].time, i)


def shows_hours(model: AnalysisIndex) -> bool:
    """Whether timecodes need hours: the video lasts an hour or more."""
    return model.duration >= 3600


def runs(starts: np.ndarray, widths) -> list[tuple[int, int]]:
    """Merge sorted pixel spans [start, start + width) that touch or overlap into
    (left, right) pairs: one fill per run instead of one per item."""
    if not len(starts):
        return []
    ends = np.maximum.accumulate(starts + widths)
    breaks = np.flatnonzero(starts[1:] > ends[:-1]) + 1
    firsts = np.concatenate(([0], breaks))
    lasts = np.concatenate((breaks - 1, [len(starts) - 1]))
    return list(zip(starts[firsts].tolist(), ends[lasts].tolist()))
