"""The objects and poses models on real photographs: CenterNet (resources/models/centernet-coco.onnx)
names what each of scikit-image's and matplotlib's sample photographs shows and boxes it, so does
NanoDet (resources/models/nanodet-coco.onnx) but for the coffee cup, which it scores under its
threshold (the table under it it names), MoveNet
multipose (resources/models/movenet-multipose.onnx) finds the one person in the portraits, two
when two stand side by side, and nobody elsewhere, with nose and eyes on the face. Both run on ONNX
Runtime as the app runs its ONNX models. The decoding (videoreview/engines/objects/decode.py) is
also checked on hand-made outputs, without the models."""

from __future__ import annotations

import numpy as np
import pytest

from caption_set import photo
from videoreview.engines.objects.decode import (
    COCO_LABELS,
    KEYPOINTS,
    Letterbox,
    decode_centernet,
    decode_movenet,
    decode_nanodet,
    letterbox,
    movenet_size,
    nanodet_input,
)
from videoreview.tracking import iou

# The faces' boxes (x, y, w, h) in the full photographs: dlib's HOG boxes of tests/faces.py,
# shifted out of its crops.
FACES = {"astronaut": (175, 76, 91, 91), "grace": (180, 139, 187, 187)}
NOSE, LEFT_EYE, RIGHT_EYE = (KEYPOINTS.index(k) for k in ("nose", "left_eye", "right_eye"))


def _session(file: str):
    from videoreview.engines.onnx_export import session
    from videoreview.paths import resources_dir

    return session(resources_dir() / "models" / file)


@pytest.fixture(scope="module")
def centernet():
    return _session("centernet-coco.onnx")


@pytest.fixture(scope="module")
def nanodet():
    return _session("nanodet-coco.onnx")


@pytest.fixture(scope="module")
def movenet():
    return _session("movenet-multipose.onnx")


def objects(session, image: np.ndarray) -> list:
    canvas, box = letterbox(image, 512, 512)
    return decode_centernet(session.run(["detections"], {"images": canvas[None].astype(np.float32)})[0], box)


def nanodet_objects(session, image: np.ndarray, min_score: float = 0.4) -> list:
    canvas, box = letterbox(image, 416, 416)
    names = [o.name for o in session.get_outputs()]
    return decode_nanodet(dict(zip(names, session.run(None, {"input": nanodet_input(canvas)}))), box, min_score)


def people(session, image: np.ndarray, size: tuple[int, int] = (256, 256)) -> list:
    canvas, box = letterbox(image, *size)
    return decode_movenet(session.run(["output"], {"input": canvas[None].astype(np.int32)})[0], box)


def inside(point, box, margin: float = 0.0) -> bool:
    x, y, w, h = box
    return x - margin * w <= point[0] <= x + (1 + margin) * w and y - margin * h <= point[1] <= y + (1 + margin) * h


# ------------------------------------------------------------------------------------------- CenterNet


@pytest.mark.models
@pytest.mark.parametrize("name, subject, point, absent", [
    ("astronaut", "person", (220, 120), {"cat", "dog"}),  # the point: on the subject (here her face)
    ("chelsea", "cat", (225, 150), {"dog", "person"}),
    ("coffee", "cup", (290, 130), {"person"}),
    ("motorcycle", "motorcycle", (370, 300), {"person", "car"}),  # nobody in the garage
    ("grace", "person", (270, 240), {"cat", "dog"}),
])
def test_centernet_names_and_boxes_what_each_photograph_shows(centernet, name, subject, point, absent):
    image = photo(name)
    found = objects(centernet, image)
    labels = [COCO_LABELS[c] for c, *_ in found]
    assert labels and labels[0] == subject, labels
    assert not absent & set(labels), labels
    cls, score, *box = found[0]
    assert 0.3 <= score <= 1 and inside(point, box)
    h, w = image.shape[:2]
    for _, _, x, y, bw, bh in found:  # boxes in the photograph's pixels, inside it
        assert 0 <= x and 0 <= y and x + bw <= w + 1e-3 and y + bh <= h + 1e-3 and bw >= 1 and bh >= 1


DETECT = {"centernet": objects, "nanodet": nanodet_objects}


@pytest.mark.models
@pytest.mark.parametrize("model", DETECT)
def test_each_detector_finds_nothing_it_knows_in_the_rocket(model, request):
    assert DETECT[model](request.getfixturevalue(model), photo("rocket")) == []  # a launch pad: no COCO class


@pytest.mark.models
@pytest.mark.parametrize("model", DETECT)
def test_each_detectors_boxes_follow_the_photograph_where_it_lies(model, request):
    """The cat put in a larger black frame, off centre: the same cat, its box moved by as much."""
    detect, session = DETECT[model], request.getfixturevalue(model)
    cat = photo("chelsea")
    frame = np.zeros((600, 900, 3), np.uint8)
    frame[200:200 + cat.shape[0], 320:320 + cat.shape[1]] = cat
    alone, framed = detect(session, cat)[0], detect(session, frame)[0]
    assert COCO_LABELS[framed[0]] == "cat"
    moved = (alone[2] + 320, alone[3] + 200, alone[4], alone[5])
    assert iou(moved, framed[2:]) > 0.8, (moved, framed)


# ------------------------------------------------------------------------------------------- NanoDet


@pytest.mark.models
@pytest.mark.parametrize("name, subject, point, absent", [
    ("astronaut", "person", (220, 120), {"cat", "dog"}),
    ("chelsea", "cat", (225, 150), {"dog", "person"}),  # a dog too at 0.38, on the same box
    ("coffee", "dining table", (300, 300), {"person"}),  # the cup scores 0.27: see below
    ("motorcycle", "motorcycle", (370, 300), {"person", "car"}),
    ("grace", "person", (270, 240), {"cat", "dog"}),
])
def test_nanodet_names_and_boxes_what_each_photograph_shows(nanodet, name, subject, point, absent):
    image = photo(name)
    found = nanodet_objects(nanodet, image)
    labels = [COCO_LABELS[c] for c, *_ in found]
    assert labels and labels[0] == subject, labels
    assert not absent & set(labels), labels
    cls, score, *box = found[0]
    assert 0.4 <= score <= 1 and inside(point, box)
    h, w = image.shape[:2]
    for _, _, x, y, bw, bh in found:
        assert 0 <= x and 0 <= y and x + bw <= w + 1e-3 and y + bh <= h + 1e-3 and bw >= 1 and bh >= 1


@pytest.mark.models
def test_nanodet_sees_the_cup_only_under_its_threshold_and_boxes_it_as_centernet_does(nanodet, centernet):
    image = photo("coffee")
    assert "cup" not in {COCO_LABELS[c] for c, *_ in nanodet_objects(nanodet, image)}
    cups = [f for f in nanodet_objects(nanodet, image, min_score=0.2) if COCO_LABELS[f[0]] == "cup"]
    assert cups and 0.2 <= cups[0][1] < 0.4
    (theirs,) = [f for f in objects(centernet, image) if COCO_LABELS[f[0]] == "cup"]
    assert iou(cups[0][2:], theirs[2:]) > 0.8, (cups[0], theirs)


@pytest.mark.models
@pytest.mark.parametrize("name", ["astronaut", "chelsea", "motorcycle", "grace"])
def test_nanodet_and_centernet_box_the_subject_alike(nanodet, centernet, name):
    """The two detectors decode their outputs in unlike ways (distributions over strides, peaks
    of a heatmap): the same subject, boxed within a few pixels of each other."""
    image = photo(name)
    ours, theirs = nanodet_objects(nanodet, image)[0], objects(centernet, image)[0]
    assert ours[0] == theirs[0] and iou(ours[2:], theirs[2:]) > 0.85, (ours, theirs)


@pytest.mark.models
def test_nanodet_engine_detects_as_the_app_asks():
    from videoreview.engines.objects.nanodet import NanoDetEngine
    from videoreview.models.catalog import load_catalog

    engine = NanoDetEngine()
    assert (engine.name, engine.kind) == ("nanodet", "objects")
    assert engine.version == "1-" + load_catalog()["nanodet-coco"].sha256[:12]
    found = engine.detect(photo("grace"))
    assert [label for label, *_ in found] == ["person", "tie"]
    label, score, (x, y, w, h) = found[1]
    assert 0.4 <= score <= 1 and inside((260, 480), (x, y, w, h))  # her tie, under her chin
    assert engine.detect(photo("rocket")) == []
    engine.release()


# ------------------------------------------------------------------------------------------- MoveNet


def check_face(person, face) -> None:
    """Nose and both eyes confident (over MoveNet's suggested 0.3) and on the face; the person's
    right eye on the picture's left."""
    score, box, kps = person
    assert score >= 0.4 and inside((face[0] + face[2] / 2, face[1] + face[3] / 2), box)
    for k in (NOSE, LEFT_EYE, RIGHT_EYE):
        assert kps[k, 2] > 0.3 and inside(kps[k, :2], face, margin=0.1), (KEYPOINTS[k], kps[k], face)
    assert kps[RIGHT_EYE, 0] < kps[NOSE, 0] < kps[LEFT_EYE, 0]
    assert kps[LEFT_EYE, 1] < kps[NOSE, 1] and kps[RIGHT_EYE, 1] < kps[NOSE, 1]


@pytest.mark.models
@pytest.mark.parametrize("name", ["astronaut", "grace"])
def test_movenet_finds_the_one_person_and_their_face(movenet, name):
    found = people(movenet, photo(name))
    assert len(found) == 1
    check_face(found[0], FACES[name])
    assert found[0][2].shape == (17, 3)


@pytest.mark.models
def test_movenet_takes_any_multiple_of_32(movenet):
    """Grace Hopper (portrait) at 224x256, the tightest box of her aspect: the same keypoints."""
    image = photo("grace")
    size = movenet_size(image.shape[1], image.shape[0])
    assert size == (224, 256)
    (square,), (tight,) = people(movenet, image), people(movenet, image, size)
    check_face(tight, FACES["grace"])
    assert np.abs(square[2][:5, :2] - tight[2][:5, :2]).max() < 8  # pixels, on a 512x600 photograph


@pytest.mark.models
def test_movenet_finds_two_people_side_by_side(movenet):
    astronaut, grace = photo("astronaut"), photo("grace")
    frame = np.zeros((600, 1024, 3), np.uint8)
    frame[44:556, :512], frame[:, 512:] = astronaut, grace
    found = people(movenet, frame, movenet_size(1024, 600))
    assert len(found) == 2
    left, right = sorted(found, key=lambda p: p[2][NOSE, 0])
    ax, ay, aw, ah = FACES["astronaut"]
    gx, gy, gw, gh = FACES["grace"]
    check_face(left, (ax, ay + 44, aw, ah))
    check_face(right, (gx + 512, gy, gw, gh))


@pytest.mark.models
@pytest.mark.parametrize("name", ["chelsea", "coffee", "rocket", "motorcycle"])
def test_movenet_finds_nobody_where_nobody_is(movenet, name):
    assert people(movenet, photo(name)) == []


# ------------------------------------------------------------------------------------------- decoding


def test_letterbox_places_the_frame_and_maps_points_back():
    frame = np.full((360, 640, 3), 200, np.uint8)
    canvas, box = letterbox(frame, 512, 512)
    assert box == Letterbox(640, 360, 512, 512, 512, 288, 0, 112)
    assert canvas.shape == (512, 512, 3) and canvas[:112].max() == 0 and canvas[400:].max() == 0
    assert canvas[112:400].min() == 200
    x, y = box.to_frame([0, 256, 512], [112, 256, 400])
    assert np.allclose(x, [0, 320, 640]) and np.allclose(y, [0, 180, 360])
    assert movenet_size(640, 360) == (256, 160) and movenet_size(360, 640) == (160, 256)
    assert movenet_size(512, 512) == (256, 256) and movenet_size(2000, 100) == (256, 32)


def test_decode_centernet_keeps_the_best_of_each_object_in_frame_pixels():
    box = Letterbox(1024, 512, 512, 512, 512, 256, 0, 128)  # a 2:1 frame, half size, 128 px bands
    cat, dog, person = COCO_LABELS.index("cat"), COCO_LABELS.index("dog"), COCO_LABELS.index("person")
    detections = np.array([[
        [100, 200, 300, 300, 0.8, cat],
        [105, 205, 305, 305, 0.6, cat],  # the same cat again: dropped
        [105, 205, 305, 305, 0.5, dog],  # another class on it: kept
        [400, 150, 500, 250, 0.2, person],  # under 0.3
        [10, 20, 60, 100, 0.9, person],  # in the band above the frame: dropped
        [0, 100, 50, 200, 0.4, person],  # crosses the band: clipped
    ]], np.float32)
    found = decode_centernet(detections, box)
    assert [(COCO_LABELS[c], round(s, 2)) for c, s, *_ in found] == [("cat", 0.8), ("dog", 0.5), ("person", 0.4)]
    assert np.allclose(found[0][2:], (200, 144, 400, 200))
    assert np.allclose(found[2][2:], (0, 0, 100, 144))
    assert decode_centernet([np.zeros((1, 128, 128, 4)), detections], box) == found  # all outputs, in a list
    assert decode_centernet({"detections": detections}, box) == found


def nanodet_outputs(cells: dict[tuple[int, int], tuple[dict[int, float], tuple[int, int, int, int]]]) -> dict:
    """NanoDet's six outputs, all scores 0, but at (stride, cell): class scores and a box
    whose distances (left, top, right, bottom, whole strides) its distributions are sure of."""
    outputs = {}
    for stride in (8, 16, 32):
        n = (416 // stride) ** 2
        outputs[f"cls_{stride}"] = np.zeros((1, n, 80), np.float32)
        outputs[f"reg_{stride}"] = np.zeros((1, n, 44), np.float32)
    for (stride, cell), (scores, sides) in cells.items():
        for cls, score in scores.items():
            outputs[f"cls_{stride}"][0, cell, cls] = score
        for k, side in enumerate(sides):
            outputs[f"reg_{stride}"][0, cell, 11 * k + side] = 30.0  # the softmax: all but certain
    return outputs


def test_nanodet_input_is_bgr_channels_first_normalised():
    canvas = np.zeros((416, 416, 3), np.uint8)
    canvas[..., 0], canvas[..., 1], canvas[..., 2] = 255, 128, 0  # RGB
    tensor = nanodet_input(canvas)
    assert tensor.shape == (1, 3, 416, 416) and tensor.dtype == np.float32 and tensor.flags.c_contiguous
    assert np.allclose(tensor[0, :, 0, 0], [(0 - 103.53) / 57.375, (128 - 116.28) / 57.12,
                                            (255 - 123.675) / 58.395])


def test_decode_nanodet_decodes_distributions_suppresses_and_maps_to_the_frame():
    box = Letterbox(832, 416, 416, 416, 416, 208, 0, 104)  # a 2:1 frame, half size, 104 px bands
    cat, dog, person = COCO_LABELS.index("cat"), COCO_LABELS.index("dog"), COCO_LABELS.index("person")
    outputs = nanodet_outputs({
        # stride 16, row 10, column 12: centre (200, 168); sides 3, 2, 4, 1 strides: box 152, 136, 264, 184
        (16, 10 * 26 + 12): ({cat: 0.8, dog: 0.5}, (3, 2, 4, 1)),
        # stride 8, row 21, column 25: centre (204, 172); 6, 5, 7, 2 strides: 156, 132, 260, 188: the same cat
        (8, 21 * 52 + 25): ({cat: 0.6}, (6, 5, 7, 2)),
        (32, 5 * 13 + 6): ({person: 0.3}, (1, 1, 1, 1)),  # under 0.4
        (32, 0 * 13 + 6): ({person: 0.9}, (1, 0, 1, 1)),  # centre (208, 16), y 16..48: in the band above
        # stride 32, row 4, column 0: centre (16, 144); sides 2, 1, 1, 1: x clipped at 0, y 112..176
        (32, 4 * 13 + 0): ({person: 0.4}, (2, 1, 1, 1)),
    })
    found = decode_nanodet(outputs, box)
    assert [(COCO_LABELS[c], round(s, 2)) for c, s, *_ in found] == [("cat", 0.8), ("dog", 0.5), ("person", 0.4)]
    assert np.allclose(found[0][2:], (304, 64, 224, 96), atol=1e-3)  # input 152..264 x 136..184, times 2
    assert np.allclose(found[1][2:], found[0][2:])
    assert np.allclose(found[2][2:], (0, 16, 96, 128), atol=1e-3)
    assert decode_nanodet(list(outputs.values())[::-1], box) == found  # a list, in any order
    assert [round(s, 2) for _, s, *_ in decode_nanodet(outputs, box, min_score=0.25)] == [0.8, 0.5, 0.4, 0.3]
    assert len(decode_nanodet(outputs, box, max_iou=0.95)) == 4  # the second cat kept: IoU 0.80
    assert decode_nanodet(nanodet_outputs({}), box) == []
    # A distribution unsure between 2 and 4 strides: 3.
    unsure = nanodet_outputs({(16, 10 * 26 + 12): ({cat: 0.8}, (3, 2, 4, 1))})
    unsure["reg_16"][0, 10 * 26 + 12, :11] = 0
    unsure["reg_16"][0, 10 * 26 + 12, [2, 4]] = 30
    assert np.allclose(decode_nanodet(unsure, box)[0][2:], found[0][2:], atol=1e-3)


def test_decode_movenet_maps_keypoints_and_boxes_and_drops_the_unsure():
    box = Letterbox(400, 200, 256, 256, 256, 128, 0, 64)
    rows = np.zeros((1, 6, 56), np.float32)
    rows[0, 0, :51] = np.tile([0.5, 0.25, 0.9], 17)  # every keypoint at input (64, 128)
    rows[0, 0, 51:] = [0.25, 0.0, 0.75, 0.5, 0.7]  # box: input x 0..128, y 64..192
    rows[0, 1, 51:] = [0.3, 0.5, 0.6, 0.9, 0.8]
    rows[0, 2, 55] = 0.2  # under 0.25
    found = decode_movenet(rows, box)
    assert [round(s, 2) for s, _, _ in found] == [0.8, 0.7]
    score, (x, y, w, h), kps = found[1]
    assert np.allclose((x, y, w, h), (0, 0, 200, 200))
    assert kps.shape == (17, 3) and np.allclose(kps, [100, 100, 0.9])
    assert len(COCO_LABELS) == len(set(COCO_LABELS)) == 80 and len(KEYPOINTS) == 17
