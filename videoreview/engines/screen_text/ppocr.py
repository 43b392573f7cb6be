"""PP-OCR text detection and recognition run on ONNX Runtime directly, on the PP-OCRv6
ONNX files of rapidocr's wheel.

Ported from RapidOCR 3.10.0 (https://github.com/RapidAI/RapidOCR, Apache-2.0, Copyright
(c) 2021 RapidOCR Authors; its detection and recognition code derives from PaddleOCR,
Apache-2.0, Copyright (c) 2020 PaddlePaddle Authors): rapidocr/main.py, ch_ppocr_det/,
ch_ppocr_rec/ and utils/process_img.py. The licence's text is in rapidocr's wheel
(rapidocr-3.10.0.dist-info/licenses/LICENSE), installed with the app for the model files.

Changed: only what the on-screen text engine uses is kept (ONNX Runtime, no text-direction
classifier, no word boxes); the settings are constants here, with RapidOCR's defaults; one
detector session serves every detail level, and the recogniser loads at the first reading;
a polygon's area and perimeter are computed here instead of by shapely. Why: RapidOCR
parses YAML settings with OmegaConf when imported and when built, which took about 1 s of
a 10-frame clip's 2 s. The networks and their pre- and post-processing are RapidOCR's, so
a frame gives the same lines, boxes and scores (tests/test_ppocr.py compares the two).

    ocr = PPOCR(det_path, rec_path, "cpu")
    ocr.read(bgr, side=736)   # [Line(corners, text, score)], top to bottom, text not blank
    ocr.find(bgr, side=368)   # the corners of text regions, without reading them
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pyclipper

# RapidOCR's defaults (its config.yaml), kept so that the results are the same as its own.
MIN_SIDE, MAX_SIDE = 30, 2000  # Global.min/max_side_len: an image is first brought within these
PAD_HEIGHT, PAD_RATIO = 30, 8  # Global.min_height, width_height_ratio: a flat strip is padded above and below
DET_THRESH = 0.3  # Det.thresh: a pixel of the probability map above it is text
BOX_THRESH = 0.5  # Det.box_thresh: a region's mean probability must reach it
UNCLIP_RATIO = 1.6  # Det.unclip_ratio: how far a region is grown to cover its text's edges
MAX_CANDIDATES = 1000  # Det.max_candidates
MIN_BOX = 3  # DBPostProcess.min_size, in pixels of the probability map
SAME_LINE = 10  # px: boxes whose tops differ by less are one line, read left to right
REC_HEIGHT, REC_WIDTH, REC_BATCH = 48, 320, 6  # Rec.rec_img_shape and rec_batch_num


@dataclass(frozen=True)
class Line:
    corners: np.ndarray  # (4, 2) float32: top-left, top-right, bottom-right, bottom-left, in the image's pixels
    text: str
    score: float  # the recogniser's mean confidence over its characters, 0..1


class PPOCR:
    """A PP-OCR detector and recogniser (ONNX files) in ONNX Runtime sessions on ``device``
    (a device onnx_placement has already accepted: "cpu", "cuda", "cuda:1"). Images are BGR,
    as PaddleOCR's networks were trained on OpenCV's reads."""

    def __init__(self, det: Path, rec: Path, device: str = "cpu") -> None:
        self.det = _session(det, device)
        self._rec_path, self._device = rec, device
        self._rec = self.characters = None  # made at the first reading: finding alone does not need them

    @property
    def rec(self):
        if self._rec is None:
            session = _session(self._rec_path, self._device)
            meta = session.get_modelmeta().custom_metadata_map
            if "character" not in meta:
                raise ValueError(f"{self._rec_path}: not a PP-OCR recogniser (no character list in its metadata)")
            # CTC's blank first, then the model's characters and the space, as PaddleOCR trained it.
            self.characters = ["blank", *meta["character"].splitlines(), " "]
            self._rec = session
        return self._rec

    def find(self, image: np.ndarray, side: int) -> np.ndarray:
        """The corners (N, 4, 2) of the text regions in ``image``, looked for with its long side
        at ``side`` pixels (RapidOCR's Det.limit_type "max"), top to bottom."""
        ready = _Prepared(image)
        boxes = self._detect(ready.image, side)
        return ready.to_original(boxes) if len(boxes) else boxes

    def read(self, image: np.ndarray, side: int) -> list[Line]:
        """The lines of text in ``image`` (found as ``find`` does), each read; lines read as
        blank are left out."""
        ready = _Prepared(image)
        boxes = self._detect(ready.image, side)
        if not len(boxes):
            return []
        read = self._recognise([_crop(ready.image, box) for box in boxes])
        corners = ready.to_original(boxes)
        return [Line(c, text, score) for c, (text, score) in zip(corners, read) if text.strip()]

    def _detect(self, image: np.ndarray, side: int) -> np.ndarray:
        h, w = image.shape[:2]
        ratio = side / max(h, w) if max(h, w) > side else 1.0
        size = (round(int(w * ratio) / 32) * 32, round(int(h * ratio) / 32) * 32)  # the network's strides
        if min(size) <= 0:
            return np.zeros((0, 4, 2), np.float32)
        x = (cv2.resize(image, size).astype(np.float32) * np.float32(1 / 255) - 0.5) / 0.5
        heat = self.det.run(None, {"x": x.transpose(2, 0, 1)[None]})[0][0, 0]
        return _sorted(_regions(heat, h, w))

    def _recognise(self, crops: list[np.ndarray]) -> list[tuple[str, float]]:
        """Text and score of each crop, in batches of crops of similar shape (less padding)."""
        ratios = [crop.shape[1] / float(crop.shape[0]) for crop in crops]
        order = np.argsort(np.array(ratios))
        read: list[tuple[str, float]] = [("", 0.0)] * len(crops)
        for start in range(0, len(crops), REC_BATCH):
            batch = order[start:start + REC_BATCH]
            widest = max(REC_WIDTH / REC_HEIGHT, *(ratios[i] for i in batch))
            x = np.stack([_rec_input(crops[i], widest) for i in batch])
            probs = self.rec.run(None, {"x": x})[0]
            for i, line in zip(batch, probs):
                read[i] = self._decode(line)
        return read

    def _decode(self, probs: np.ndarray) -> tuple[str, float]:
        """CTC greedy decoding: the likeliest character at each step, repeats and blanks dropped.
        The score is the mean of the kept characters' probabilities (rounded as RapidOCR does)."""
        best, prob = probs.argmax(axis=1), probs.max(axis=1)
        keep = np.ones(len(best), bool)
        keep[1:] = best[1:] != best[:-1]
        keep &= best != 0
        confidences = [round(p, 5) for p in prob[keep].tolist()] or [0]
        text = "".join(self.characters[i] for i in best[keep])
        return text, float(np.mean(confidences).round(5))


def _session(path: Path, device: str):
    from ..onnx_export import session

    # The arena off, as RapidOCR runs them: frames of different sizes would each grow it.
    return session(path, device, arena=False)


class _Prepared:
    """An image brought within RapidOCR's size bounds and padded when flat, and the way
    back to its own pixels."""

    def __init__(self, image: np.ndarray) -> None:
        self.height, self.width = image.shape[:2]
        self.ratio_h = self.ratio_w = 1.0  # original pixels per prepared pixel
        h, w = image.shape[:2]
        if max(h, w) > MAX_SIDE:
            image = self._rescale(image, MAX_SIDE / max(h, w))
        h, w = image.shape[:2]
        if min(h, w) < MIN_SIDE:  # (RapidOCR keeps only this ratio when both apply; so does this)
            image = self._rescale(image, MIN_SIDE / min(h, w))
        h, w = image.shape[:2]
        self.top = 0
        if h <= PAD_HEIGHT or w / h > PAD_RATIO:
            self.top = int(abs(max(int(w / PAD_RATIO), PAD_HEIGHT) * 2 - h) / 2)
            image = cv2.copyMakeBorder(image, self.top, self.top, 0, 0, cv2.BORDER_CONSTANT, value=(0, 0, 0))
        self.image = image

    def _rescale(self, image: np.ndarray, ratio: float) -> np.ndarray:
        h, w = image.shape[:2]
        size = (round(int(w * ratio) / 32) * 32, round(int(h * ratio) / 32) * 32)
        if min(size) <= 0:
            raise ValueError(f"an image of {w}x{h} pixels is too thin to look for text in")
        self.ratio_h, self.ratio_w = h / size[1], w / size[0]
        return cv2.resize(image, size)

    def to_original(self, boxes: np.ndarray) -> np.ndarray:
        boxes = boxes.copy()
        boxes[:, :, 1] -= self.top
        boxes[:, :, 0] *= self.ratio_w
        boxes[:, :, 1] *= self.ratio_h
        boxes = np.where(boxes < 0, 0, boxes)
        boxes[..., 0] = np.minimum(boxes[..., 0], self.width)
        boxes[..., 1] = np.minimum(boxes[..., 1], self.height)
        return boxes


def _regions(heat: np.ndarray, height: int, width: int) -> np.ndarray:
    """Differentiable Binarization's post-processing: the text regions of the probability
    map ``heat`` as quadrilaterals (N, 4, 2) in the pixels of the ``width`` x ``height``
    image the map was made from."""
    map_h, map_w = heat.shape
    mask = cv2.dilate((heat > DET_THRESH).astype(np.uint8), np.ones((2, 2), np.uint8))
    contours, _ = cv2.findContours(mask * 255, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    boxes = []
    for contour in contours[:MAX_CANDIDATES]:
        points, short = _min_box(contour)
        if short < MIN_BOX or _mean_inside(heat, points) < BOX_THRESH:
            continue
        box, short = _min_box(_grown(points))
        if short < MIN_BOX + 2:
            continue
        box[:, 0] = np.clip(np.round(box[:, 0] / map_w * width), 0, width)
        box[:, 1] = np.clip(np.round(box[:, 1] / map_h * height), 0, height)
        box = _clockwise(box.astype(np.int32))
        box[:, 0] = np.clip(box[:, 0], 0, width - 1).astype(np.int32)
        box[:, 1] = np.clip(box[:, 1], 0, height - 1).astype(np.int32)
        if int(np.linalg.norm(box[0] - box[1])) <= 3 or int(np.linalg.norm(box[0] - box[3])) <= 3:
            continue
        boxes.append(box)
    return np.array(boxes, np.float32).reshape(-1, 4, 2)


def _min_box(contour: np.ndarray) -> tuple[np.ndarray, float]:
    """The smallest rotated rectangle around ``contour``, its corners from the left (upper
    first), then the right (lower first), and its short side."""
    rect = cv2.minAreaRect(contour)
    points = sorted(list(cv2.boxPoints(rect)), key=lambda p: p[0])
    left = (0, 1) if points[1][1] > points[0][1] else (1, 0)
    right = (2, 3) if points[3][1] > points[2][1] else (3, 2)
    box = np.array([points[left[0]], points[right[0]], points[right[1]], points[left[1]]])
    return box, min(rect[1])


def _mean_inside(heat: np.ndarray, box: np.ndarray) -> float:
    """The mean probability inside the quadrilateral ``box`` (DB's "fast" score)."""
    h, w = heat.shape
    x0, x1 = (int(np.clip(edge, 0, w - 1)) for edge in (np.floor(box[:, 0].min()), np.ceil(box[:, 0].max())))
    y0, y1 = (int(np.clip(edge, 0, h - 1)) for edge in (np.floor(box[:, 1].min()), np.ceil(box[:, 1].max())))
    mask = np.zeros((y1 - y0 + 1, x1 - x0 + 1), np.uint8)
    shifted = box - np.array([x0, y0], box.dtype)
    cv2.fillPoly(mask, shifted.reshape(1, -1, 2).astype(np.int32), 1)
    return cv2.mean(heat[y0:y1 + 1, x0:x1 + 1], mask)[0]


def _grown(box: np.ndarray) -> np.ndarray:
    """``box`` grown on every side by its area x UNCLIP_RATIO / its perimeter, corners
    rounded (Clipper's offset, as PaddleOCR does)."""
    x, y = box[:, 0].astype(np.float64), box[:, 1].astype(np.float64)
    area = abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2
    perimeter = np.hypot(np.roll(x, -1) - x, np.roll(y, -1) - y).sum()
    offset = pyclipper.PyclipperOffset()
    offset.AddPath(box, pyclipper.JT_ROUND, pyclipper.ET_CLOSEDPOLYGON)
    return np.array(offset.Execute(area * UNCLIP_RATIO / perimeter)).reshape((-1, 1, 2))


def _clockwise(box: np.ndarray) -> np.ndarray:
    """The four corners as top-left, top-right, bottom-right, bottom-left (float32)."""
    by_x = box[np.argsort(box[:, 0]), :]
    left, right = by_x[:2], by_x[2:]
    top_left, bottom_left = left[np.argsort(left[:, 1]), :]
    top_right, bottom_right = right[np.argsort(right[:, 1]), :]
    return np.array([top_left, top_right, bottom_right, bottom_left], np.float32)


def _sorted(boxes: np.ndarray) -> np.ndarray:
    """Boxes top to bottom, and left to right within a line (tops within SAME_LINE px)."""
    if len(boxes) == 0:
        return boxes
    tops = boxes[:, 0, 1]
    by_y = boxes[np.argsort(tops, kind="stable")]
    line = np.concatenate([[0], np.cumsum(np.diff(by_y[:, 0, 1]) >= SAME_LINE)])
    return by_y[np.lexsort((by_y[:, 0, 0], line))]


def _crop(image: np.ndarray, box: np.ndarray) -> np.ndarray:
    """The quadrilateral ``box`` of ``image`` straightened into a rectangle; a crop much
    taller than wide is turned a quarter (vertical text read as a line)."""
    width = int(max(np.linalg.norm(box[0] - box[1]), np.linalg.norm(box[2] - box[3])))
    height = int(max(np.linalg.norm(box[0] - box[3]), np.linalg.norm(box[1] - box[2])))
    target = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    matrix = cv2.getPerspectiveTransform(box.astype(np.float32), target)
    crop = cv2.warpPerspective(image, matrix, (width, height), borderMode=cv2.BORDER_REPLICATE,
                               flags=cv2.INTER_CUBIC)
    return np.rot90(crop) if crop.shape[0] / crop.shape[1] >= 1.5 else crop


def _rec_input(crop: np.ndarray, widest: float) -> np.ndarray:
    """``crop`` scaled to the recogniser's height, normalised, channels first, and padded on
    the right to the batch's widest ratio."""
    h, w = crop.shape[:2]
    width = int(REC_HEIGHT * widest)
    scaled = min(width, int(math.ceil(REC_HEIGHT * (w / float(h)))))  # (in RapidOCR's order: the same rounding)
    resized = cv2.resize(crop, (scaled, REC_HEIGHT)).astype(np.float32).transpose(2, 0, 1) / 255
    padded = np.zeros((3, REC_HEIGHT, width), np.float32)
    padded[:, :, :scaled] = (resized - 0.5) / 0.5
    return padded
