"""The expressions engine on real photographs: the astronaut (Eileen Collins, smiling, in
scikit-image's sample data) is "happy"; each face gets a probability per FER2013 label,
the same whether its frame's faces go through the model together or one by one; a frame
with no faces gives nothing, without loading the model; the model file is the catalog's
(resources/models/emotion-fer.onnx, models/emotion-fer.toml)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from caption_set import photo
from videoreview.engines.expressions import LABELS, FerExpressionEngine, face_input
from videoreview.models.catalog import builtin_parts, load_catalog

# The faces' boxes (x, y, w, h): BlazeFace's (videoreview/engines/faces/blazeface.py), rounded;
# scripts/convert_human_models.py checks the conversion on the same.
FACES = {"astronaut": (169, 62, 113, 113), "grace": (165, 127, 202, 202)}


@pytest.fixture(scope="module")
def engine():
    return FerExpressionEngine()


def top(scores: dict[str, float]) -> str:
    return max(scores, key=scores.get)


def test_the_smiling_astronaut_is_happy(engine):
    (scores,) = engine.expressions(photo("astronaut"), [FACES["astronaut"]])
    assert tuple(scores) == LABELS
    assert top(scores) == "happy" and scores["happy"] > 0.9
    assert sum(scores.values()) == pytest.approx(1.0, abs=1e-5)


def test_a_frames_faces_go_through_together_as_they_would_alone(engine):
    grace = photo("grace")
    astronaut_alone = engine.expressions(photo("astronaut"), [FACES["astronaut"]])[0]
    grace_alone = engine.expressions(grace, [FACES["grace"]])[0]
    # Both faces in one frame: the astronaut's photograph pasted beside Grace Hopper's.
    frame = np.zeros((600, 1024, 3), np.uint8)
    frame[:, :512] = grace
    frame[:512, 512:] = photo("astronaut")
    x, y, w, h = FACES["astronaut"]
    together = engine.expressions(frame, [FACES["grace"], (x + 512, y, w, h)])
    assert len(together) == 2
    for alone, both in zip((grace_alone, astronaut_alone), together):
        assert all(abs(alone[k] - both[k]) < 1e-5 for k in LABELS)
    assert top(together[1]) == "happy"


def test_no_faces_give_nothing_and_load_nothing():
    engine = FerExpressionEngine()
    assert engine.expressions(photo("astronaut"), []) == []
    assert engine._session is None


def test_the_face_input_is_a_grey_square_in_minus_one_to_one():
    image = photo("grace")
    tensor = face_input(image, [FACES["grace"], (-20, 500, 60, 140)])  # the second leaves the frame
    assert tensor.shape == (2, 64, 64, 1) and tensor.dtype == np.float32
    assert -1.0 <= tensor.min() and tensor.max() <= 1.0
    white = face_input(np.full((100, 100, 3), 255, np.uint8), [(10, 10, 50, 50)])
    assert np.allclose(white, 1.0, atol=1e-3)


def test_the_model_file_is_the_catalogs():
    entry = load_catalog()["emotion-fer"]
    (path,) = builtin_parts(entry)
    data = path.read_bytes()
    assert hashlib.sha256(data).hexdigest() == entry.sha256 and len(data) == entry.size_bytes
    assert FerExpressionEngine().version == "1-" + entry.sha256[:12]
