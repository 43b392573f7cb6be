"""The on-screen text stage's gate (pipeline/stages/text_gate.py): lines of text over real
photographs are text-like, moving photographs without text are not; and in the stage,
PP-OCR is asked nothing while the picture holds nothing text-like, and still reads a lower
third that appears over it (calls counted by wrapping the real engine)."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
import skimage.data

from videoreview.engines.screen_text.rapid import RapidTextEngine
from videoreview.media import open_video
from videoreview.pipeline.cancel import CancelToken
from videoreview.pipeline.stages.screen_text import ScreenTextStage, merge_spans
from videoreview.pipeline.stages.text_gate import text_like
from videos import encode_frames

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from real_corpus import corpus, present  # noqa: E402

SIZE = (736, 414)  # the stage's reading size for a 1280x720 clip
LOWER_THIRD = "Platform 9 closed tonight"


def photo(name: str) -> np.ndarray:
    image = getattr(skimage.data, name)()
    return np.dstack([image] * 3) if image.ndim == 2 else np.ascontiguousarray(image[:, :, :3])


def panned(image: np.ndarray, k: int, steps: int = 40, size=(1280, 720)) -> np.ndarray:
    """Step ``k`` of a pan across ``image`` (a moving picture), at ``size``."""
    h, w = image.shape[:2]
    crop_w = int(min(w, h * 16 / 9) * 0.8)
    crop_h = int(crop_w * 9 / 16)
    x = int((w - crop_w) * (k % steps) / (steps - 1))
    y = int((h - crop_h) * (k % steps) / (steps - 1) / 2)
    return cv2.resize(image[y:y + crop_h, x:x + crop_w], size, interpolation=cv2.INTER_AREA)


def with_text(frame: np.ndarray, text: str, y: int, cap: int) -> np.ndarray:
    """White Hershey text with a dark outline, capitals ``cap`` pixels high, baseline at ``y``."""
    frame = frame.copy()
    scale = cap / 22  # FONT_HERSHEY_SIMPLEX capitals are about 22 px at scale 1
    thickness = max(1, round(scale * 2))
    cv2.putText(frame, text, (60, y), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), thickness + 2, cv2.LINE_AA)
    cv2.putText(frame, text, (60, y), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), thickness, cv2.LINE_AA)
    return frame


def small(frame: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(cv2.resize(frame, SIZE, interpolation=cv2.INTER_AREA))


@pytest.mark.parametrize("name", ["astronaut", "coffee", "moon", "retina"])
@pytest.mark.parametrize("cap", [16, 24, 48])
def test_a_line_of_text_over_a_photograph_is_text_like(name, cap):
    y = 620 if cap < 40 else 400
    frame = small(with_text(panned(photo(name), 7), LOWER_THIRD, y, cap))
    rows = (y - cap) * SIZE[1] / 720, y * SIZE[1] / 720
    boxes = text_like(frame)
    assert any(by <= rows[1] and by + bh >= rows[0] for _bx, by, _bw, bh in boxes), (name, cap, boxes)


def test_a_moving_photograph_without_text_is_not():
    # A photograph of the moon's surface, panned: craters, no writing.
    found = [text_like(small(panned(photo("moon"), k))) for k in range(0, 40, 4)]
    assert found == [[]] * 10


def test_texture_seen_as_text_like_is_the_part_that_is_not_proven_absent():
    # The gate is a cheap test and says where text cannot be, not where it is: close-up
    # grass passes it (rows of blades of one height), and then PP-OCR decides as before.
    assert text_like(small(panned(photo("grass"), 3))) != []


class Counting:
    """The real engine, its calls counted (reads, and coarse detections)."""

    def __init__(self, engine) -> None:
        self.engine, self.long_side = engine, engine.long_side
        self.name, self.version = engine.name, engine.version
        self.reads = []  # what each read found
        self.finds = 0

    def read(self, frame):
        self.reads.append(self.engine.read(frame))
        return self.reads[-1]

    def find(self, image, frame_shape=None):
        self.finds += 1
        return self.engine.find(image, frame_shape)


@pytest.fixture(scope="module")
def engine():
    return RapidTextEngine()


@pytest.fixture(scope="module")
def lower_third_clip(tmp_path_factory):
    """6 s at 1280x720, 25 fps: the moon's surface panning, a lower third from 2 s to 4 s."""
    path = tmp_path_factory.mktemp("gate") / "moon.mp4"
    moon = photo("moon")

    def frames():
        for k in range(150):
            frame = panned(moon, k, steps=150)
            yield with_text(frame, LOWER_THIRD, 640, 30) if 50 <= k < 100 else frame

    encode_frames(path, frames(), 25)
    return path


def run_stage(path, engine, gate=True) -> tuple[dict, Counting]:
    counting = Counting(engine)
    stage = ScreenTextStage(counting)
    if not gate:
        stage.gate = None
    with open_video(path) as source:
        result = stage.compute(source, lambda *a: None, CancelToken())
    return result, counting


@pytest.mark.models
def test_the_stage_reads_a_lower_third_over_a_moving_photograph_and_nothing_else(lower_third_clip, engine):
    result, calls = run_stage(lower_third_clip, engine)
    spans = merge_spans(result.samples, sample_rate=result.sample_rate)
    assert [s.text for s in spans] == [LOWER_THIRD], spans
    assert abs(spans[0].start - 2.0) <= 0.5 and abs(spans[0].end - 4.0) <= 1.0, spans[0]
    # Nothing text-like before the lower third: PP-OCR was not asked at all then (the
    # first sample is not read blindly); the lower third read once, and once more when it
    # went (its edges flipped).
    looked = [s["time"] for s in result.samples if "lines" in s]
    assert looked and min(looked) >= 2.0, looked
    assert len(calls.reads) == 2 and calls.finds == 0, (calls.reads, calls.finds)
    # The moving moon's samples kept from PP-OCR: 4 before the lower third, 2 after the
    # reading that saw it go (those within a second of a reading are not looked at).
    assert result.gated == 6, result.gated


@pytest.mark.models
@pytest.mark.parametrize("name", ["kampos-drop-water.mp4", "vide-ocean.mp4"])
def test_real_water_footage_is_mostly_kept_from_ppocr(name, engine):
    # Real clips of moving water without text (the corpus, where fetched): with the gate
    # PP-OCR is called a third as often or less (measured: 1 call instead of 21, and 6
    # instead of 21); without it the first sample is read and the moving picture searched
    # once a second.
    clips = [c for c in present(corpus()) if c.name == name]
    if not clips:
        pytest.skip(f"{name} not fetched (scripts/fetch-real-clips)")
    result, gated = run_stage(clips[0].path, engine)
    _result, ungated = run_stage(clips[0].path, engine, gate=False)
    spans = merge_spans(result.samples, sample_rate=result.sample_rate)
    assert spans == []
    assert 3 * (len(gated.reads) + gated.finds) <= len(ungated.reads) + ungated.finds, (
        len(gated.reads), gated.finds, len(ungated.reads), ungated.finds)


@pytest.mark.models
def test_without_the_gate_the_same_clip_costs_more_calls(lower_third_clip, engine):
    # What the gate saves, and what makes the test above able to fail: without it the first
    # sample is read and the moving picture is searched once a second.
    _result, calls = run_stage(lower_third_clip, engine, gate=False)
    assert len(calls.reads) + calls.finds >= 6, (calls.reads, calls.finds)
