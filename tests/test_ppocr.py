"""Our PP-OCR runner (engines/screen_text/ppocr.py) against RapidOCR itself on the same ONNX files,
with the settings the engine uses: the same lines, boxes and scores on drawn text and on
frames of real clips; and the engine reads without importing rapidocr."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from videoreview.engines.placement import Placement
from videoreview.engines.screen_text.ppocr import PPOCR
from videoreview.engines.screen_text.rapid import COARSE_SIDE, LONG_SIDE, MODEL, RapidTextEngine
from videoreview.models.catalog import builtin_parts, load_catalog

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from real_corpus import clips_dir  # noqa: E402

TEXT_SCORE = 0.5  # RapidOCR's Global.text_score: it drops lines below it, our runner leaves that to the engine
# Corpus clips with titles or credits, and where in them (fractions of their length) to look.
TITLED_CLIPS = ["xine-ui-default-visual.mpv", "boswars-intro.ogv", "gradio_thanks_endcard.mp4"]
AT = (0.25, 0.5, 0.75)

pytestmark = pytest.mark.models


@pytest.fixture(scope="module")
def ours():
    det, rec = builtin_parts(load_catalog()[MODEL])[:2]
    return PPOCR(det, rec, "cpu")


@pytest.fixture(scope="module")
def theirs():
    """RapidOCR as the engine ran it before: one for reading, one for finding."""
    from rapidocr import RapidOCR  # only here: the app itself no longer imports it

    made = {side: RapidOCR(params={"Global.log_level": "critical", "Global.use_cls": False,
                                   "Det.limit_type": "max", "Det.limit_side_len": side})
            for side in (LONG_SIDE, COARSE_SIDE)}
    logging.getLogger("RapidOCR").setLevel(logging.CRITICAL)
    return made


def drawn_frame() -> np.ndarray:
    """Lines of Hershey text from 0.4 to 2.0 scale over a gradient (BGR, 1280x720)."""
    frame = np.full((720, 1280, 3), 40, np.uint8)
    frame[:, :, 1] = np.linspace(30, 90, 1280).astype(np.uint8)
    lines = [("Chapter 3: The Station", 2.0), ("Platform 9 closed", 1.0), ("Next train 12:04", 0.6),
             ("small print here", 0.4), ("Quarterly results 2026", 1.4)]
    for n, (text, scale) in enumerate(lines):
        cv2.putText(frame, text, (80 + 20 * n, 120 + 120 * n), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255),
                    max(1, int(scale * 2)), cv2.LINE_AA)
    return frame


def at_long_side(image: np.ndarray, side: int) -> np.ndarray:
    h, w = image.shape[:2]
    scale = side / max(h, w)
    return cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)


def assert_same_reading(ours: PPOCR, theirs: dict, bgr: np.ndarray) -> int:
    """Both read ``bgr`` alike (texts equal, corners within 2 px, scores within 0.01) and find
    the same regions at the coarse side; the number of lines read."""
    mine = [line for line in ours.read(bgr, LONG_SIDE) if line.score >= TEXT_SCORE]
    result = theirs[LONG_SIDE](bgr)
    assert [line.text for line in mine] == list(result.txts or ()), bgr.shape
    for line, corners, score in zip(mine, result.boxes if mine else (), result.scores or ()):
        assert np.abs(line.corners - corners).max() <= 2, (line, corners)
        assert abs(line.score - score) <= 0.01, (line, score)
    found = ours.find(bgr, COARSE_SIDE)
    boxes = theirs[COARSE_SIDE](bgr, use_rec=False).boxes
    assert len(found) == (0 if boxes is None else len(boxes)), bgr.shape
    if len(found):
        assert np.abs(found - boxes).max() <= 2, (found, boxes)
    return len(mine)


def test_drawn_lines_of_several_sizes_read_as_rapidocr_reads_them(ours, theirs):
    frame = at_long_side(drawn_frame(), LONG_SIDE)
    assert assert_same_reading(ours, theirs, frame) == 5
    assert [line.text for line in ours.read(frame, LONG_SIDE)][:3] == [
        "Chapter 3: The Station", "Platform 9 closed", "Next train 12:04"]
    # Turned a little: the boxes are rotated quadrilaterals, the crops straightened.
    h, w = frame.shape[:2]
    turned = cv2.warpAffine(frame, cv2.getRotationMatrix2D((w / 2, h / 2), 4, 1.0), (w, h))
    assert assert_same_reading(ours, theirs, turned) >= 3


def test_strips_and_small_parts_of_a_frame_are_prepared_as_rapidocr_prepares_them(ours, theirs):
    # The stage looks for text in parts of a frame (find with frame_shape): a flat strip is
    # padded above and below, a part under 30 px high scaled up first.
    small = at_long_side(drawn_frame(), COARSE_SIDE)
    parts = [small[20:60], small[25:45, 10:300], small[60:90, 30:120], small[0:200, 0:40], small[100:112]]
    read = sum(assert_same_reading(ours, theirs, np.ascontiguousarray(part)) for part in parts)
    assert read >= 4


def test_finding_alone_does_not_load_the_recogniser():
    det, rec = builtin_parts(load_catalog()[MODEL])[:2]
    fresh = PPOCR(det, rec, "cpu")
    assert len(fresh.find(at_long_side(drawn_frame(), COARSE_SIDE), COARSE_SIDE)) == 4
    assert fresh._rec is None  # 0.2-0.3 s saved where nothing is read
    assert fresh.read(at_long_side(drawn_frame(), LONG_SIDE), LONG_SIDE) and fresh._rec is not None


def clip_frames(path: Path) -> list[np.ndarray]:
    capture = cv2.VideoCapture(str(path))
    count = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
    frames = []
    for at in AT:
        capture.set(cv2.CAP_PROP_POS_FRAMES, int(count * at))
        ok, frame = capture.read()
        if ok:
            frames.append(frame)
    capture.release()
    return frames


@pytest.mark.parametrize("name", TITLED_CLIPS)
def test_frames_of_real_clips_with_titles_read_as_rapidocr_reads_them(ours, theirs, name):
    path = clips_dir() / name
    if not path.exists():
        pytest.skip(f"{name} is not fetched (scripts/fetch-real-clips)")
    frames = clip_frames(path)
    assert len(frames) == len(AT), name
    read = sum(assert_same_reading(ours, theirs, at_long_side(frame, LONG_SIDE)) for frame in frames)
    assert read >= 1, name  # each has words on screen at one of these times at least


def test_the_engine_reads_without_importing_rapidocr():
    code = """
import sys, cv2, numpy as np
import videoreview.engines.screen_text.rapid as rapid
frame = np.zeros((414, 736, 3), np.uint8)
cv2.putText(frame, "Platform 9 closed", (40, 200), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (255, 255, 255), 2, cv2.LINE_AA)
lines = rapid.RapidTextEngine().read(frame)
print([line.text for line in lines])
print(sorted(name for name in ("rapidocr", "omegaconf", "shapely") if name in sys.modules))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["['Platform 9 closed']", "[]"], out


class _FailingGpu:
    """A runner on a GPU that has run out of memory (no GPU here to make one fail)."""

    def read(self, image, side):
        raise RuntimeError("CUDA error: out of memory")


def test_a_gpu_that_fails_mid_run_moves_the_engine_to_the_cpu_and_reads_there():
    engine = RapidTextEngine("cuda")
    engine.place, engine._ocr = Placement("cuda"), _FailingGpu()
    frame = np.ascontiguousarray(at_long_side(drawn_frame(), LONG_SIDE)[:, :, ::-1])  # the engine takes RGB
    lines = engine.read(frame)
    assert [line.text for line in lines][:2] == ["Chapter 3: The Station", "Platform 9 closed"]
    assert engine.device == "cpu" and "out of memory" in engine.device_note
    assert isinstance(engine._ocr, PPOCR)


def test_the_version_names_our_runner_so_rapidocrs_cached_readings_are_redone():
    assert RapidTextEngine().version.startswith("ppocr-own")
