"""The on-screen text stage: titles, slides, signs and captions burnt into the picture.

``compute`` (cached) samples frames (2 a second) and reads a frame only when its text may
have changed since the last frame read, and at most once a second (``MIN_GAP``; samples
inside the gap are not looked at, a change in them is seen at the next one). Reading
costs about 0.3 s a frame on 2 CPU cores, nearly all of it the text detector; deciding
costs almost nothing, or a coarse detection (0.07 s) on a moving picture:

1. Strong edges are what text is made of. A 480x270 grey copy's Sobel magnitude above
   ``EDGE`` gives a binary edge map; nothing changed unless at least ``CHANGED_CELLS`` of
   its 15x15 cells have more than ``CELL_FLIP`` of their pixels flipped against the last
   frame read. Smooth drifts, fades and exposure changes flip no edges: a slide held for
   a minute is read once.
2. Something changed. Where the edges inside a line of text last read flipped (more than
   ``TEXT_FLIP``), that text changed: read.
3. Elsewhere PP-OCR is asked only where something text-like is (text_gate.py, a few
   milliseconds: rows of character-sized blobs): a frame with none is neither read nor
   searched, the first frame included (on a moving picture with no text that was a read
   and a coarse detection a second). The first frame with something text-like is read.
   After it, at most once a second (``MIN_GAP``: on a moving picture nearly every
   sample changed, and the detection was most of the stage's time on a talking head): a
   coarse detection (368 px, no reading) of each changed region (the changed
   cells grouped into rectangles, a cell of margin around; the whole frame once where
   they cover more than half of it) that holds a text-like line says where text is there
   now; a box that no line last read covers is new text: read. A moving object or picture
   with the same text (or none) is not read again. Text smaller than the coarse detector
   finds, appearing over a moving picture, is read at the next reading something else
   triggers.

``apply`` merges what was read into spans: the same text at about the same place in
neighbouring samples is one span.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from ...media import FrameSource, scaled_size
from ...records import Analysis, ScreenText
from .base import SampledStage
from .cost import StageCost
from .result import StageResult
from .text_gate import text_like

SAMPLE_RATE = 2.0
MIN_GAP = 1.0  # seconds between two readings at least (a change seen sooner waits for the gap)
EDGE, CELL_FLIP, CHANGED_CELLS = 100.0, 0.15, 2
TEXT_FLIP = 0.1
WHOLE = 0.5  # changed regions covering more of the frame than this: detect on the whole frame once
LINE_ASPECT = 1.2  # a coarse box narrower than this times its height is no line of text
EDGE_SIZE = (480, 270)
SAME_TEXT = 0.8  # difflib ratio of two readings that are one text read slightly differently
MIN_CHARS = 2


def edges(frame: np.ndarray) -> np.ndarray:
    """The frame's strong edges at 480x270, as booleans."""
    gray = cv2.cvtColor(cv2.resize(frame, EDGE_SIZE, interpolation=cv2.INTER_AREA), cv2.COLOR_RGB2GRAY)
    gx, gy = cv2.Sobel(gray, cv2.CV_32F, 1, 0), cv2.Sobel(gray, cv2.CV_32F, 0, 1)
    return cv2.magnitude(gx, gy) > EDGE


def changed_cells(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The 18 x 32 cells (15 x 15 edge pixels each) where two edge maps differ."""
    return (a != b).reshape(18, 15, 32, 15).mean(axis=(1, 3)) > CELL_FLIP


def changed(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two edge maps differ in enough cells to look at the frame again."""
    return int(changed_cells(a, b).sum()) >= CHANGED_CELLS


def changed_regions(a: np.ndarray, b: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Rectangles (x, y, w, h in edge pixels) around each group of changed cells, a cell
    of margin added."""
    cells = cv2.dilate(changed_cells(a, b).astype(np.uint8), np.ones((3, 3), np.uint8))
    count, _labels, stats, _centres = cv2.connectedComponentsWithStats(cells, connectivity=8)
    return [(int(x) * 15, int(y) * 15, int(w) * 15, int(h) * 15) for x, y, w, h, _area in stats[1:count]]


class WhenToRead:
    """Decides, sample by sample, whether a frame needs reading (see the module docstring).
    Boxes are in the pixels of the frames it is given."""

    def __init__(self, engine, frame_size: tuple[int, int], gate=text_like) -> None:
        self.engine = engine
        self.gate = gate  # frame -> boxes of text-like lines (None: every frame may hold text)
        # frame pixels -> edge map pixels, across and down (a portrait frame is squeezed)
        self.kx, self.ky = EDGE_SIZE[0] / frame_size[0], EDGE_SIZE[1] / frame_size[1]
        self.edges: np.ndarray | None = None  # of the last frame read
        self.boxes: list[tuple] = []  # its lines
        self.time = -MIN_GAP  # of the last reading
        self.searched = -MIN_GAP  # of the last coarse detection
        self.skipped = 0  # samples the gate kept from PP-OCR: nothing text-like in them

    def wanted(self, frame: np.ndarray, time: float) -> bool:
        if self.edges is not None and time - self.time < MIN_GAP - 1e-6:
            return False  # no reading before the gap is over: what changed is seen then
        edge_map = edges(frame)
        self._candidate = edge_map
        if self.edges is not None:
            if not changed(edge_map, self.edges):
                return False
            if self._text_changed(edge_map):
                return True
            if time - self.searched < MIN_GAP - 1e-6:
                return False  # new text elsewhere is looked for at the next search
        lines = self.gate(frame) if self.gate is not None else None
        if lines == []:
            self.skipped += 1
            return False  # nothing text-like: PP-OCR is not asked (text_gate.py)
        if self.edges is None:
            return True  # the first frame with something text-like is read
        self.searched = time
        return self._new_text(frame, edge_map, lines)

    def read(self, time: float, boxes: list[tuple]) -> None:
        """The frame last given to ``wanted`` was read: its lines are at ``boxes``."""
        self.edges, self.boxes, self.time = self._candidate, boxes, time

    def _text_changed(self, edge_map: np.ndarray) -> bool:
        for x, y, w, h in self.boxes:
            rows = slice(int(y * self.ky), int((y + h) * self.ky) + 1)
            cols = slice(int(x * self.kx), int((x + w) * self.kx) + 1)
            if np.mean(edge_map[rows, cols] != self.edges[rows, cols]) > TEXT_FLIP:
                return True
        return False

    def _new_text(self, frame: np.ndarray, edge_map: np.ndarray, lines: list[tuple] | None) -> bool:
        regions = changed_regions(edge_map, self.edges)
        if sum(w * h for _x, _y, w, h in regions) > WHOLE * edge_map.size:
            regions = [(0, 0, edge_map.shape[1], edge_map.shape[0])]  # one detection, not many overlapping ones
        for x, y, w, h in regions:
            x0, y0 = int(x / self.kx), int(y / self.ky)
            x1, y1 = int((x + w) / self.kx), int((y + h) / self.ky)
            if lines is not None and not any(_overlap((x0, y0, x1 - x0, y1 - y0), line) > 0 for line in lines):
                continue  # nothing text-like where it changed: no detection
            for bx, by, bw, bh in self.engine.find(frame[y0:y1, x0:x1], frame.shape[:2]):
                if bw < LINE_ASPECT * bh:
                    continue  # not a line of writing (a round or square shape): read lines are 2+ characters
                box = (bx + x0, by + y0, bw, bh)
                if max((_overlap(box, old) for old in self.boxes), default=0.0) < 0.5:
                    return True
        return False


@dataclass(frozen=True)
class ScreenTextResult(StageResult):
    """Per sample (a dict: ``time``, ``frame``, and where it was read ``lines``: each line's
    ``text``, ``box``, ``score``) what was read; how many samples were read, and how many the
    text gate kept from PP-OCR."""

    sample_rate: float
    samples: tuple[dict, ...]
    read: int = 0
    gated: int = 0


class TextReader:
    """The stage's samples at the reading size (media/shared_pass.py)."""

    def __init__(self, stage: ScreenTextStage, source: FrameSource) -> None:
        info = source.info
        self.engine = stage.engine
        self.sample_rate = stage.sample_rate
        self.indices = source.sample_indices(stage.sample_rate)
        self.size = scaled_size(info.width, info.height, min(self.engine.long_side, max(info.width, info.height)))
        self.batch = 4  # a read takes up to ~0.3 s: cancel is checked between batches
        self.scale = info.width / self.size[0]  # read pixels -> display pixels
        self.decide = WhenToRead(self.engine, self.size, stage.gate)
        self.samples: list[dict] = []
        self.read = 0

    def take(self, batch) -> None:
        for frame_index, time, frame in zip(batch.indices, batch.times, batch.frames):
            sample = {"time": round(float(time), 6), "frame": int(frame_index)}
            if self.decide.wanted(frame, float(time)):
                lines = self.engine.read(frame)
                self.decide.read(float(time), [line.box for line in lines])
                self.read += 1
                sample["lines"] = [{"text": b.text, "box": [round(v * self.scale, 1) for v in b.box],
                                    "score": round(b.score, 3)} for b in lines]
            self.samples.append(sample)

    def status(self) -> str:
        return f"sample {len(self.samples)}/{len(self.indices)}, {self.read} read"

    def result(self) -> ScreenTextResult:
        return ScreenTextResult(self.sample_rate, tuple(self.samples), self.read, self.decide.skipped)


class ScreenTextStage(SampledStage):
    name = "screen-text"
    cost = StageCost(0.05, load=0.3, needs="text", coarse_rate=1.0)
    revision = 2  # 1: a coarse detection once a second at most; 2: the text gate (text_gate.py)
    gate = staticmethod(text_like)  # None: PP-OCR looks wherever the picture changed (benchmarks compare)
    sample_rate = SAMPLE_RATE
    Reader = TextReader
    Result = ScreenTextResult

    def apply(self, analysis: Analysis, result: ScreenTextResult, previous: Analysis | None) -> Analysis:
        spans = merge_spans(result.samples, self.engine_tag, result.sample_rate)
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


def merge_spans(samples: Sequence[dict], engine: str = "", sample_rate: float = SAMPLE_RATE) -> list[ScreenText]:
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
    return sorted((ScreenText(start=s["start"], end=round(s["end"], 6), text=s["text"], box=tuple(s["box"]),
                            score=s["score"], frame=s["frame"], engine=engine) for s in done),
                  key=lambda span: (span.start, span.box[1], span.box[0]))
