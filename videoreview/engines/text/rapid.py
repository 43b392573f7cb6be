"""PP-OCRv6 (detection and recognition) through RapidOCR on ONNX Runtime.

The models ship in rapidocr's wheel (models/pp-ocrv6.toml), so this runs offline. Frames
are read with the long side at 736 px. Measured on three lines of OpenCV's Hershey text on
a 1280x720 frame, 2 CPU cores: RapidOCR's default (short side scaled up to 736 px) 0.52 s;
long side 960 px 0.31 s; 736 px 0.21 s, every word right down to 9 px high capitals (0.4
scale), misreadings at 0.35; 640 px 0.17 s, misreadings at 0.4. The text-direction
classifier is off: text in video is upright, and it costs about 10 %.
"""

from __future__ import annotations

import logging

import cv2
import numpy as np

from ..placement import Placed
from .protocol import TextBox

LONG_SIDE = 736
COARSE_SIDE = 368  # finding text without reading it: 0.07 s a frame, titles and lower thirds found
MIN_SCORE = 0.6  # below this, what is "read" is mostly texture (foliage, fabric, brick)


class RapidTextEngine(Placed):
    kind = "screen-text"
    name = "pp-ocrv6"
    long_side = LONG_SIDE

    def __init__(self, device: str = "cpu") -> None:
        from importlib.metadata import version

        self.asked = device
        self.place = None  # where the sessions run, known when they are made (placement.py)
        self.version = f"rapidocr-{version('rapidocr')}-{LONG_SIDE}-{MIN_SCORE}"
        self._ocr = self._coarse = None

    def _make(self, side: int):
        from rapidocr import RapidOCR

        from ..placement import onnx_placement

        if self.place is None:
            self.place = onnx_placement(self.asked)
        params = {"Global.log_level": "critical", "Global.use_cls": False,
                  "Det.limit_type": "max", "Det.limit_side_len": side,
                  "EngineConfig.onnxruntime.use_cuda": self.place.cuda}
        ocr = RapidOCR(params=params)
        logging.getLogger("RapidOCR").setLevel(logging.CRITICAL)
        return ocr

    def _load(self):
        if self._ocr is None:
            self._ocr = self._make(LONG_SIDE)
        return self._ocr

    def release(self) -> None:
        self._ocr = self._coarse = None

    def _run(self, coarse: bool, image: np.ndarray, **kwargs):
        """One RapidOCR call; a GPU that fails (out of memory, say) moves both readers to the CPU."""
        def ocr():
            if coarse and self._coarse is None:
                self._coarse = self._make(COARSE_SIDE)
            return (self._coarse if coarse else self._load())(image, **kwargs)

        try:
            return ocr()
        except Exception as exc:
            if not self.moved_to_cpu(exc):
                raise
            self._ocr = self._coarse = None
            return ocr()

    def find(self, image: np.ndarray, frame_shape: tuple[int, int] | None = None
             ) -> list[tuple[float, float, float, float]]:
        h, w = image.shape[:2]
        scale = COARSE_SIDE / max(frame_shape or (h, w))
        small = cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
        result = self._run(True, np.ascontiguousarray(small[:, :, ::-1]), use_rec=False)
        if result.boxes is None:
            return []
        return [_box(corners / scale) for corners in result.boxes]

    def read(self, frame: np.ndarray) -> list[TextBox]:
        result = self._run(False, np.ascontiguousarray(frame[:, :, ::-1]))  # RapidOCR takes BGR, as OpenCV reads
        if result.boxes is None or result.txts is None:
            return []
        found = []
        for corners, text, score in zip(result.boxes, result.txts, result.scores):
            text = " ".join(str(text).split())
            if score < MIN_SCORE or not text:
                continue
            found.append(TextBox(text, _box(corners), float(score)))
        return sorted(found, key=lambda b: (b.box[1], b.box[0]))


def _box(corners: np.ndarray) -> tuple[float, float, float, float]:
    """x, y, w, h around a detected quadrilateral."""
    x0, y0 = np.min(corners, axis=0)
    x1, y1 = np.max(corners, axis=0)
    return float(x0), float(y0), float(x1 - x0), float(y1 - y0)
