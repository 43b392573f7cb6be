"""The on-screen text stage: titles, slides, signs and captions burnt into the picture.

``compute`` (cached) samples frames (2 a second) and reads text only where the picture
changed since the last frame read: a slide held for a minute is read once. A change is
any 16x9 block of a 160x90 grey thumbnail moving by more than ``CHANGE`` grey levels on
average, so a new subtitle line counts as much as a cut. ``apply`` merges what was read
into spans: the same text at about the same place in neighbouring samples is one span.
"""

from __future__ import annotations

import difflib
from dataclasses import replace

import cv2
import numpy as np

from ..engines.base import ProgressFn
from ..media import FrameSource, scaled_size
from ..records import Analysis, TextSpan
from .cancel import CancelToken

SAMPLE_RATE = 2.0
CHANGE = 6.0  # mean absolute grey-level change in one block that means "read again"
SAME_TEXT = 0.8  # difflib ratio of two readings that are one text read slightly differently
MIN_CHARS = 2


def _thumb(frame: np.ndarray) -> np.ndarray:
    gray = cv2.cvtColor(cv2.resize(frame, (160, 90), interpolation=cv2.INTER_AREA), cv2.COLOR_RGB2GRAY)
    return gray.astype(np.float32)


def changed(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two thumbnails differ enough in any block to read the frame again."""
    diff = np.abs(a - b).reshape(9, 10, 10, 16).mean(axis=(1, 3))  # 9 x 10 blocks of 10 x 16 pixels
    return bool(diff.max() > CHANGE)


class ScreenTextStage:
    name = "screen-text"

    def __init__(self, engine, sample_rate: float = SAMPLE_RATE) -> None:
        self.engine = engine
        self.sample_rate = sample_rate

    def compute(self, source: FrameSource, progress: ProgressFn, cancel: CancelToken) -> dict:
        info = source.info
        size = scaled_size(info.width, info.height, min(self.engine.long_side, max(info.width, info.height)))
        scale = info.width / size[0]  # read pixels -> display pixels
        total = len(source.sample_indices(self.sample_rate))
        samples, last, read = [], None, 0
        for batch in source.sample(self.sample_rate, size=size, batch=8):
            for frame_index, time, frame in zip(batch.indices, batch.times, batch.frames):
                cancel.check()
                thumb = _thumb(frame)
                sample = {"time": round(float(time), 6), "frame": int(frame_index)}
                if last is None or changed(thumb, last):
                    last = thumb
                    read += 1
                    sample["lines"] = [{"text": b.text, "box": [round(v * scale, 1) for v in b.box],
                                        "score": round(b.score, 3)} for b in self.engine.read(frame)]
                samples.append(sample)
            progress(len(samples) / max(1, total), f"sample {len(samples)}/{total}, {read} read")
        return {"sample_rate": self.sample_rate, "samples": samples, "read": read}

    def apply(self, analysis: Analysis, result: dict, previous: Analysis | None) -> Analysis:
        engine = f"{self.engine.name}@{self.engine.version}"
        spans = merge_spans(result["samples"], engine, result["sample_rate"])
        return replace(analysis, screen_text=tuple(spans))


def _overlap(a, b) -> float:
    """Intersection over the smaller box: a line read a little wider is still the same line."""
    w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    return w * h / max(1e-6, min(a[2] * a[3], b[2] * b[3]))


def _same(a: str, b: str) -> bool:
    a, b = a.casefold(), b.casefold()
    return a == b or difflib.SequenceMatcher(None, a, b).ratio() >= SAME_TEXT


def merge_spans(samples: list[dict], engine: str = "", sample_rate: float = SAMPLE_RATE) -> list[TextSpan]:
    """Spans of text from the samples: a sample without ``lines`` shows what the last
    sample read showed (the picture did not change). A span runs from the first sample
    showing it to the first that does not; its text is the reading with the best score."""
    open_spans: list[dict] = []
    done: list[dict] = []
    lines: list[dict] = []
    for sample in samples:
        if "lines" in sample:
            lines = [ln for ln in sample["lines"] if len(ln["text"].strip()) >= MIN_CHARS]
        still: list[dict] = []
        for line in lines:
            match = next((s for s in open_spans if all(s is not t for t in still)
                          and _overlap(s["box"], line["box"]) > 0.5 and _same(s["text"], line["text"])), None)
            if match is None:
                match = {"start": sample["time"], "frame": sample["frame"], "text": line["text"],
                         "box": line["box"], "score": line["score"]}
            elif line["score"] > match["score"]:
                match.update(text=line["text"], box=line["box"], score=line["score"])
            still.append(match)
        for span in open_spans:
            if all(span is not t for t in still):
                done.append({**span, "end": sample["time"]})
        open_spans = still
    if samples:
        done.extend({**s, "end": samples[-1]["time"] + 1.0 / sample_rate} for s in open_spans)
    return sorted((TextSpan(start=s["start"], end=round(s["end"], 6), text=s["text"], box=tuple(s["box"]),
                            score=s["score"], frame=s["frame"], engine=engine) for s in done),
                  key=lambda span: (span.start, span.box[1], span.box[0]))
