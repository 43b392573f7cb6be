"""On-screen text: PP-OCRv6 (bundled in rapidocr) reading words drawn on frames at several
sizes, the stage reading only where the picture changed (``models``), and spans merged
over samples."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from videoreview.engines.screen_text.rapid import RapidTextEngine
from videoreview.metrics.speech import normalise
from videoreview.pipeline import analyze
from videoreview.pipeline.stages import build_stages
from videoreview.pipeline.stages.screen_text import merge_spans
from videos import encode_frames

TITLES = ["Chapter 3: The Station", "Quarterly results 2026", "Exit on the left", "Platform 9 closed"]
# Each title for 2.5 s, then 1 s of picture with no text, on a 1280x720 clip.
HOLD, GAP = 2.5, 1.0


def title_frame(text: str | None, k: int, size=(1280, 720), scale: float = 2.0) -> np.ndarray:
    w, h = size
    frame = np.empty((h, w, 3), np.uint8)
    frame[:] = (40, 50, 70)
    frame[:, :, 1] = np.linspace(30, 90, w).astype(np.uint8)  # a gradient, not a flat card
    cv2.circle(frame, (100 + 3 * k, h - 120), 40, (200, 120, 40), -1)  # something moving slowly
    if text:
        cv2.putText(frame, text, (80, h // 3), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), max(1, int(scale * 2)),
                    cv2.LINE_AA)
    return frame


@pytest.fixture(scope="module")
def titles_clip(tmp_path_factory):
    path = tmp_path_factory.mktemp("titles") / "titles.mp4"
    fps = 25

    def frames():
        k = 0
        for title in TITLES:
            for text, seconds in ((title, HOLD), (None, GAP)):
                for _ in range(int(seconds * fps)):
                    yield title_frame(text, k)
                    k += 1

    encode_frames(path, frames(), fps)
    return path


@pytest.fixture(scope="module")
def engine():
    return RapidTextEngine()


@pytest.mark.parametrize("scale", [0.6, 1.0, 2.0])
@pytest.mark.models
def test_words_are_read_at_several_sizes(engine, scale):
    lines = ["Train leaves at noon", "Platform 9 closed", "Quarterly results 2026"]
    frame = title_frame(None, 0)
    for n, text in enumerate(lines):
        cv2.putText(frame, text, (60, 120 + n * int(90 * scale)), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255),
                    max(1, int(scale * 2)), cv2.LINE_AA)
    read = set(normalise(" ".join(box.text for box in engine.read(frame))))
    wanted = set(normalise(" ".join(lines)))
    recall = len(read & wanted) / len(wanted)
    assert recall >= 0.9, (scale, read)


@pytest.mark.models
def test_a_frame_without_text_reads_nothing(engine):
    assert engine.read(title_frame(None, 0)) == []


@pytest.mark.models
def test_the_stage_reads_where_the_picture_changed_and_merges_spans(titles_clip, home):
    messages = []
    analysis = analyze(titles_clip, stages=build_stages({"screen-text": "pp-ocrv6"}),
                       progress=lambda stage, fraction, message: messages.append(message))
    spans = analysis.screen_text
    assert [s.text for s in spans] == TITLES, spans
    for n, span in enumerate(spans):
        shown = n * (HOLD + GAP)
        assert abs(span.start - shown) <= 0.5 and abs(span.end - (shown + HOLD)) <= 0.5, span
        assert 60 <= span.box[0] <= 100 and span.box[2] > 300  # display pixels of the 1280x720 frame
    # The slow circle is below the change threshold: 28 samples, each title and gap read once.
    reads = [m for m in messages if m.endswith(" read")][-1]
    assert reads.endswith(f"{2 * len(TITLES)} read"), reads


def test_neighbouring_readings_merge_into_one_span():
    box = [100, 100, 300, 40]
    samples = [
        {"time": 0.0, "frame": 0, "lines": [{"text": "Chapter 3", "box": box, "score": 0.9}]},
        {"time": 0.5, "frame": 12},  # unchanged picture: the same text
        {"time": 1.0, "frame": 25, "lines": [{"text": "Chapter 3.", "box": [102, 101, 305, 40], "score": 0.99},
                                             {"text": "x", "box": [0, 0, 5, 5], "score": 0.9}]},
        {"time": 1.5, "frame": 37, "lines": [{"text": "Chapter 3", "box": [600, 100, 300, 40], "score": 0.95}]},
        {"time": 2.0, "frame": 50, "lines": []},
    ]
    spans = merge_spans(samples, sample_rate=2.0)
    # One span while the text stays in place (the best reading kept), a new one where it
    # moved; one character alone is not text.
    assert [(s.text, s.start, s.end) for s in spans] == [("Chapter 3.", 0.0, 1.5), ("Chapter 3", 1.5, 2.0)]
