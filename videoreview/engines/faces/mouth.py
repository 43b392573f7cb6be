"""How open a face's mouth is, from MediaPipe's face mesh on LiteRT: the evidence of who is
speaking when several faces are on screen.

The face box (from the faces stage) is widened to a square 1.5 times its size, as
MediaPipe crops faces for its landmark model, warped to 192x192 and scaled to [0, 1]. Of
the 468 landmarks, 13 and 14 are the middle of the upper and lower inner lip, 10 and 152
the top of the forehead and the chin: the lips' gap over the face's height is the
mouth's openness, whatever the face's size. About 1 ms a face on one CPU core.
"""

from __future__ import annotations

import cv2
import numpy as np

INPUT = 192
MIN_PRESENCE = 0.0  # the model's face-presence logit: below it the crop holds no face


class FaceMesh:
    name = "face-mesh"

    def __init__(self) -> None:
        from ...models.catalog import load_catalog

        self._entry = load_catalog()["face-mesh"]
        self.version = f"1-{self._entry.sha256[:12]}"
        self.device = "cpu"
        self.device_note: str | None = None  # (no GPU build is asked for)
        self._interpreter = None

    def _load(self):
        if self._interpreter is None:
            from ...models.catalog import builtin_weights
            from ..litert import interpreter as litert_interpreter

            interpreter = litert_interpreter(builtin_weights(self._entry))
            self._input = interpreter.get_input_details()[0]["index"]
            self._landmarks, self._presence = (d["index"] for d in interpreter.get_output_details())
            self._interpreter = interpreter
        return self._interpreter

    def release(self) -> None:
        self._interpreter = None

    def openness(self, frame: np.ndarray, box: tuple[float, float, float, float]) -> float | None:
        """The mouth's openness (0 closed, about 0.1 wide open) of the face in ``box``
        (x, y, w, h in ``frame``'s pixels), or None when the model sees no face there."""
        interpreter = self._load()
        x, y, w, h = box
        side = max(w, h) * 1.5
        scale = INPUT / side
        matrix = np.array([[scale, 0, INPUT / 2 - (x + w / 2) * scale],
                           [0, scale, INPUT / 2 - (y + h / 2) * scale]], np.float32)
        crop = cv2.warpAffine(frame, matrix, (INPUT, INPUT), flags=cv2.INTER_LINEAR)
        interpreter.set_tensor(self._input, (crop.astype(np.float32) / 255.0)[None])
        interpreter.invoke()
        if float(interpreter.get_tensor(self._presence).reshape(-1)[0]) < MIN_PRESENCE:
            return None
        points = interpreter.get_tensor(self._landmarks).reshape(468, 3)[:, :2]
        height = float(np.linalg.norm(points[10] - points[152]))
        return float(np.linalg.norm(points[13] - points[14])) / height if height > 0 else None
