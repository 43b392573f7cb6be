"""Where the faces are: MediaPipe's BlazeFace full-range detector on LiteRT.

The frame is letterboxed into the model's 192x192 input (scaled to [-1, 1]); the model
scores 2304 anchors (a 48x48 grid, one anchor a cell) and regresses a box and six
keypoints for each. Decoding, the 0.6 score threshold and the weighted non-maximum
suppression (IoU 0.3) follow MediaPipe's face_detection.pbtxt and
face_detection_full_range.pbtxt. The whole frame and three square tiles of it (16:9) go
through the model, about 6 ms each on one CPU core: ~25 ms a 640x360 frame, against ~95 ms
for dlib's HOG detector upsampled once.
"""

from __future__ import annotations

import cv2
import numpy as np

from ...tracking import iou

INPUT = 192
GRID = 48  # anchors: one per cell of a 48x48 grid (stride 4), centred, unit size
MIN_SCORE = 0.6
MIN_IOU = 0.3  # detections overlapping more than this are one face


def _anchors() -> np.ndarray:
    centres = (np.arange(GRID) + 0.5) / GRID
    x, y = np.meshgrid(centres, centres)
    return np.stack([x.ravel(), y.ravel()], 1).astype(np.float32)


class BlazeFace:
    def __init__(self) -> None:
        from ...models.catalog import builtin_weights, load_catalog
        from ..litert import interpreter as litert_interpreter

        interpreter = litert_interpreter(builtin_weights(load_catalog()["blazeface-full-range"]))
        self._input = interpreter.get_input_details()[0]["index"]
        outputs = {tuple(d["shape"])[-1]: d["index"] for d in interpreter.get_output_details()}
        self._boxes, self._scores = outputs[16], outputs[1]
        self._interpreter = interpreter
        self._anchors = _anchors()

    def detect(self, frame: np.ndarray) -> list[tuple[tuple[float, float, float, float], float, np.ndarray]]:
        """(box x, y, w, h; score; six keypoints [6, 2]) in ``frame``'s pixels per face,
        most confident first. Keypoints: right eye, left eye, nose tip, mouth, right and
        left ear tragion (the person's right and left).

        The whole frame is looked at, and overlapping square tiles of it (see ``tiles``):
        192 pixels across a whole 16:9 frame leave a 30 px face of a 640x360 frame 9 px
        wide, too small for the model; in a tile of 360x360 it is 16 px."""
        h, w = frame.shape[:2]
        parts = [self._candidates(frame, (0, 0, w, h))] + [self._candidates(frame, tile) for tile in tiles(w, h)]
        boxes, scores, points = (np.concatenate(a) for a in zip(*parts))
        return [(tuple(float(v) for v in box), float(score), kps.astype(np.float32))
                for box, score, kps in _weighted_nms(boxes, scores, points)]

    def _candidates(self, frame: np.ndarray, region: tuple[int, int, int, int]):
        """Boxes [n, 4], scores [n] and keypoints [n, 6, 2] above MIN_SCORE in ``region``
        (x, y, width, height) of ``frame``, in frame pixels. A box touching a side of the
        region that is not the frame's edge is dropped: it holds part of a face that
        another tile or the whole frame holds whole."""
        x0, y0, w, h = region
        frame_h, frame_w = frame.shape[:2]
        image = frame[y0:y0 + h, x0:x0 + w]
        h, w = image.shape[:2]
        scale = INPUT / max(w, h)
        nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
        ox, oy = (INPUT - nw) // 2, (INPUT - nh) // 2
        canvas = np.zeros((INPUT, INPUT, 3), np.float32)  # black bars, as MediaPipe pads
        canvas[oy:oy + nh, ox:ox + nw] = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA)
        self._interpreter.set_tensor(self._input, (canvas / 127.5 - 1.0)[None])
        self._interpreter.invoke()
        raw = self._interpreter.get_tensor(self._boxes)[0]
        logits = np.clip(self._interpreter.get_tensor(self._scores)[0, :, 0].astype(np.float64), -100, 100)
        scores = 1.0 / (1.0 + np.exp(-logits))
        keep = np.flatnonzero(scores >= MIN_SCORE)
        raw, scores, anchors = raw[keep] / INPUT, scores[keep], self._anchors[keep]
        # Rows: box centre x, y, width, height, then (x, y) of each keypoint, relative to the
        # anchor, in units of the input; mapped back from the letterboxed input to the frame.
        to_frame = lambda xy: (xy * INPUT - (ox, oy)) / scale + (x0, y0)  # noqa: E731
        centre = to_frame(raw[:, :2] + anchors)
        size = raw[:, 2:4] * INPUT / scale
        boxes = np.concatenate([centre - size / 2, size], 1)
        points = to_frame(raw[:, 4:].reshape(-1, 6, 2) + anchors[:, None, :])
        if len(boxes):
            margin = 2.0
            inside = np.ones(len(boxes), bool)
            inside &= (boxes[:, 0] > x0 + margin) | (x0 == 0)
            inside &= (boxes[:, 1] > y0 + margin) | (y0 == 0)
            inside &= (boxes[:, 0] + boxes[:, 2] < x0 + w - margin) | (x0 + w >= frame_w)
            inside &= (boxes[:, 1] + boxes[:, 3] < y0 + h - margin) | (y0 + h >= frame_h)
            boxes, scores, points = boxes[inside], scores[inside], points[inside]
        return boxes, scores, points


def tiles(w: int, h: int) -> list[tuple[int, int, int, int]]:
    """Overlapping square tiles (x, y, side, side) covering a w x h frame: of the short
    side's length, spaced evenly along the long side so that neighbours overlap by at
    least a third (16:9: three tiles). A frame near square gets four tiles of 0.6 its side."""
    side = min(w, h) if max(w, h) >= 1.3 * min(w, h) else round(0.6 * max(w, h))

    def starts(length: int) -> list[int]:
        if length <= side:
            return [0]
        count = int(np.ceil((length - side) / (2 / 3 * side))) + 1
        return [round(k * (length - side) / (count - 1)) for k in range(count)]

    return [(x, y, side, side) for y in starts(h) for x in starts(w)]


def _weighted_nms(boxes: np.ndarray, scores: np.ndarray, points: np.ndarray):
    """MediaPipe's WEIGHTED suppression: the best remaining detection takes every one that
    overlaps it by more than MIN_IOU, and its box and keypoints become their score-weighted
    mean (its score stays its own)."""
    order = np.argsort(-scores)
    boxes, scores, points = boxes[order], scores[order], points[order]
    left = np.ones(len(scores), bool)
    for i in range(len(scores)):
        if not left[i]:
            continue
        group = left & (np.array([iou(boxes[i], box) for box in boxes]) > MIN_IOU)
        group[i] = True
        weights = scores[group] / scores[group].sum()
        yield (weights[:, None] * boxes[group]).sum(0), scores[i], (weights[:, None, None] * points[group]).sum(0)
        left &= ~group
