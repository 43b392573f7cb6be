"""The thumbnail strip: frames of the video side by side, as far as the zoom allows."""

from __future__ import annotations

from PySide6.QtCore import QRect

from .base import THUMBNAIL_H, Track

COMPACT_THUMBNAIL_H = 32  # where the tracks do not all fit


class ThumbnailTrack(Track):
    name, label, height, compact_height = "thumbnails", "Thumbnails", THUMBNAIL_H + 2, COMPACT_THUMBNAIL_H + 2

    def margin_px(self, view) -> float:
        return view.tile_w()

    def paint(self, view, p, r, t0, t1, colors) -> None:
        model = view.model
        tile_w = view.tile_w()
        reach = tile_w / view.pps * model.fps
        for t in view.tile_times(t0, t1):
            target = QRect(int(view.x_of(t)), r.top() + 1, tile_w - 1, r.height() - 2)
            pixmap = view.thumbs.near(model.frame_at(t), reach)
            if pixmap is None:
                p.fillRect(target, colors.placeholder)
            else:
                p.drawPixmap(target, pixmap)
