"""An Analysis indexed by time, for the timeline and the video view: its records sorted
once into numpy arrays, so that a timeline paint only slices them (searchsorted), what
is on screen at one moment for the video's overlays, and the time <-> frame conversions.
The window gives the same Analysis to both, and ``AnalysisIndex.of`` indexes it once.
No Qt here."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..records import (
    BOUNDARY_KINDS,
    Analysis,
    Boundary,
    FaceDetection,
    FrameCaption,
    Identity,
    Keyframe,
    Note,
    ObjectDetection,
    ScreenText,
    Shape,
    TranscriptSegment,
)
from ..summary.export.subtitles import Cue, caption_spans, speech_cues
from ..timecode import frame_at, nearest_frame
from .labels import identity_label


@dataclass
class Lane:
    """One identity's presence: appearances sorted and merged, so that ends are sorted too."""

    identity: Identity
    label: str
    starts: np.ndarray
    ends: np.ndarray

    @classmethod
    def of(cls, identity: Identity) -> Lane:
        spans = sorted((a.start, max(a.start, a.end)) for a in identity.appearances)
        merged: list[list[float]] = []
        for start, end in spans:
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        bounds = np.array(merged, np.float64).reshape(-1, 2)
        return cls(identity, identity_label(identity.id, identity.name), bounds[:, 0].copy(), bounds[:, 1].copy())


class AnalysisIndex:
    """An Analysis as sorted arrays, built once per Analysis."""

    _last: AnalysisIndex | None = None

    @classmethod
    def of(cls, analysis: Analysis) -> AnalysisIndex:
        """The index of ``analysis``: the one built last if it was of the same Analysis."""
        if cls._last is None or cls._last.analysis is not analysis:
            cls._last = AnalysisIndex(analysis)
        return cls._last

    def __init__(self, analysis: Analysis):
        self.analysis = analysis
        video = analysis.video
        self.video_key = (analysis.content_hash, video.path)
        self.fps = video.fps if video.fps > 0 else 25.0
        self.frame_count = max(1, video.frame_count)
        self.aspect = video.width / video.height if video.width > 0 and video.height > 0 else 16 / 9
        latest = max([0.0, *(b.time for b in analysis.boundaries), *(c.time for c in analysis.captions),
                      *(k.time for k in analysis.keyframes), *(s.end for s in analysis.transcript)])
        self.duration = max(video.duration, latest + 1 / self.fps)
        self.shot_changes = analysis.shot_changes()

        self.boundaries: list[Boundary] = sorted(analysis.boundaries, key=lambda b: (b.time, b.frame))
        self.boundary_times = np.array([b.time for b in self.boundaries], np.float64)
        self.boundary_kinds = np.array([BOUNDARY_KINDS.index(b.kind) for b in self.boundaries], np.int8)
        self.boundary_edited = np.array([b.edited for b in self.boundaries], bool)
        self.boundary_index_by_frame = {b.frame: i for i, b in enumerate(self.boundaries)}

        # A block lasts as long as the caption applies, as a subtitle cue does.
        self.captions, self.caption_ends = caption_spans(analysis, self.duration)
        self.caption_starts = np.array([c.time for c in self.captions], np.float64)
        self.caption_edited = np.array([c.edited for c in self.captions], bool)
        self.caption_index_by_frame = {c.frame: i for i, c in enumerate(self.captions)}

        self.lanes = [Lane.of(identity) for identity in analysis.identities]
        self.names = {identity.id: identity.name for identity in analysis.identities}

        self.segments: list[TranscriptSegment] = sorted(analysis.transcript, key=lambda s: s.start)
        self.segment_starts, self.segment_reach = spans(self.segments)
        self.segment_index_by_start = {s.start: i for i, s in enumerate(self.segments)}
        self.texts: list[ScreenText] = sorted(analysis.screen_text, key=lambda s: (s.start, s.box[1]))
        self.text_starts, self.text_reach = spans(self.texts)  # a span is selected by its position here

        # The reviewer's notes (already in time order): a range lasts to the end of its last frame.
        self.notes = list(analysis.notes)
        self.note_starts = np.array([n.time for n in self.notes], np.float64)
        ends = np.array([(n.end_time if n.is_range else n.time) + 1 / self.fps for n in self.notes], np.float64)
        self.note_reach = np.maximum.accumulate(ends) if self.notes else self.note_starts
        self.note_ends = ends
        self.note_index_by_id = {n.id: i for i, n in enumerate(self.notes)}

        self.keyframes: list[Keyframe] = sorted(analysis.keyframes, key=lambda k: (k.time, k.frame))
        self.keyframe_times = np.array([k.time for k in self.keyframes], np.float64)
        self.keyframe_index_by_frame = {k.frame: i for i, k in enumerate(self.keyframes)}

    # Made when first asked for: the timeline does not show faces or subtitle cues.
    @cached_property
    def face_samples(self) -> tuple[list[float], list[list[FaceDetection]]]:
        """The faces grouped by the time they were sampled at, in time order."""
        return _by_time(self.analysis.faces)

    @cached_property
    def object_samples(self) -> tuple[list[float], list[list[ObjectDetection]]]:
        """The detections of the object tracks (``track`` != -1), grouped the same way."""
        return _by_time(d for d in self.analysis.objects if d.track != -1)

    @cached_property
    def cues(self) -> tuple[list[Cue], list[float]]:
        """What is said, as the exported subtitles have it, and when each cue starts."""
        cues = speech_cues(self.analysis)
        return cues, [c.start for c in cues]

    def frame_at(self, seconds: float) -> int:
        """The frame on screen at ``seconds``."""
        return frame_at(seconds, self.fps, self.frame_count)

    def snap(self, seconds: float) -> float:
        """The time of the frame starting nearest to ``seconds`` (a dragged boundary lands there)."""
        return nearest_frame(seconds, self.fps, self.frame_count) / self.fps

    # What is on screen at one moment. ``slack`` is half a frame: a record at the shown
    # frame counts even if its time and the frame's timestamp differ by rounding.

    def caption_at(self, t: float, slack: float) -> FrameCaption | None:
        """The latest caption up to ``t``, unless it describes a previous shot."""
        i = int(np.searchsorted(self.caption_starts, t + slack, side="right")) - 1
        if i < 0 or self._cut_between(self.captions[i].time, t, slack):
            return None
        return self.captions[i]

    def boundary_at(self, t: float, slack: float, lasting: float) -> Boundary | None:
        """The latest boundary up to ``t`` if it was less than ``lasting`` seconds before."""
        i = int(np.searchsorted(self.boundary_times, t + slack, side="right")) - 1
        if i >= 0 and t - self.boundaries[i].time < lasting - slack:
            return self.boundaries[i]
        return None

    def faces_at(self, t: float, slack: float, hold: float) -> list[FaceDetection]:
        """The faces of the latest sample up to ``t``, unless more than ``hold`` seconds old
        or from a previous shot."""
        times, groups = self.face_samples
        i = bisect.bisect_right(times, t + slack) - 1
        if i < 0 or t - times[i] > hold + slack:
            return []
        return [] if self._cut_between(times[i], t, slack) else groups[i]

    def objects_at(self, t: float, slack: float, hold: float) -> list[ObjectDetection]:
        """The object detections of the latest sample up to ``t``, for ``hold`` seconds
        after it (the next sample takes over at ``hold``) and not past a cut."""
        times, groups = self.object_samples
        i = bisect.bisect_right(times, t + slack) - 1
        if i < 0 or t - times[i] >= hold - slack:
            return []
        return [] if self._cut_between(times[i], t, slack) else groups[i]

    def cue_at(self, t: float, slack: float) -> Cue | None:
        cues, starts = self.cues
        i = bisect.bisect_right(starts, t + slack) - 1
        return cues[i] if i >= 0 and t < cues[i].end + slack else None

    def notes_at(self, t: float, slack: float, linger: float) -> list[Note]:
        """The notes that apply at ``t``: a range over it, a note at one frame for
        ``linger`` seconds after it."""
        return [n for n in self.notes
                if n.time - slack <= t <= (n.end_time + slack if n.is_range else n.time + linger)]

    def drawings_on(self, frame: int) -> tuple[Shape, ...]:
        """The shapes the notes on ``frame`` draw."""
        return tuple(shape for n in self.notes if n.frame == frame for shape in n.drawing)

    def _cut_between(self, sampled: float, t: float, slack: float) -> bool:
        j = bisect.bisect_right(self.shot_changes, sampled + slack)
        return j < len(self.shot_changes) and self.shot_changes[j] <= t + slack


def _by_time(detections) -> tuple[list[float], list[list]]:
    """Detections grouped by the time they were sampled at, in time order."""
    by_time: dict[float, list] = {}
    for detection in detections:
        by_time.setdefault(detection.time, []).append(detection)
    times = sorted(by_time)
    return times, [by_time[t] for t in times]


def spans(items) -> tuple[np.ndarray, np.ndarray]:
    """Starts of items sorted by start, and the latest end so far at each: items in
    [t0, t1) are those from searchsorted(reach, t0) to searchsorted(starts, t1), even
    when they overlap (lines of text on screen together)."""
    starts = np.array([item.start for item in items], np.float64)
    reach = np.maximum.accumulate(np.array([item.end for item in items], np.float64)) if items else starts
    return starts, reach


def in_range(starts: np.ndarray, reach: np.ndarray, t0: float, t1: float) -> range:
    return range(int(np.searchsorted(reach, t0, side="right")), int(np.searchsorted(starts, t1)))


def covering(starts: np.ndarray, reach: np.ndarray, items, t: float) -> list[int]:
    """The indices of the items (sorted as for ``spans``) under time ``t``."""
    return [i for i in in_range(starts, reach, t, t + 1e-9) if items[i].end >= t]


def nearest(times: np.ndarray, t: float, reach: float) -> int | None:
    """Index of the time nearest to ``t`` if within ``reach``."""
    if not len(times):
        return None
    i = int(np.searchsorted(times, t))
    candidates = [j for j in (i - 1, i) if 0 <= j < len(times)]
    best = min(candidates, key=lambda j: abs(times[j] - t))
    return best if abs(times[best] - t) <= reach else None


def neighbour_time(times: list[float], here: float, fps: float, direction: int) -> float | None:
    """The time after (``direction`` > 0) or before ``here`` among ``times``, skipping the
    frame shown; None when there is none. By time, not frame index: in a variable-frame-rate
    file the two do not map by the mean fps."""
    times, half_frame = sorted(times), 0.5 / fps
    if direction > 0:
        i = bisect.bisect_right(times, here + half_frame)
        return times[i] if i < len(times) else None
    i = bisect.bisect_left(times, here - half_frame)
    return times[i - 1] if i > 0 else None
