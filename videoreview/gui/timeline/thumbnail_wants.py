"""Which frames the timeline's thumbnail strip and keyframe track want at the current zoom
and scroll, and taking the decoded ones in: a part of the Timeline widget (view.py), which
asks the ThumbnailLoader for ``thumbnail_frames`` through ``thumbnailsWanted``."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPixmap

from .tracks import KEY_THUMB_H, THUMBNAIL_H


class ThumbnailWants:
    """Mixed into Timeline: it has ``model``, ``pps``, ``thumbs``, ``_strip_h``, ``_wanted``
    and the ``thumbnailsWanted`` signal."""

    def set_thumbnail(self, frame: int, image: QImage) -> None:
        """A decoded frame for the thumbnail strip and the keyframe track (any height: it
        is scaled to the strip)."""
        if self.model is None or image.isNull():
            return
        if image.height() != THUMBNAIL_H:
            image = image.scaledToHeight(THUMBNAIL_H, Qt.TransformationMode.SmoothTransformation)
        self.thumbs.put(frame, QPixmap.fromImage(image))
        for name in ("thumbnails", "keyframes"):
            self.update(self.track_rect(name))

    def thumbnail_frames(self) -> list[int]:
        """The frames the thumbnail strip and the keyframe track want at the current zoom
        and scroll position, left to right, without repeats."""
        model = self.model
        if model is None:
            return []
        t0, t1 = self.visible_range()
        frames = {model.frame_at(t): None for t in self.tile_times(t0, t1)}
        for i in self.keyframes_with_thumbnails(t0, t1):
            frames[model.keyframes[i].frame] = None
        return list(frames)

    def tile_w(self) -> int:
        return max(16, round(self._strip_h * self.model.aspect))

    def key_thumb_w(self) -> int:
        return max(10, round(KEY_THUMB_H * self.model.aspect)) if self.model is not None else 0

    def tile_times(self, t0: float, t1: float) -> list[float]:
        """Start times of the strip's tiles between t0 and t1. Tiles sit at multiples of one
        tile width, so scrolling keeps them (and the frames they want) in place."""
        step = self.tile_w() / self.pps
        first = max(0, math.floor(t0 / step))
        last = min(math.ceil(t1 / step), math.ceil(self.model.duration / step))
        return [k * step for k in range(first, last)]

    def keyframes_with_thumbnails(self, t0: float, t1: float) -> list[int]:
        """Indices of the keyframes between t0 and t1 with room for a thumbnail: both
        neighbours at least a thumbnail width away, so any paint region picks the same ones."""
        times = self.model.keyframe_times
        i0, i1 = (int(i) for i in np.searchsorted(times, [t0, t1]))
        room = (self.key_thumb_w() + 6) / self.pps
        apart = (np.diff(times, prepend=-math.inf) >= room) & (np.diff(times, append=math.inf) >= room)
        return (np.flatnonzero(apart[i0:i1]) + i0).tolist()

    def _emit_thumbnails_wanted(self) -> None:
        frames = self.thumbnail_frames()
        if frames and frames != self._wanted:
            self._wanted = frames
            self.thumbnailsWanted.emit(frames)
