"""The timeline's pixmaps of decoded frames, for the thumbnail strip and the keyframe track."""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import OrderedDict

from PySide6.QtGui import QPixmap

MAX_THUMBNAILS = 800  # pixmaps kept (about 20 KB each)


class Thumbnails:
    """Pixmaps of frames for the strip and the keyframe track, least recently set dropped first."""

    def __init__(self) -> None:
        self._pixmaps: OrderedDict[int, QPixmap] = OrderedDict()
        self._frames: list[int] = []  # the same frames, sorted, to find a near one

    def __len__(self) -> int:
        return len(self._pixmaps)

    def clear(self) -> None:
        self._pixmaps.clear()
        self._frames.clear()

    def get(self, frame: int) -> QPixmap | None:
        return self._pixmaps.get(frame)

    def put(self, frame: int, pixmap: QPixmap) -> None:
        if frame not in self._pixmaps:
            insort(self._frames, frame)
        self._pixmaps[frame] = pixmap
        self._pixmaps.move_to_end(frame)
        while len(self._pixmaps) > MAX_THUMBNAILS:
            dropped, _ = self._pixmaps.popitem(last=False)
            del self._frames[bisect_left(self._frames, dropped)]

    def near(self, frame: int, reach: float) -> QPixmap | None:
        """The pixmap of ``frame`` or, while that one is loading, of the loaded frame nearest
        to it within ``reach`` frames (so zooming does not flash placeholders)."""
        pixmap = self._pixmaps.get(frame)
        if pixmap is not None or not self._frames:
            return pixmap
        i = bisect_left(self._frames, frame)
        near = [f for f in self._frames[max(0, i - 1):i + 1] if abs(f - frame) <= reach]
        return self._pixmaps[min(near, key=lambda f: abs(f - frame))] if near else None
