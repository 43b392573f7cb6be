"""PP-OCRv6 (detection and recognition) on ONNX Runtime, through our own runner (ppocr.py).

The models ship in rapidocr's wheel (models/pp-ocrv6.toml), so this runs offline; rapidocr
itself is not imported (the module's name is from when RapidOCR ran them: importing it and
parsing its settings took about 1 s of a 10-frame clip). Frames are read with the long side
at 736 px. Measured on three lines of OpenCV's Hershey text on a 1280x720 frame, 2 CPU
cores: RapidOCR's default (short side scaled up to 736 px) 0.52 s; long side 960 px 0.31 s;
736 px 0.21 s, every word right down to 9 px high capitals (0.4 scale), misreadings at
0.35; 640 px 0.17 s, misreadings at 0.4. The text-direction classifier is off: text in
video is upright, and it costs about 10 %.
"""

from __future__ import annotations

import cv2
import numpy as np

from ..placement import Placed
from .protocol import TextBox

LONG_SIDE = 736
COARSE_SIDE = 368  # finding text without reading it: 0.07 s a frame, titles and lower thirds found
MIN_SCORE = 0.6  # below this, what is "read" is mostly texture (foliage, fabric, brick)
MODEL = "pp-ocrv6"  # the catalog's entry: its first two parts are the detector and the recogniser
REVISION = 1  # of the runner's own code (ppocr.py): part of the version, so a change re-reads


class RapidTextEngine(Placed):
    kind = "screen-text"
    name = "pp-ocrv6"
    long_side = LONG_SIDE

    def __init__(self, device: str = "cpu") -> None:
        from ...models.catalog import load_catalog

        self.asked = device
        self.place = None  # where the sessions run, known when they are made (placement.py)
        self._entry = load_catalog()[MODEL]
        det, rec = (sha[:8] for sha in self._entry.sha256[:2])
        self.version = f"ppocr-own{REVISION}-{det}{rec}-{LONG_SIDE}-{COARSE_SIDE}-{MIN_SCORE}"
        self._ocr = None  # one runner: its detector serves both LONG_SIDE and COARSE_SIDE

    def _load(self):
        if self._ocr is None:
            from ...models.catalog import builtin_parts
            from ..placement import onnx_placement
            from .ppocr import PPOCR

            if self.place is None:
                self.place = onnx_placement(self.asked)
            det, rec = builtin_parts(self._entry)[:2]
            self._ocr = PPOCR(det, rec, self.place.device)
        return self._ocr

    def release(self) -> None:
        self._ocr = None

    def _run(self, call):
        """``call(runner)``; a GPU that fails (out of memory, say) moves the runner to the CPU."""
        try:
            return call(self._load())
        except Exception as exc:
            if not self.moved_to_cpu(exc):
                raise
            self._ocr = None
            return call(self._load())

    def find(self, image: np.ndarray, frame_shape: tuple[int, int] | None = None
             ) -> list[tuple[float, float, float, float]]:
        h, w = image.shape[:2]
        scale = COARSE_SIDE / max(frame_shape or (h, w))
        small = cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
        bgr = np.ascontiguousarray(small[:, :, ::-1])  # the networks take BGR, as OpenCV reads
        return [_box(corners / scale) for corners in self._run(lambda ocr: ocr.find(bgr, COARSE_SIDE))]

    def read(self, frame: np.ndarray) -> list[TextBox]:
        bgr = np.ascontiguousarray(frame[:, :, ::-1])
        found = []
        for line in self._run(lambda ocr: ocr.read(bgr, LONG_SIDE)):
            text = " ".join(line.text.split())
            if line.score < MIN_SCORE or not text:
                continue
            found.append(TextBox(text, _box(line.corners), line.score))
        return sorted(found, key=lambda b: (b.box[1], b.box[0]))


def _box(corners: np.ndarray) -> tuple[float, float, float, float]:
    """x, y, w, h around a detected quadrilateral."""
    x0, y0 = np.min(corners, axis=0)
    x1, y1 = np.max(corners, axis=0)
    return float(x0), float(y0), float(x1 - x0), float(y1 - y0)
