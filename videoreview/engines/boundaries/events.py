"""Generic event boundaries inside a shot, array in / array out (numpy only).

A generic event boundary (Kinetics-GEBD / Kinetic-GEB+) is a moment where the dominant
subject's status changes: a new action, a new subject or object, a colour change, an
object starting or stopping to move. Here it is found *without* a cut: cuts and gradual
transitions come from TransNetV2 and are handled separately.

Signals, all at a fixed sample rate (``sample_times``). 5 per second (every 5th frame at
25 fps, every 6th at 30) is the intended rate: it places a boundary to +-0.1 s, the
finest GEB+ tolerance, gives 5 samples per 1 s window, and costs EfficientNet only
5 frames per second of video; 4-8 per second work with the same defaults (windows and
gaps are in seconds).
  * appearance: L2-normalised EfficientNet-Lite0 features of the frame at each sample;
  * motion energy: mean absolute difference between consecutive small grey frames at the
    full frame rate, above each frame pair's median (its noise level)
    (:class:`MotionEnergy`), averaged per sample (:func:`bin_to_samples`).
    An object starting or stopping changes motion energy sharply even when appearance
    hardly moves.

Per sample index i, for each shot separately (never across a cut):
  * appearance novelty = cosine distance between the mean feature of the ``window``
    seconds before i and the ``window`` seconds from i on (the GEBD "difference of
    neighbouring windows" baseline);
  * motion novelty = |mean log(m + eps) before - mean log(m + eps) after|, i.e. how many
    times busier one side is (geometric means); ``eps`` keeps what is left of the noise
    on a still picture from looking like motion;
  * each is turned into a robust z-score over its shot (lower quartile as baseline,
    scaled MAD clipped to a floor and a cap as spread), the positive parts are summed,
    smoothed with a small Gaussian, and peaks are picked as ``scipy.signal.find_peaks``
    does (height, prominence, a minimum gap; peaks.py).

A sample is only scored when it is at least ``cut_guard`` seconds away from every cut or
gradual transition and both of its windows have enough samples inside the same shot.
Memory is O(n): the features themselves (n x 1280 float32, 30 MB for 20 min at 5/s), a
float64 prefix sum over the longest shot (twice that for a 20 min single shot) and
small per-sample arrays. Frames are never needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .peaks import find_peaks, gaussian_smooth

__all__ = ["EventPeak", "EventDetector", "MotionEnergy", "bin_to_samples", "to_grey", "transition_spans"]


@dataclass(frozen=True)
class EventPeak:
    """One event boundary. The change happened between samples ``index - 1`` and
    ``index``; ``time`` is the midpoint of their times. ``confidence`` is in [0, 1]."""

    time: float
    index: int
    confidence: float
    score: float = 0.0  # the combined robust z-score at the peak (for tuning / display)


class MotionEnergy:
    """How much moved between consecutive frames, fed chunk by chunk.

    ``push(frames)`` takes uint8 [n, h, w, 3] RGB or [n, h, w] grey frames, small ones
    (the 48x27 TransNetV2 input is enough) and returns float32 [n], one value per frame
    in grey levels: the mean over pixels of ``max(|d| - median |d|, 0)`` where d is the
    difference to the previous grey frame. The median is the frame pair's own noise
    level (sensor noise, compression flicker): subtracting it keeps a still noisy shot
    near 0, so a small object that starts moving is a large relative change. It also
    mutes what moves everywhere at once (a camera pan, a fade), which is not a change of
    the subject. With ``denoise=False`` it is the plain mean |d|. The first frame of the
    stream gets 0."""

    def __init__(self, denoise: bool = True) -> None:
        self.denoise = denoise
        self._last: np.ndarray | None = None

    def push(self, frames: np.ndarray) -> np.ndarray:
        frames = np.asarray(frames)
        if frames.ndim == 4:
            grey = to_grey(frames)
        elif frames.ndim == 3:
            grey = frames.astype(np.float32)
        else:
            raise ValueError(f"expected frames [n, h, w, 3] or [n, h, w], got {frames.shape}")
        if len(grey) == 0:
            return np.zeros(0, np.float32)
        prev = grey[:1] if self._last is None else self._last[None]
        self._last = grey[-1]
        d = np.abs(np.diff(np.concatenate([prev, grey]), axis=0)).reshape(len(grey), -1)
        if self.denoise:
            d = np.maximum(d - 3.0 * np.median(d, axis=1, keepdims=True), 0)
        return d.mean(axis=1).astype(np.float32)


def to_grey(frames: np.ndarray) -> np.ndarray:
    """uint8 RGB [n, h, w, 3] -> float32 grey [n, h, w] (ITU-R 601 luma weights)."""
    return frames.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)


def bin_to_samples(frame_times: np.ndarray, values: np.ndarray, sample_times: np.ndarray) -> np.ndarray:
    """Mean of per-frame ``values`` over the frames nearest each sample time.

    Frame j goes to the sample whose time is nearest (bins split halfway between sample
    times). A sample with no frame in its bin gets the nearest frame's value."""
    frame_times = np.asarray(frame_times, np.float64)
    values = np.asarray(values, np.float64)
    sample_times = np.asarray(sample_times, np.float64)
    if len(sample_times) == 0:
        return np.zeros(0, np.float32)
    if len(frame_times) == 0:
        return np.zeros(len(sample_times), np.float32)
    edges = (sample_times[1:] + sample_times[:-1]) / 2
    which = np.searchsorted(edges, frame_times, side="right")
    sums = np.bincount(which, weights=values, minlength=len(sample_times))
    counts = np.bincount(which, minlength=len(sample_times))
    out = np.empty(len(sample_times))
    have = counts > 0
    out[have] = sums[have] / counts[have]
    if not have.all():
        nearest = np.clip(np.searchsorted(frame_times, sample_times[~have]), 0, len(frame_times) - 1)
        out[~have] = values[nearest]
    return out.astype(np.float32)


def transition_spans(transitions, frame_times: np.ndarray) -> list[tuple[float, float]]:
    """(start, end) seconds of each ``transnet.Transition``: a cut spans the last frame of
    the old shot to the first of the new one, a gradual transition its whole run."""
    frame_times = np.asarray(frame_times, np.float64)
    last = len(frame_times) - 1
    spans = []
    for tr in transitions:
        end = max(tr.end, tr.frame) if tr.kind == "cut" else tr.end
        spans.append((float(frame_times[min(tr.start, last)]), float(frame_times[min(end, last)])))
    return spans


class EventDetector:
    """Event boundaries from sampled appearance features and motion energy.

    Parameters (seconds are converted to samples with the median sample spacing). The
    defaults were tuned on synthetic clips (an object entering, stopping, starting to
    move, changing colour, over still and noisy backgrounds) and on moving lavfi test
    shots that should give no events; real footage may want other thresholds.
      window: seconds of context on each side of a candidate (1.0: long enough to average
          out jitter at 4-8 samples/s, short enough for GEB+ boundaries, which are mostly
          1-3 s apart).
      min_side: seconds that must exist on each side inside the shot to score at all
          (0.4: two samples at 5/s).
      min_gap: minimum seconds between two events (1.0, as GEBD evaluation merges closer ones).
      cut_guard: no event within this many seconds of a cut / transition (0.5).
      threshold: minimum combined z-score of a peak (4.0); confidence is 0.5 there.
      prominence: minimum prominence of a peak in z units (1.0: lets a "stop" right after
          an "enter" stand out as its own peak).
      feature_floor, feature_cap: bounds of the appearance-novelty spread (cosine
          distance) used for the z-score (0.02, 0.04). The floor keeps sensor noise and
          a small object drifting about (novelty ~0.01-0.05) below the threshold; the cap
          keeps a short shot full of events from inflating its own MAD and hiding them.
          An object entering a still shot gives ~0.1.
      motion_eps: grey levels added to motion energy before the log ratio (0.02, about
          twice the denoised energy of a still shot with sensor noise).
      motion_floor, motion_cap: bounds of the motion-novelty spread (log ratio) (0.25, 0.35).
      smooth: Gaussian sigma in samples applied to the combined score (1.0).
    """

    def __init__(self, window: float = 1.0, min_side: float = 0.4, min_gap: float = 1.0, cut_guard: float = 0.5,
                 threshold: float = 4.0, prominence: float = 1.0, feature_floor: float = 0.02,
                 feature_cap: float = 0.04, motion_eps: float = 0.02, motion_floor: float = 0.25,
                 motion_cap: float = 0.35, smooth: float = 1.0):
        self.window = window
        self.min_side = min_side
        self.min_gap = min_gap
        self.cut_guard = cut_guard
        self.threshold = threshold
        self.prominence = prominence
        self.feature_floor = feature_floor
        self.feature_cap = feature_cap
        self.motion_eps = motion_eps
        self.motion_floor = motion_floor
        self.motion_cap = motion_cap
        self.smooth = smooth

    # ------------------------------------------------------------------ public

    def detect(self, times: np.ndarray, features: np.ndarray | None, motion: np.ndarray | None,
               transitions: Sequence[tuple[float, float]] = ()) -> list[EventPeak]:
        """Event boundaries, in time order.

        times: float [n] sample times in seconds, increasing, roughly evenly spaced.
        features: float [n, d] L2-normalised appearance features, or None.
        motion: float [n] motion energy per sample (see bin_to_samples), or None.
        transitions: (start, end) seconds of every cut / gradual transition (a hard cut
            may be given as (t, t)); see transition_spans.
        """
        times = np.asarray(times, np.float64)
        n = len(times)
        if features is None and motion is None:
            raise ValueError("need features, motion or both")
        if features is not None and len(features) != n or motion is not None and len(motion) != n:
            raise ValueError("times, features and motion must have the same length")
        if n < 3:
            return []
        score = self.scores(times, features, motion, transitions)
        return self._peaks(times, score)

    def scores(self, times: np.ndarray, features: np.ndarray | None, motion: np.ndarray | None,
               transitions: Sequence[tuple[float, float]] = ()) -> np.ndarray:
        """Combined, smoothed robust z-score per sample (0 where not scored)."""
        times = np.asarray(times, np.float64)
        n = len(times)
        dt = float(np.median(np.diff(times))) if n > 1 else 1.0
        w = max(1, int(round(self.window / dt)))
        side = max(1, int(round(self.min_side / dt)))
        score = np.zeros(n)
        for a, b in self._shots(times, transitions):
            if b - a < 2 * side:
                continue
            parts = []
            if features is not None:
                nov = _feature_novelty(np.asarray(features[a:b]), w)
                parts.append(_robust_z(nov, side, self.feature_floor, self.feature_cap))
            if motion is not None:
                m = np.asarray(motion[a:b], np.float64)
                nov = _motion_novelty(m, w, self.motion_eps)
                parts.append(_robust_z(nov, side, self.motion_floor, self.motion_cap))
            # sum of the positive parts: a change seen in both cues counts more, and a
            # stop right after an entrance still makes its own peak
            z = np.sum(np.maximum(parts, 0), axis=0)
            if self.smooth > 0:
                z = gaussian_smooth(z, self.smooth)
            # not enough context inside the shot; and the first / last scorable sample
            # cannot be a peak (its outer neighbour is unscored, so any slope would do)
            z[:side + 1] = 0
            z[len(z) - side:] = 0
            score[a:b] = np.maximum(z, 0)
        return score

    # ------------------------------------------------------------------ internals

    def _shots(self, times: np.ndarray, transitions: Sequence[tuple[float, float]]) -> list[tuple[int, int]]:
        """[a, b) sample ranges between transitions, each shrunk by cut_guard."""
        usable = np.ones(len(times), bool)
        cuts = np.zeros(len(times), bool)  # True: a transition lies just before this sample
        for start, end in transitions:
            usable &= ~((times >= start - self.cut_guard) & (times <= end + self.cut_guard))
            i = np.searchsorted(times, start, side="left")
            if i < len(times):
                cuts[i] = True
        ranges, a = [], None
        for i in range(len(times)):
            if a is not None and (not usable[i] or cuts[i]):
                ranges.append((a, i))
                a = None
            if usable[i] and a is None:
                a = i
        if a is not None:
            ranges.append((a, len(times)))
        return ranges

    def _peaks(self, times: np.ndarray, score: np.ndarray) -> list[EventPeak]:
        dt = float(np.median(np.diff(times)))
        gap = max(1, int(round(self.min_gap / dt)))
        # pad with zeros so peaks at the ends of the array can be found too
        idx = find_peaks(np.concatenate([[0.0], score, [0.0]]), height=self.threshold,
                         prominence=self.prominence, distance=gap)
        idx = idx - 1
        out = []
        for i in idx:
            i = int(i)
            t = (times[i - 1] + times[i]) / 2 if i > 0 else times[i]
            z = float(score[i])
            # 0.5 at the threshold, ~0.94 at twice the threshold, -> 1 for strong peaks
            conf = 1.0 - 0.5 ** ((z / self.threshold) ** 2)
            out.append(EventPeak(float(t), i, float(conf), z))
        return out


def _feature_novelty(f: np.ndarray, w: int, chunk: int = 512) -> np.ndarray:
    """1 - cos(mean f[i-w:i], mean f[i:i+w]) per i, windows cut at the ends.

    Window sums come from one float64 prefix sum; the [chunk, d] differences are formed
    a chunk at a time so a long shot needs only ~2 x 5 MB of scratch besides it."""
    m = len(f)
    csum = np.zeros((m + 1, f.shape[1]))
    np.cumsum(f, axis=0, dtype=np.float64, out=csum[1:])
    out = np.zeros(m)
    for s in range(0, m, chunk):
        i = np.arange(s, min(s + chunk, m))
        before = csum[i] - csum[np.maximum(i - w, 0)]
        after = csum[np.minimum(i + w, m)] - csum[i]
        den = np.linalg.norm(before, axis=1) * np.linalg.norm(after, axis=1)
        num = np.einsum("ij,ij->i", before, after)
        out[i] = 1.0 - np.divide(num, den, out=np.ones_like(num), where=den > 0)
    return out


def _motion_novelty(m: np.ndarray, w: int, eps: float) -> np.ndarray:
    """|mean log(m + eps) over [i-w, i) - mean log(m + eps) over [i, i+w)| per i.

    Averaging logs (not taking the log of averages) makes a step in motion a triangle
    peaking exactly at the step; one busy sample on a still background would otherwise
    dominate its whole window and give a flat plateau."""
    n = len(m)
    csum = np.concatenate([[0.0], np.cumsum(np.log(np.maximum(m, 0) + eps))])
    i = np.arange(n)
    lo, hi = np.maximum(i - w, 0), np.minimum(i + w, n)
    before = (csum[i] - csum[lo]) / np.maximum(i - lo, 1)
    after = (csum[hi] - csum[i]) / np.maximum(hi - i, 1)
    out = np.abs(before - after)
    out[(i == lo) | (i == hi)] = 0.0  # one side empty
    return out


def _robust_z(x: np.ndarray, side: int, floor: float, cap: float) -> np.ndarray:
    """(x - baseline) / spread over the scorable samples.

    baseline: the lower quartile, i.e. the level of the quiet parts of the shot (the
    median would already sit on the events of a short, eventful shot); spread: 1.4826 *
    MAD clipped to [floor, cap]: the floor keeps a still shot's noise small, the cap
    keeps events from inflating their own yardstick."""
    core = x[side:len(x) - side + 1] if len(x) > 2 * side else x
    med = float(np.median(core))
    mad = 1.4826 * float(np.median(np.abs(core - med)))
    return (x - float(np.quantile(core, 0.25))) / min(max(mad, floor), cap)
