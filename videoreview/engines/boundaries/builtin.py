"""The builtin boundary engine: one decoding pass, one list of Boundary records.

Per batch of decoded frames (small: the long side is ``decode_long_side`` pixels):
  * every frame is shrunk to 48x27 for TransNetV2 (cuts and gradual transitions), the
    motion-energy signal of the events and the motion blur of whip pans (whip.py). On a
    GPU TransNetV2 sees every frame; on the CPU a cascade (cascade.py) takes the clear cuts
    from a cheap score and runs TransNetV2, still on every frame, only on the windows
    around the other candidates (93-100 % of the windows skipped on the benchmark clips),
    and on every 2nd frame where it sees a dissolve;
  * frames at ``sample_rate`` per second go to EfficientNet-Lite0 for appearance
    features, unless a transition is near enough that no event can be scored there
    (sampled.py).
At the end, transitions come from TransNetV2's probabilities and the clear cuts (whip
pans become events), and events from the novelty of features and motion inside each
shot. Nothing but small per-frame numbers and the sampled features is kept, so memory
does not grow with the length of the video beyond those (a 20-minute video at 5
samples/s: 6000 x 1280 float32 = 31 MB).
"""

from __future__ import annotations

import numpy as np

from ...media import scaled_size
from ...records import Boundary
from ..base import ProgressFn, no_progress
from ..loading import loads_once

GPU_WINDOW = 200  # frames a TransNetV2 window holds on a GPU (150 kept: less overlap to compute)


class BuiltinBoundaryEngine:
    name = "builtin"
    # Bump when anything that changes the output changes: it is part of the cache key.
    # 8: held frames, bursts of motion and pulses are no candidates (cascade.py); the half-rate
    # stream gets every 2nd frame of the video (it had been counted in the full-rate rows given out).
    # 9: a clear cut within 2 frames of the one before is the same cut
    version = "9"

    def __init__(self, device: str = "cpu", sample_rate: float = 5.0, decode_long_side: int = 160,
                 batch: int = 60, threshold: float = 0.5, cascade: bool | None = None):
        self.asked = device  # where the models should run; ``device`` says where they do
        self.sample_rate = sample_rate
        self.decode_long_side = decode_long_side
        self.batch = batch
        self.threshold = threshold  # TransNetV2's own
        self.cascade = cascade  # None: on the CPU only
        self._transnet = None
        self._small = None  # on the CPU, TransNetV2 for the cascade's short windows (sparse.py)
        self._features = None

    @property
    def device(self) -> str:
        return self._transnet.place.device if self._transnet is not None else self.asked

    @property
    def device_note(self) -> str | None:
        if self._transnet is None:
            return None
        return self._transnet.place.note or self._features.device_note

    def load(self) -> None:
        """Load now what the pass needs from its first frame (pipeline/warm.py): the Lite0
        features, and on CUDA TransNetV2; the CPU's TransNetV2 windows still load when the
        cascade first asks for one."""
        self._models()

    @loads_once  # the background load and the reader may ask at once
    def _models(self):
        """TransNetV2, its short windows' model, and the Lite0 features. TransNetV2 runs in
        torch on CUDA (windows of 200 in batches), else on ONNX Runtime on the CPU behind
        the cascade (windows of 100 and of 64, each loaded when the cascade first asks for
        one: a still clip loads neither); where CUDA fails, the CPU's."""
        if self._transnet is None:
            from ..placement import OnDevice, torch_placement
            from .features import shared_extractor
            from .sparse import SMALL
            from .transnet import WINDOW, OnnxTransNet, TorchTransNet, load_transnet

            place = torch_placement(self.asked)
            window = GPU_WINDOW if place.cuda else WINDOW  # the reader's windows; kept when CUDA fails mid-run

            def on_cpu():
                return OnnxTransNet("cpu", window)

            gpu = TorchTransNet(load_transnet(place.device)) if place.cuda else None
            self._transnet = OnDevice(gpu or OnFirstCall(on_cpu), on_cpu, place)
            self._small = OnFirstCall(lambda: OnnxTransNet("cpu", SMALL))
            self._features = shared_extractor(place.device)
        return self._transnet, self._small, self._features

    def release(self) -> None:
        self._transnet = self._small = self._features = None

    def detect(self, source, progress: ProgressFn = no_progress, cancel=None) -> list[Boundary]:
        from ...media.shared_pass import read_alone

        return read_alone(source, self.reader(source), progress, cancel)

    def reader(self, source) -> BoundaryReader:
        """What ``detect`` does, as a reader for a decoding pass shared with other stages."""
        return BoundaryReader(self, source)


class OnFirstCall:
    """A model made when it is first called."""

    def __init__(self, make) -> None:
        self._make, self._model = make, None

    def __call__(self, *args):
        if self._model is None:
            self._model = self._make()
        return self._model(*args)


class BoundaryReader:
    """Every frame at the engine's decode size, batch by batch (media/shared_pass.py);
    ``result()`` gives the Boundary records."""

    def __init__(self, engine: BuiltinBoundaryEngine, source) -> None:
        # torch-free models and scipy load here, when a video is analysed: not when its
        # boundaries come from the cache, nor when a process only needs the engine's name.
        from .cascade import Cascade
        from .events import EventDetector, MotionEnergy
        from .sampled import SampledFeatures
        from .sparse import SparseTransNet
        from .transnet import WINDOW, TransNetStream

        self.engine = engine
        transnet, small, self.extract = engine._models()
        info = source.info
        self.indices = np.arange(info.frame_count, dtype=np.int64)
        self.size = scaled_size(info.width, info.height, engine.decode_long_side)
        self.batch = engine.batch
        self.total = max(1, info.frame_count)
        on_gpu = engine.device != "cpu"
        self.wanted = np.zeros(self.total, bool)
        self.wanted[source.sample_indices(engine.sample_rate)] = True
        use_cascade = engine.cascade if engine.cascade is not None else not on_gpu
        self.cascade = Cascade() if use_cascade else None
        # A GPU takes many windows of 200 at once; on the CPU behind the cascade, windows
        # of its own for each group of candidates (sparse.py).
        if self.cascade is not None and not on_gpu:
            self.stream = SparseTransNet(small, transnet)
        else:
            self.stream = TransNetStream(transnet, batch_windows=16 if on_gpu else 1,
                                         window=GPU_WINDOW if on_gpu else WINDOW)
        # Where the cascade sees a dissolve, TransNetV2 also looks at every 2nd frame: a
        # dissolve of 1.5-2 s then lasts what the dissolves it was trained on last (at full
        # rate it missed two of tests/hard_shots.py's three slow dissolves, at half rate none).
        self.half = TransNetStream(transnet) if self.cascade is not None else None
        self.motion = MotionEnergy()
        self.probs, self.half_probs, self.motion_values, self.frame_times = [], [], [], []
        self.blur = []  # per frame: whip.anisotropy
        self.samples = SampledFeatures(self.extract, EventDetector().cut_guard)
        self._recent = (0, np.zeros(0))  # (index of the first, times) of the latest frames
        self._cascaded = 0  # frames the cascade has given out
        self._clear_seen = 0  # clear cuts already told to self.samples (or passed over)

    def status(self) -> str:
        return ""  # the pass says "frame N/TOTAL"

    def take(self, batch) -> None:
        from .events import to_grey
        from .transnet import resize_frames
        from .whip import anisotropy

        small = resize_frames(batch.frames)
        first, times = self._recent
        self._recent = (first, np.concatenate([times, batch.times]))
        self._push(self.cascade.push(small) if self.cascade is not None else small)
        grey = to_grey(small)  # once, for the motion energy and the whip pans
        self.motion_values.append(self.motion.push(grey))
        self.blur.append(anisotropy(grey))
        self.frame_times.append(batch.times)
        pick = self.wanted[np.minimum(batch.indices, self.total - 1)]
        if pick.any():
            self.samples.add(batch.indices[pick], batch.times[pick], batch.frames[pick])
        self._settle()

    def _push(self, frames) -> None:
        """TransNetV2's rows for what the streams finalise (``frames``: the cascade's
        ``Marked`` or plain frames); the transition frames go to the sampled features."""
        start = self.stream.emitted
        if self.cascade is None:
            rows = self.stream.push(frames)
        else:
            rows = self.stream.push(frames.frames, frames.marks)
            # every 2nd frame of the video: counted in the cascade's frames (the stream's rows lag behind them)
            even = (self._cascaded + np.arange(len(frames.frames))) % 2 == 0
            self._cascaded += len(frames.frames)
            self.half_probs.append(self.half.push(frames.frames[even], frames.dissolves[even]))
        self.probs.append(rows)
        inside = start + np.flatnonzero(rows[:, 0] > self.engine.threshold)
        self.samples.transitions_at(self._time_of(inside))

    def _settle(self, final: bool = False) -> None:
        """Tell the sampled features where the clear cuts that will stand are, and up to
        when every transition is known."""
        from .transnet import SLACK

        reach = SLACK + 24  # frames from a clear cut to a window that could overrule it
        known = self.stream.emitted if final else self.stream.emitted - reach
        cuts = self.cascade.clear_cuts if self.cascade is not None else []
        covered = None  # joined only when a clear cut is there to decide
        while self._clear_seen < len(cuts) and cuts[self._clear_seen].frame < known:
            f = cuts[self._clear_seen].frame
            if covered is None:
                covered = np.concatenate(self.stream.covered)
            if not covered[max(0, f - reach):f + reach + 1].any():  # no window near: it stands
                self.samples.transitions_at(self._time_of(np.array([f - 1, f])))
            self._clear_seen += 1
        if final:
            self.samples.settle(None)
        elif known > 0:
            self.samples.settle(float(self._time_of(np.array([known - 1]))[0]))
        # keep the times of the frames from the stream's frontier on
        first, times = self._recent
        drop = max(0, min(known, self.stream.emitted) - reach - 1 - first)
        self._recent = (first + drop, times[drop:])

    def _time_of(self, frames: np.ndarray) -> np.ndarray:
        first, times = self._recent
        return times[frames - first]

    def result(self) -> list[Boundary]:
        from .events import EventDetector, bin_to_samples, transition_spans
        from .transnet import transitions_from_probs
        from .whip import is_whip

        engine = self.engine
        if self.cascade is not None:
            self._push(self.cascade.finish())
            self.half_probs.append(self.half.finish())
        start = self.stream.emitted
        rows = self.stream.finish()
        self.probs.append(rows)
        self.samples.transitions_at(self._time_of(start + np.flatnonzero(rows[:, 0] > engine.threshold)))
        self._settle(final=True)
        if not self.frame_times:
            return []
        times = np.concatenate(self.frame_times)
        transitions = transitions_from_probs(np.concatenate(self.probs), times, threshold=engine.threshold)
        if self.cascade is not None:
            transitions = with_clear_cuts(transitions, self.cascade.clear_cuts, np.concatenate(self.stream.covered),
                                          times)
            transitions = with_half_rate_dissolves(transitions, np.concatenate(self.half_probs), times)
        # A whip pan is no cut but the view changing within the shot: an event.
        blur = np.concatenate(self.blur)
        whips = [tr for tr in transitions if is_whip(blur, tr.frame)]
        boundaries = [
            Boundary(time=round(float(times[tr.frame]), 6), frame=tr.frame, kind="event" if tr in whips else tr.kind,
                     confidence=round(tr.peak, 4), engine=engine.name)
            for tr in transitions
        ]
        sampled = self.samples.result()
        if sampled is not None:
            s_frames, s_times, features = sampled
            s_motion = bin_to_samples(times, np.concatenate(self.motion_values), s_times)
            # (whips stay in the spans: no second event next to theirs, and the features near them were skipped)
            peaks = EventDetector().detect(s_times, features, s_motion, transition_spans(transitions, times))
            for peak in peaks:
                frame = int(s_frames[peak.index])  # the first sample after the change
                boundaries.append(Boundary(time=round(float(times[frame]), 6), frame=frame, kind="event",
                                           confidence=round(peak.confidence, 4), engine=engine.name))
        return sorted(boundaries, key=lambda b: b.time)


def with_clear_cuts(transitions: list, clear_cuts: list, covered: np.ndarray, times: np.ndarray) -> list:
    """TransNetV2's transitions and the cascade's clear cuts that it did not look at.

    Where a window of TransNetV2 covered a clear cut (and a few frames around it), its
    verdict stands, cut or no cut; elsewhere the clear cut is taken as it is."""
    from .transnet import SLACK, Transition

    out = list(transitions)
    for cut in clear_cuts:
        f = cut.frame
        if any(tr.start - 2 <= f <= max(tr.end, tr.frame) + 2 for tr in transitions):
            continue
        if covered[max(0, f - SLACK):f + SLACK + 1].all():
            continue
        out.append(Transition(f - 1, f - 1, f, float(times[f]), cut.confidence, "cut"))
    return sorted(out, key=lambda tr: tr.frame)


def with_half_rate_dissolves(transitions: list, half_probs: np.ndarray, times: np.ndarray,
                             threshold: float = 0.3) -> list:
    """The gradual transitions TransNetV2 finds in every 2nd frame (``half_probs``, rows
    for frames 0, 2, 4, ...) that overlap none already found, in full-rate frames.
    Threshold 0.3: its peaks are lower at half rate (against its full-rate cuts on a 212 s
    music video, 0.5 / 0.3 / 0.2 kept 69 / 88 / 97 %)."""
    from .transnet import Transition, transitions_from_probs

    out = list(transitions)
    last = len(times) - 1
    for tr in transitions_from_probs(half_probs, times[::2][:len(half_probs)], threshold=threshold):
        if tr.kind != "gradual":
            continue
        start, end, frame = 2 * tr.start, min(2 * tr.end + 1, last), min(2 * tr.frame, last)
        if any(o.start <= end and max(o.end, o.frame) >= start for o in transitions):
            continue
        out.append(Transition(start, end, frame, float(times[frame]), tr.peak, "gradual"))
    return sorted(out, key=lambda tr: tr.frame)
