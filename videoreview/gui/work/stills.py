"""Still frames of any video at a time, for the library panel's video list and search
results: decoded on a thread of their own (background.py's DecoderThread), newest request
first, with an LRU cache of images and of open files (a result list asks for several
moments of the same videos)."""

from __future__ import annotations

from collections import OrderedDict

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtGui import QImage

from ...media import open_video
from ...timecode import nearest_frame
from .background import DecoderThread, DecoderWorker
from .image_cache import ImageCache
from .thumbnails import to_qimage

OPEN_FILES = 4


class StillLoader(QObject):
    """``request(key, path, seconds)``; ``ready(key, image)`` when decoded. A file that
    cannot be read gives no image (the list keeps its placeholder)."""

    ready = Signal(str, QImage)
    _wanted = Signal(str, str, float, int)

    def __init__(self, parent: QObject | None = None, height: int = 54, cache_size: int = 1024) -> None:
        super().__init__(parent)
        self.height = height
        self._cache = ImageCache(cache_size)
        self._closed = False
        worker = _Worker()
        self._wanted.connect(worker.want)
        worker.decoded.connect(self._on_decoded)
        self._decoder = DecoderThread(worker)

    def request(self, key: str, path: str, seconds: float) -> None:
        if self._closed:
            return
        image = self._cache.get((path, round(seconds, 2)))
        if image is not None:
            self.ready.emit(key, image)
        else:
            self._wanted.emit(key, path, float(seconds), self.height)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._decoder.close()

    @Slot(str, str, float, QImage)
    def _on_decoded(self, key: str, path: str, seconds: float, image: QImage) -> None:
        self._cache.put((path, round(seconds, 2)), image)
        if not self._closed:
            self.ready.emit(key, image)


class _Worker(DecoderWorker):
    decoded = Signal(str, str, float, QImage)

    def __init__(self) -> None:
        super().__init__()
        self._requests: OrderedDict[str, tuple[str, float, int]] = OrderedDict()  # key -> (path, seconds, height)
        self._sources: OrderedDict[str, object] = OrderedDict()
        self._broken: set[str] = set()

    @Slot(str, str, float, int)
    def want(self, key: str, path: str, seconds: float, height: int) -> None:
        self._requests.pop(key, None)
        self._requests[key] = (path, seconds, height)
        self.schedule()

    def release(self) -> None:
        for source in self._sources.values():
            source.close()
        self._sources.clear()
        self._requests.clear()

    def turn(self) -> bool:
        """One still per turn of the event loop, the newest request first."""
        if not self._requests:
            return False
        key, (path, seconds, height) = self._requests.popitem(last=True)
        image = self._decode(path, seconds, height)
        if image is not None:
            self.decoded.emit(key, path, seconds, image)
        return bool(self._requests)

    def _decode(self, path: str, seconds: float, height: int) -> QImage | None:
        if path in self._broken:
            return None
        try:
            source = self._source(path)
            info = source.info
            frame = nearest_frame(seconds, info.fps, info.frame_count)
            size = (max(2, round(height * info.width / info.height)), height)
            return to_qimage(source.frames_at_indices([frame], size=size).frames[0])
        except Exception:  # missing, moved or damaged: no picture, the list says the rest
            self._broken.add(path)
            return None

    def _source(self, path: str):
        source = self._sources.pop(path, None)
        if source is None:
            # PyAV seeks straight to the frame (decord would index the whole file first).
            source = open_video(path, backend="pyav")
            while len(self._sources) >= OPEN_FILES:
                self._sources.popitem(last=False)[1].close()
        self._sources[path] = source
        return source
