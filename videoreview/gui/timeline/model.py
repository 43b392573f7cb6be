"""An Analysis as the timeline shows it: items sorted once into numpy arrays, so that a
paint only slices them (searchsorted), and the time <-> frame conversions. No Qt here."""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from ...records import BOUNDARY_KINDS, Analysis, Boundary, Identity, Keyframe, TextSpan, TranscriptSegment
from ...summary.export.subtitles import caption_spans
from ...timecode import frame_at, nearest_frame
from ..labels import identity_label


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


class TimelineModel:
    """An Analysis as sorted arrays, built once per Timeline.set_analysis."""

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

        self.boundaries: list[Boundary] = sorted(analysis.boundaries, key=lambda b: (b.time, b.frame))
        self.b_times = np.array([b.time for b in self.boundaries], np.float64)
        self.b_kinds = np.array([BOUNDARY_KINDS.index(b.kind) for b in self.boundaries], np.int8)
        self.b_edited = np.array([b.edited for b in self.boundaries], bool)
        self.b_index = {b.frame: i for i, b in enumerate(self.boundaries)}

        # A block lasts as long as the caption applies, as a subtitle cue does.
        self.captions, self.c_ends = caption_spans(analysis, self.duration)
        self.c_starts = np.array([c.time for c in self.captions], np.float64)
        self.c_edited = np.array([c.edited for c in self.captions], bool)
        self.c_index = {c.frame: i for i, c in enumerate(self.captions)}

        self.lanes = [Lane.of(identity) for identity in analysis.identities]

        self.segments: list[TranscriptSegment] = sorted(analysis.transcript, key=lambda s: s.start)
        self.s_starts, self.s_reach = spans(self.segments)
        self.s_index = {s.start: i for i, s in enumerate(self.segments)}
        self.texts: list[TextSpan] = sorted(analysis.screen_text, key=lambda s: (s.start, s.box[1]))
        self.t_starts, self.t_reach = spans(self.texts)
        self.t_index = {i: i for i in range(len(self.texts))}  # a span is selected by its place in the list

        # The reviewer's notes (already in time order): a range lasts to the end of its last frame.
        self.notes = list(analysis.notes)
        self.n_starts = np.array([n.time for n in self.notes], np.float64)
        ends = np.array([(n.end_time if n.is_range else n.time) + 1 / self.fps for n in self.notes], np.float64)
        self.n_reach = np.maximum.accumulate(ends) if self.notes else self.n_starts
        self.n_ends = ends
        self.n_index = {n.id: i for i, n in enumerate(self.notes)}

        self.keyframes: list[Keyframe] = sorted(analysis.keyframes, key=lambda k: (k.time, k.frame))
        self.k_times = np.array([k.time for k in self.keyframes], np.float64)
        self.k_index = {k.frame: i for i, k in enumerate(self.keyframes)}

    def frame_at(self, seconds: float) -> int:
        """The frame on screen at ``seconds``."""
        return frame_at(seconds, self.fps, self.frame_count)

    def snap(self, seconds: float) -> float:
        """The time of the frame starting nearest to ``seconds`` (a dragged boundary lands there)."""
        return nearest_frame(seconds, self.fps, self.frame_count) / self.fps


_SECOND_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400)
_SUBDIVISIONS = {1: 4, 2: 4, 5: 5, 10: 10, 15: 3, 30: 6, 60: 6, 120: 4, 300: 5, 600: 10, 900: 3, 1800: 6, 3600: 6,
                 7200: 4, 14400: 4}
LABEL_SPACING_PX = 90


def ruler_steps(pps: float, fps: float) -> tuple[float, float]:
    """(major, minor) tick spacing in seconds: labels at least LABEL_SPACING_PX apart; below
    a second, steps are whole frames and minor ticks mark every frame."""
    frame = 1 / fps
    rate = round(fps)
    if abs(fps - rate) < 0.01:  # steps that divide the second, so each second's labels start at .00
        frame_steps = [n for n in range(1, rate) if rate % n == 0]
    else:
        frame_steps = [n for n in (1, 2, 5, 10) if n < fps]
    for frames in frame_steps:
        if frames * frame * pps >= LABEL_SPACING_PX:
            return frames * frame, frame
    for step in _SECOND_STEPS:
        if step * pps >= LABEL_SPACING_PX:
            minor = step / _SUBDIVISIONS[step]
            if step == 1 and frame * pps >= 5:
                minor = frame
            return float(step), minor
    return float(_SECOND_STEPS[-1]), _SECOND_STEPS[-1] / 4


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


def runs(starts: np.ndarray, widths) -> list[tuple[int, int]]:
    """Merge sorted pixel spans [start, start + width) that touch or overlap into
    (left, right) pairs: one fill per run instead of one per item."""
    if not len(starts):
        return []
    ends = np.maximum.accumulate(starts + widths)
    breaks = np.flatnonzero(starts[1:] > ends[:-1]) + 1
    firsts = np.concatenate(([0], breaks))
    lasts = np.concatenate((breaks - 1, [len(starts) - 1]))
    return list(zip(starts[firsts].tolist(), ends[lasts].tolist()))


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
