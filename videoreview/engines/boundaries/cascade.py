"""Where TransNetV2 has to look: a cheap per-frame score in front of it (the CPU's cascade).

TransNetV2 costs ~3.5 ms a frame on 2 CPU cores; the scores here cost a few microseconds
on the same 48x27 frames. Per frame ``t``:

  * ``content``: the mean absolute difference of the HSV frames t-1 and t (PySceneDetect's
    ContentDetector score, at 48x27), against the content level around it (frames
    t-12..t-2 and t+2..t+12, AdaptiveDetector's idea): a cut is a spike, fast motion a
    plateau. The level is the median of both sides together (``ratio``) or the larger of
    the two sides' medians (motion that stops is no spike above the side that moved);
  * ``linearity`` over t-K..t+K (K = 8): how far the frames t-K and t+K are apart (RGB
    mean absolute difference, ``span``) against how far frame t is from their average. A
    dissolve blends the two shots, so its middle frame is their average and the ratio is
    large (3.8-4.1 measured); motion, shake and pans gave at most 3.05 on real footage.

Each frame is then one of:
  * a **clear cut**: content >= 30 levels, ratio >= 3, both neighbours' content at most a
    third of it (one isolated spike), and every frame of the 4 before it unlike every
    frame of the 4 from it on (a flash, a glitch or a head passing the lens comes back).
    Taken without TransNetV2 unless a window TransNetV2 runs anyway covers it: then
    TransNetV2 decides. A second one within 2 frames is the same cut (a frame held or
    smeared between: a 3D render's cut in the tuning part). Where the layout (below)
    changed by less than 3 grey levels it is a pulse, not even a candidate: a low-bitrate
    dark clip's keyframes made seven such "cuts" where nothing changed (0.6-2.4 levels; the
    154 true clear cuts of the corpus's tuning part: 6 or more);
  * a **candidate**: content >= 8 and either 2.5 times the larger side's level or 1.8 times
    both neighbours' content (a cut in fast motion), or span >= 15 with linearity >= 3 (a
    dissolve); not within 2 frames of a clear cut. A spike across which neither the colours
    (hue-saturation histograms of the 4 frames before and the 4 from it on, L1 < 0.3) nor
    the layout (those frames' mean 6x4 grey thumbnails, < 8 levels apart) changed is motion
    in one shot, not a candidate: on the real-footage corpus's tuning part this dropped 57
    of the 184 spikes that were no cut and none of the 57 that were. Nor is a spike:
      - after held frames (content < 0.5: the picture repeated, as in a render padded to
        the video's rate or a cartoon on twos). The levels and the neighbours skip them:
        the catch-up after a held frame is motion, not a spike above calm;
      - whose both neighbours (held frames skipped) have 60 % of its content or more: a
        burst of motion (a cartoon's camera move), unless a picture within 4 frames is
        black (a fade from or to black) or a clear cut is within 4 frames (the burst may
        be what made its score): TransNetV2 judges those;
      - whose layout changed by less than 3 grey levels (the clear cuts' pulse).
    On the tuning part these left 73 of the 111 TransNetV2 windows (a cartoon: 30 to 7, a
    3D render: 12 to 3); every one of the 40 groups of candidates where TransNetV2 found a
    transition (>= 0.5) kept a window, and every clear cut a window had judged still has
    one. TransNetV2 runs, at full rate, on the windows around candidates;
  * nothing: no window needed.

Calibrated against TransNetV2 run on every frame of real footage (scripts/fetch-real-clips)
and generated clips (bench_boundaries.py's two, tests/hard_shots.py, cuts and dissolves):
benchmarks/bench_cascade.py prints, per clip, the recall against it and the windows
skipped; docs/benchmarks.md has the figures.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

K = 8  # frames on each side of the linearity measure
NEAR = (2, 12)  # the frames t-12..t-2 and t+2..t+12 give the local content level
LAG = NEAR[1]  # a frame's class is final this many frames after it arrives
RETURN = 4  # frames on each side of a clear cut that must all differ across it


@dataclass(frozen=True)
class Thresholds:
    clear_content: float = 30.0
    clear_ratio: float = 3.0
    isolation: float = 3.0  # a clear cut's neighbours have at most 1/isolation of its content
    candidate_content: float = 8.0
    candidate_ratio: float = 2.5
    candidate_peak: float = 1.8  # or this many times both neighbours' content (a cut in fast motion)
    dissolve_span: float = 15.0
    dissolve_linearity: float = 3.0
    same_colours: float = 0.3  # a spike with less histogram change than this ...
    same_layout: float = 8.0  # ... and less thumbnail change than this is motion
    pulse_layout: float = 3.0  # a spike with less thumbnail change than this is no cut, nor a candidate
    held: float = 0.5  # content below this: a held frame (the picture repeated), which the spike test skips
    plateau: float = 0.6  # a spike whose both neighbours have this share of its content is motion ...
    dark: float = 20.0  # ... unless a picture near it is black (mean grey below this): a fade, TransNetV2's


@dataclass(frozen=True)
class ClearCut:
    frame: int  # the first frame of the new shot
    content: float
    ratio: float

    @property
    def confidence(self) -> float:
        """In (0.75, 1): 0.75 at the threshold ratio (3), 0.9 at 9."""
        return self.ratio / (self.ratio + 1.0)


def hsv(frames: np.ndarray) -> np.ndarray:
    """uint8 RGB [n, h, w, 3] -> int16 HSV (OpenCV's ranges), in one call for the batch."""
    import cv2

    n, h, w, _ = frames.shape
    tall = np.ascontiguousarray(frames).reshape(n * h, w, 3)
    return cv2.cvtColor(tall, cv2.COLOR_RGB2HSV).reshape(n, h, w, 3).astype(np.int16)


class Marked(NamedTuple):
    """Frames whose class is final, in order, with a bool each: a spike or a dissolve."""

    frames: np.ndarray
    spikes: np.ndarray
    dissolves: np.ndarray

    @property
    def marks(self) -> np.ndarray:
        """Where TransNetV2 should look."""
        return self.spikes | self.dissolves


class Cascade:
    """Streams of small frames in, per-frame marks out.

    ``push(frames)`` takes uint8 RGB [n, 27, 48, 3] and returns ``Marked`` for the frames
    whose class became final (``LAG`` frames behind, plus ``K`` for the linearity).
    ``finish()`` returns the rest. ``clear_cuts`` fills as frames become final."""

    def __init__(self, thresholds: Thresholds = Thresholds()) -> None:
        self.t = thresholds
        self.clear_cuts: list[ClearCut] = []
        self.candidates = 0  # frames marked
        self._frames = np.zeros((0, 27, 48, 3), np.uint8)  # frames not yet final, with context
        self._hsv = np.zeros((0, 27, 48, 3), np.int16)
        self._first = 0  # frame index of self._frames[0]
        self._final = 0  # frames given out so far
        self._seen = 0
        self._content = np.zeros(0)  # per frame from self._first on

    def push(self, frames: np.ndarray) -> Marked:
        if len(frames) == 0:
            return Marked(frames, np.zeros(0, bool), np.zeros(0, bool))
        h = hsv(frames)
        prev = self._hsv[-1:] if len(self._hsv) else h[:1]
        content = np.abs(np.diff(np.concatenate([prev, h]), axis=0)).mean(axis=(1, 2, 3))
        if self._seen == 0:
            content[0] = 0.0
        self._frames = np.concatenate([self._frames, frames])
        self._hsv = np.concatenate([self._hsv, h])
        self._content = np.concatenate([self._content, content])
        self._seen += len(frames)
        return self._emit(self._seen - LAG - K)

    def finish(self) -> Marked:
        return self._emit(self._seen)

    def _emit(self, upto: int) -> Marked:
        """Classify frames [self._final, upto) and drop what later frames no longer need."""
        if upto <= self._final:
            return Marked(self._frames[:0], np.zeros(0, bool), np.zeros(0, bool))
        lo, hi = self._final - self._first, upto - self._first  # positions in the buffers
        spikes, dissolves = self._classify(lo, hi)
        out = self._frames[lo:hi]
        self._final = upto
        keep = max(0, hi - NEAR[1] - 3)  # the context the next frames look back at (>= K)
        self._frames, self._hsv = self._frames[keep:], self._hsv[keep:]
        self._content = self._content[keep:]
        self._first += keep
        return Marked(out, spikes, dissolves)

    def _classify(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        """Spikes and dissolves among buffer positions [lo, hi); the clear cuts found there
        go to ``clear_cuts``. Frames within 2 of a clear cut are explained by it (x264 often
        smears a cut over two frames), and a burst of motion within RETURN of one stays a
        candidate, so the scores are taken RETURN frames beyond [lo, hi)."""
        t, c = self.t, self._content
        wide = np.arange(max(0, lo - RETURN), min(len(c), hi + RETURN))
        here = c[wide]
        both, sides = _levels(c, wide)
        ratio = here / (both + 2.0)
        before = np.where(wide > 0, c[np.maximum(wide - 1, 0)], 0.0)
        after = np.where(wide + 1 < len(c), c[np.minimum(wide + 1, len(c) - 1)], 0.0)
        clear = ((here >= t.clear_content) & (ratio >= t.clear_ratio)
                 & (before * t.isolation <= here) & (after * t.isolation <= here))
        pulse = np.zeros(len(wide), bool)  # a clear cut by its score where the layout stayed: nothing
        for k in np.flatnonzero(clear):
            p = int(wide[k])
            pulse[k] = self._layout_change(p) < t.pulse_layout
            clear[k] = not pulse[k] and not self._comes_back(p)
        near, beside = np.zeros(len(wide), bool), np.zeros(len(wide), bool)
        inner = (wide >= lo) & (wide < hi)
        for k in np.flatnonzero(clear):
            near[max(0, k - 2):k + 3] = True
            beside[max(0, k - RETURN):k + RETURN + 1] = True
            frame = int(self._first + wide[k])
            if inner[k] and not (self.clear_cuts and frame - self.clear_cuts[-1].frame <= 2):  # else the same cut
                self.clear_cuts.append(ClearCut(frame, float(here[k]), float(ratio[k])))
        spike = (here >= t.candidate_content) & ~pulse & self._spikes(wide, beside)
        span, linearity = _linearity(self._frames, wide[inner])
        dissolve = (span >= t.dissolve_span) & (linearity >= t.dissolve_linearity)
        spike, dissolve = spike[inner] & ~near[inner], dissolve & ~near[inner]
        for k in np.flatnonzero(spike):
            spike[k] = self._changes_picture(int(wide[inner][k]))
        self.candidates += int((spike | dissolve).sum())
        return spike, dissolve

    def _spikes(self, wide: np.ndarray, beside: np.ndarray) -> np.ndarray:
        """Per buffer position in ``wide``, whether its content stands out of the motion
        around it (the candidates' test, before the content floor and the picture tests).
        Held frames (content below ``held``: the picture repeated, as where a render of
        fewer frames a second was padded to the video's rate or a cartoon is drawn on twos)
        are no calm: the side levels and the neighbours skip them, so the catch-up after a
        held frame is no spike. A spike with both (moving) neighbours at ``plateau`` of it
        or more is a burst of motion, unless a picture near it is black (a fade). Where
        ``beside`` (a clear cut within RETURN frames), the plain test: the burst may be what
        made the clear cut's score, and TransNetV2's window over it judges both."""
        t, c = self.t, self._content
        here = c[wide]
        _, sides = _levels(np.where(c < t.held, np.nan, c), wide)
        before, after = _moving(c, wide, -1, t.held), _moving(c, wide, 1, t.held)
        grey = self._frames.mean(axis=(1, 2, 3))
        fade = grey[np.clip(wide[:, None] + np.arange(-RETURN, RETURN)[None, :], 0, len(grey) - 1)].min(axis=1) < t.dark
        strict = self._stands_out(here, sides, before, after) & ((np.minimum(before, after) < t.plateau * here) | fade)
        if not beside.any():
            return strict
        _, sides = _levels(c, wide)
        before, after = _moving(c, wide, -1, 0.0), _moving(c, wide, 1, 0.0)  # the frames next to it
        return strict | (beside & self._stands_out(here, sides, before, after))

    def _stands_out(self, here: np.ndarray, sides: np.ndarray, before: np.ndarray, after: np.ndarray) -> np.ndarray:
        """Content ``candidate_ratio`` times the larger side's level, or ``candidate_peak``
        times both neighbours' content."""
        t = self.t
        return (here / (sides + 2.0) >= t.candidate_ratio) | (here >= t.candidate_peak * np.maximum(before, after))

    def _changes_picture(self, p: int) -> bool:
        """Whether the colours or the layout of the RETURN frames from position p on differ
        from those of the RETURN frames before it (see the module's docstring)."""
        layout = self._layout_change(p)
        if layout >= self.t.same_layout:  # always at position 0: nothing before it
            return True
        if layout < self.t.pulse_layout:  # a pulse, as for the clear cuts
            return False
        colours = np.abs(_colours(self._hsv[max(0, p - RETURN):p]) - _colours(self._hsv[p:p + RETURN])).sum()
        return bool(colours >= self.t.same_colours)

    def _layout_change(self, p: int) -> float:
        """How far the mean 6x4 grey thumbnails of the RETURN frames before position p and
        of the RETURN frames from it on are apart, in grey levels."""
        if p == 0:
            return np.inf
        before, after = self._frames[max(0, p - RETURN):p], self._frames[p:p + RETURN]
        return float(np.abs(_layout(before) - _layout(after)).mean())

    def _comes_back(self, p: int) -> bool:
        """Whether a frame of the RETURN frames after position p looks like one of the
        RETURN frames before it: a flash, a glitch or something passing the lens, not a cut."""
        h, limit = self._hsv, self._content[p] / self.t.isolation
        for i in range(max(0, p - RETURN), p):
            for j in range(p, min(len(h), p + RETURN)):
                if (i, j) != (p - 1, p) and np.abs(h[j] - h[i]).mean() < limit:
                    return True
        return False


def _colours(hsv_frames: np.ndarray) -> np.ndarray:
    """The frames' joint hue-saturation histogram, 8x8 bins, summing to 1."""
    hue = hsv_frames[..., 0].ravel() * 8 // 180  # OpenCV's hue is 0..179
    sat = hsv_frames[..., 1].ravel() * 8 // 256
    return np.bincount(hue * 8 + sat, minlength=64) / hue.size


def _layout(frames: np.ndarray) -> np.ndarray:
    """The frames' mean grey picture at 6x4."""
    import cv2

    grey = [cv2.cvtColor(np.ascontiguousarray(f), cv2.COLOR_RGB2GRAY) for f in frames]
    return np.mean([cv2.resize(g, (6, 4), interpolation=cv2.INTER_AREA) for g in grey], axis=0, dtype=np.float64)


def _levels(c: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per idx, the content level around it: the median over idx-12..idx-2 and
    idx+2..idx+12 together (what exists of them), and the larger of the two sides' own
    medians (a cut rises above both sides; motion that stops only above the calm one)."""
    lo_gap, reach = NEAR
    before = idx[:, None] + np.arange(-reach, -lo_gap + 1)[None, :]
    after = idx[:, None] + np.arange(lo_gap, reach + 1)[None, :]

    def values(pos):
        return np.where((pos >= 0) & (pos < len(c)), c[np.clip(pos, 0, len(c) - 1)], np.nan)

    b, a = values(before), values(after)
    with warnings.catch_warnings():  # a side that does not exist (the ends) is NaN: level 0
        warnings.simplefilter("ignore", RuntimeWarning)
        both = np.nanmedian(np.concatenate([b, a], axis=1), axis=1)
        sides = np.fmax(np.nanmedian(b, axis=1), np.nanmedian(a, axis=1))
    return np.nan_to_num(both), np.nan_to_num(sides)


def _moving(c: np.ndarray, idx: np.ndarray, step: int, held: float) -> np.ndarray:
    """Per idx, the content of the nearest frame before it (``step`` -1) or after it (1),
    within NEAR[1] frames, that is no held frame (content >= ``held``); 0 where none is."""
    out = np.zeros(len(idx))
    todo = np.ones(len(idx), bool)
    for k in range(1, NEAR[1] + 1):
        pos = idx + step * k
        ok = (pos >= 0) & (pos < len(c))
        v = np.where(ok, c[np.clip(pos, 0, len(c) - 1)], 0.0)
        hit = todo & ok & (v >= held)
        out[hit] = v[hit]
        todo &= ~hit
    return out


def _linearity(frames: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(span, linearity) per idx; 0 where frames idx-K or idx+K do not exist."""
    span = np.zeros(len(idx))
    linearity = np.zeros(len(idx))
    ok = (idx >= K) & (idx + K < len(frames))
    if ok.any():
        i = idx[ok]
        a, b, m = (frames[j].astype(np.float32) for j in (i - K, i + K, i))
        span[ok] = np.abs(b - a).mean(axis=(1, 2, 3))
        linearity[ok] = span[ok] / (np.abs(m - (a + b) / 2).mean(axis=(1, 2, 3)) + 2.0)
    return span, linearity
