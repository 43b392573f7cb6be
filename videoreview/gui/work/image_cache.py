"""The decoded-image cache of the frame loaders (thumbnails, the player's paused frames,
face crops, the library's stills): least recently used out first."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable

from PySide6.QtGui import QImage


class ImageCache:
    def __init__(self, size: int) -> None:
        self.size = size
        self._images: OrderedDict[Hashable, QImage] = OrderedDict()

    def __len__(self) -> int:
        return len(self._images)

    def get(self, key: Hashable) -> QImage | None:
        image = self._images.get(key)
        if image is not None:
            self._images.move_to_end(key)
        return image

    def put(self, key: Hashable, image: QImage) -> None:
        self._images[key] = image
        self._images.move_to_end(key)
        while len(self._images) > self.size:
            self._images.popitem(last=False)
