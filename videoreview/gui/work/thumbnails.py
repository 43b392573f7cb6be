"""Decoding frames off the GUI thread: thumbnails, the player's paused frames, face crops.

The loader runs a worker object on a thread of its own (background.py's DecoderThread);
requests go to the worker and images come back as queued signals, so the GUI thread never
waits on a decode. The worker takes a few frames per turn of its event loop, which lets a
newer request (the user scrolled on) overtake the frames still queued from an older one.
"""

from __future__ import annotations

import os
from collections import deque

import numpy as np
from PySide6.QtCore import QObject, QRect, Qt, QThread, Signal, Slot
from PySide6.QtGui import QImage

from ...media import open_video
from .background import DecoderThread, DecoderWorker
from .image_cache import ImageCache

FRAMES_PER_TURN = 4  # decoded between looks at new requests
CROP_MARGIN = 0.3  # space around a face box, as a share of its size


class ThumbnailLoader(QObject):
    """Frames (``ready``) and face crops (``cropReady``) of one video, decoded in a
    thread of their own, with an LRU cache so repeated requests are answered at once.
    ``opened`` gives every frame's time once the file is open."""

    ready = Signal(int, QImage)  # frame, RGB image of the requested height
    cropReady = Signal(str, QImage)  # key, square face crop
    failed = Signal(str)  # why the video cannot be read; sent once
    opened = Signal(object)  # numpy float64 array: each frame's time in seconds

    _frames_wanted = Signal(list, int)
    _crop_wanted = Signal(str, int, object, int)

    def __init__(self, path: str | os.PathLike, parent: QObject | None = None, cache_size: int = 512,
                 priority: QThread.Priority = QThread.Priority.LowPriority):
        super().__init__(parent)
        self._cache = ImageCache(cache_size)
        self._failed = False
        self._closed = False
        worker = _Worker(os.fspath(path))
        self._frames_wanted.connect(worker.want_frames)
        self._crop_wanted.connect(worker.want_crop)
        worker.decoded.connect(self._on_decoded)
        worker.cropped.connect(self._on_cropped)
        worker.failed.connect(self._on_failed)
        worker.opened.connect(self._on_opened)
        self._decoder = DecoderThread(worker, priority)

    def request(self, frames: list[int], height: int = 54) -> None:
        """Decode ``frames`` at ``height`` pixels (aspect kept). Cached ones are sent at
        once; the rest replace whatever frames are still queued from earlier requests."""
        if self._closed or self._failed:
            return
        missing = []
        for frame in dict.fromkeys(int(f) for f in frames):
            image = self._cache.get(("frame", frame, height))
            if image is None:
                missing.append(frame)
            else:
                self.ready.emit(frame, image)
        self._frames_wanted.emit(missing, height)

    def request_crop(self, key: str, frame: int, box: tuple[float, float, float, float], size: int = 96) -> None:
        """A ``size`` x ``size`` crop around ``box`` (x, y, w, h in display pixels) of
        ``frame``, sent as ``cropReady(key, image)``."""
        if self._closed or self._failed:
            return
        box = tuple(float(v) for v in box)
        image = self._cache.get(("crop", frame, box, size))
        if image is not None:
            self.cropReady.emit(key, image)
        else:
            self._crop_wanted.emit(key, int(frame), box, size)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._decoder.close()

    # -- from the worker (queued to the GUI thread)

    @Slot(int, int, QImage)
    def _on_decoded(self, frame: int, height: int, image: QImage) -> None:
        self._cache.put(("frame", frame, height), image)
        if not self._closed:
            self.ready.emit(frame, image)

    @Slot(str, int, object, int, QImage)
    def _on_cropped(self, key: str, frame: int, box: tuple, size: int, image: QImage) -> None:
        self._cache.put(("crop", frame, box, size), image)
        if not self._closed:
            self.cropReady.emit(key, image)

    @Slot(object)
    def _on_opened(self, timestamps: np.ndarray) -> None:
        if not self._closed:
            self.opened.emit(timestamps)

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        if not self._failed and not self._closed:
            self._failed = True
            self.failed.emit(message)


class _Worker(DecoderWorker):
    """Lives in the loader's thread; owns the FrameSource (which is not thread-safe)."""

    decoded = Signal(int, int, QImage)  # frame, height, image
    cropped = Signal(str, int, object, int, QImage)  # key, frame, box, size, image
    failed = Signal(str)
    opened = Signal(object)

    def __init__(self, path: str):
        super().__init__()
        self._path = path
        self._source = None
        self._frames: deque[int] = deque()
        self._height = 54
        self._crops: deque[tuple[str, int, tuple, int]] = deque()

    def on_start(self) -> None:
        try:
            # PyAV seeks straight to each frame; decord would first index the whole file
            # and keep decoding ahead, holding memory for as long as the loader lives.
            self._source = open_video(self._path, backend="pyav")
        except Exception as exc:  # anything: a thread must report, never raise
            self.failed.emit(str(exc))
            return
        self.opened.emit(self._source.timestamps)

    @Slot(list, int)
    def want_frames(self, frames: list, height: int) -> None:
        self._frames = deque(frames)
        self._height = height
        self.schedule()

    @Slot(str, int, object, int)
    def want_crop(self, key: str, frame: int, box: tuple, size: int) -> None:
        self._crops = deque(c for c in self._crops if c[0] != key)
        self._crops.appendleft((key, frame, box, size))  # newest first
        self.schedule()

    def release(self) -> None:
        if self._source is not None:
            self._source.close()
            self._source = None
        self._frames.clear()
        self._crops.clear()

    def turn(self) -> bool:
        """A face crop or a few frames, then back to the event loop."""
        if self._source is None:
            return False
        try:
            if self._crops:
                self._crop(*self._crops.popleft())
            elif self._frames:
                self._decode_some()
        except Exception as exc:  # a damaged file: report it and stop decoding
            self.failed.emit(str(exc))
            self._frames.clear()
            self._crops.clear()
            return False
        return bool(self._crops or self._frames)

    def _decode_some(self) -> None:
        count = self._source.info.frame_count
        batch = []
        while self._frames and len(batch) < FRAMES_PER_TURN:
            frame = self._frames.popleft()
            if 0 <= frame < count:  # an analysis can count more frames than finally decode
                batch.append(frame)
        if not batch:
            return
        info = self._source.info
        size = (max(2, round(self._height * info.width / info.height)), self._height)
        result = self._source.frames_at_indices(batch, size=size)
        for frame, rgb in zip(result.indices.tolist(), result.frames):
            if QThread.currentThread().isInterruptionRequested():
                return
            self.decoded.emit(frame, self._height, to_qimage(rgb))

    def _crop(self, key: str, frame: int, box: tuple, size: int) -> None:
        info = self._source.info
        if not 0 <= frame < info.frame_count:
            return
        rgb = self._source.frames_at_indices([frame]).frames[0]
        region = _square_around(box, info.width, info.height)
        image = to_qimage(rgb).copy(region).scaled(size, size, Qt.AspectRatioMode.KeepAspectRatio,
                                                    Qt.TransformationMode.SmoothTransformation)
        self.cropped.emit(key, frame, box, size, image)


def to_qimage(rgb: np.ndarray) -> QImage:
    """A QImage owning its pixels (the numpy buffer may be reused or freed)."""
    rgb = np.ascontiguousarray(rgb)
    height, width = rgb.shape[:2]
    return QImage(rgb.data, width, height, rgb.strides[0], QImage.Format.Format_RGB888).copy()


def _square_around(box: tuple, width: int, height: int) -> QRect:
    """A square around the face box with some margin, inside the frame."""
    x, y, w, h = box
    side = min(max(w, h) * (1 + 2 * CROP_MARGIN), width, height)
    left = min(max(0.0, x + w / 2 - side / 2), width - side)
    top = min(max(0.0, y + h / 2 - side / 2), height - side)
    return QRect(round(left), round(top), max(1, round(side)), max(1, round(side)))
