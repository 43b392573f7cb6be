"""The speakers stage: who says each segment (MICap's idea: tie speech to the identities on
screen). A segment is given to an identity only with evidence; wrong names are worse than
none:

- "alone": while it is spoken, that identity's face is the only face on screen (in at
  least half of the face samples inside the segment, and no other face in any of them);
- "mouth": several identified faces are on screen, and one mouth moves while the others
  stay still: ``compute`` (cached) looks at the segment's first ``MAX_SECONDS`` at
  ``MOUTH_RATE`` frames a second and measures each face's mouth openness with the face
  mesh (engines/faces/mouth.py); the spread of it (90th minus 10th percentile) is the
  face's mouth activity. The most active face speaks if its activity is at least
  ``MIN_ACTIVITY`` and ``DOMINANCE`` times the next face's;
- otherwise nobody: faces with no sign of who is talking, an off-screen voice, faces
  nobody could identify.

A reviewer's segments (``edited``) keep the speaker they were given.
"""

from __future__ import annotations

import bisect
import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, replace

import numpy as np

from ...engines.base import ProgressFn
from ...media import FrameSource, scaled_size
from ...records import Analysis, FaceDetection, TranscriptSegment
from ..cancel import CancelToken
from .base import Stage
from .faces import SAMPLE_RATE as FACE_SAMPLE_RATE
from .result import StageResult

MIN_ALONE = 0.5  # of the face samples within a segment, at least this share show the speaker alone
MOUTH_RATE = 10.0  # frames a second looked at for mouth movement (syllables come at 3-6 a second)
MAX_SECONDS = 8.0
# The spread of a still face's openness measured 0.003-0.009 on the test clips (a drifting
# face, boxes from the 2 fps face samples), a talking one's 0.042-0.054.
MIN_ACTIVITY = 0.015
DOMINANCE = 2.0
MIN_LOOKS = 5  # openness measured on fewer frames than this says nothing


class FacesByTime:
    """The face samples of an Analysis, by time."""

    def __init__(self, faces: tuple[FaceDetection, ...]) -> None:
        groups: dict[float, list[FaceDetection]] = defaultdict(list)
        for face in faces:
            groups[face.time].append(face)
        self.times = sorted(groups)
        self.groups = groups

    def within(self, start: float, end: float) -> list[list[FaceDetection]]:
        """The samples that stand for moments in [start, end]: a sample is up to one sample
        interval older than the moment it stands for."""
        lo = bisect.bisect_left(self.times, start - 0.5 / FACE_SAMPLE_RATE)
        hi = bisect.bisect_right(self.times, end)
        return [self.groups[t] for t in self.times[lo:hi]]

    def nearest(self, time: float) -> list[FaceDetection]:
        i = bisect.bisect_left(self.times, time)
        near = [t for t in self.times[max(0, i - 1):i + 1] if abs(t - time) <= 0.5 / FACE_SAMPLE_RATE]
        return self.groups[min(near, key=lambda t: abs(t - time))] if near else []


def alone(segment: TranscriptSegment, faces: FacesByTime) -> str | None:
    """The identity shown alone while ``segment`` is spoken, or None."""
    who = set()
    samples = faces.within(segment.start, segment.end)
    for group in samples:
        if len(group) > 1:
            return None
        who.add(group[0].identity)
    expected = max(1.0, (segment.end - segment.start) * FACE_SAMPLE_RATE)
    if len(who) != 1 or None in who or len(samples) < MIN_ALONE * expected:
        return None
    return next(iter(who))


def crowded(segment: TranscriptSegment, faces: FacesByTime) -> bool:
    """Whether two or more identified faces are on screen together while it is spoken."""
    return any(len({f.identity for f in group if f.identity}) >= 2
               for group in faces.within(segment.start, segment.end))


def by_mouth(activity: dict[str, float]) -> str | None:
    ranked = sorted(activity.items(), key=lambda item: -item[1])
    if not ranked or ranked[0][1] < MIN_ACTIVITY:
        return None
    if len(ranked) > 1 and ranked[0][1] < DOMINANCE * ranked[1][1]:
        return None
    return ranked[0][0]


@dataclass(frozen=True)
class MouthActivity(StageResult):
    """A segment looked at (``start``, ``end``) and each identity's mouth activity in it."""

    start: float
    end: float
    activity: dict[str, float]


@dataclass(frozen=True)
class SpeakerResult(StageResult):
    segments: tuple[MouthActivity, ...]


class SpeakerStage(Stage):
    name = "speakers"
    after_earlier = True  # it looks where the faces and the speech say
    Result = SpeakerResult

    def __init__(self, engine) -> None:
        self.engine = engine  # a FaceMesh
        self._look: list[tuple[float, float]] = []
        self._faces = FacesByTime(())

    def prepare(self, analysis: Analysis) -> str:
        """The segments said while several identified faces are on screen: those need
        looking at. Their times and those faces join the cache key."""
        self._faces = FacesByTime(analysis.faces)
        self._look = [(s.start, s.end) for s in analysis.transcript if crowded(s, self._faces)]
        faces = [(f.frame, f.identity, f.box) for start, end in self._look
                 for group in self._faces.within(start, end) for f in group]
        return hashlib.sha256(json.dumps([self._look, faces]).encode()).hexdigest()[:12]

    def compute(self, source: FrameSource, progress: ProgressFn, cancel: CancelToken) -> SpeakerResult:
        info = source.info
        size = scaled_size(info.width, info.height, min(960, max(info.width, info.height)))
        scale = size[0] / info.width  # display pixels -> decoded pixels
        found = []
        for n, (start, end) in enumerate(self._look):
            cancel.check()
            times = np.arange(start, min(end, start + MAX_SECONDS, info.duration), 1.0 / MOUTH_RATE)
            looks: dict[str, list[float]] = defaultdict(list)
            if len(times):
                batch = source.frames_at_times(times, size=size)
                for time, frame in zip(batch.times, batch.frames):
                    for face in self._faces.nearest(float(time)):
                        if face.identity:
                            value = self.engine.openness(frame, tuple(v * scale for v in face.box))
                            if value is not None:
                                looks[face.identity].append(value)
            activity = {pid: round(float(np.percentile(v, 90) - np.percentile(v, 10)), 5)
                        for pid, v in looks.items() if len(v) >= MIN_LOOKS}
            found.append(MouthActivity(start, end, activity))
            progress((n + 1) / len(self._look), f"segment {n + 1}/{len(self._look)}")
        return SpeakerResult(tuple(found))

    def apply(self, analysis: Analysis, result: SpeakerResult, previous: Analysis | None) -> Analysis:
        faces = FacesByTime(analysis.faces)
        activity = {(round(s.start, 3), round(s.end, 3)): s.activity for s in result.segments}
        segments = []
        for segment in analysis.transcript:
            if not segment.edited:
                speaker, how = alone(segment, faces), "alone"
                if speaker is None:
                    speaker, how = by_mouth(activity.get((round(segment.start, 3), round(segment.end, 3)), {})), "mouth"
                segment = replace(segment, speaker=speaker, speaker_by=how if speaker else "")
            segments.append(segment)
        return replace(analysis, transcript=tuple(segments))
