"""The builtin boundary engine: one decoding pass, three signals, one list of Boundary records.

Per batch of decoded frames (small: the long side is ``decode_long_side`` pixels):
  * every frame is shrunk to 48x27; those at about 12-15 per second go to TransNetV2
    (cuts and gradual transitions, see ``transnet_stride``), all of them to the
    motion-energy and frame-difference signals;
  * frames at ``sample_rate`` per second go to EfficientNet-Lite0 for appearance features.
At the end, transitions come from TransNetV2's probabilities and events from the
novelty of features and motion inside each shot. Nothing but small per-frame numbers and
the sampled features is kept, so memory does not grow with the length of the video
beyond those (a 20-minute video at 5 samples/s: 6000 x 1280 float32 = 31 MB).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...media import scaled_size
from ...records import Boundary
from ..base import ProgressFn, no_progress


def transnet_stride(fps: float) -> int:
    """Every how many frames TransNetV2 looks at: about 12-15 frames per second.

    TransNetV2 is most of the cost (~1.7 GFLOP per frame, ~125 frames/s on 2 CPU cores),
    so on a CPU it sees every 2nd frame of 25/30 fps video. That costs recall: on a real
    212 s music video it found 88% of the cuts it finds at full rate (threshold 0.3, see
    __init__). A 1 s dissolve is still a dozen frames long; the exact frame of a cut is
    found afterwards from full-rate frame differences (``refine_cut``)."""
    return max(1, int(fps / 12 + 0.01))


def refine_cut(diffs: np.ndarray, after: int, first: int) -> int:
    """The frame in ``(after, first]`` that differs most from the one before it: where a cut
    seen between subsampled frames ``after`` and ``first`` really is."""
    if first - after <= 1:
        return first
    return after + 1 + int(np.argmax(diffs[after + 1:first + 1]))


class BuiltinBoundaryEngine:
    name = "builtin"
    # Bump when anything that changes the output changes: it is part of the cache key.
    version = "3"

    def __init__(self, device: str = "cpu", sample_rate: float = 5.0, decode_long_side: int = 160,
                 batch: int = 60, threshold: float | None = None, window: int = 200, stride: int | None = None):
        self.asked = device  # where the models should run; ``device`` says where they do
        self.sample_rate = sample_rate
        self.decode_long_side = decode_long_side
        self.batch = batch
        # TransNetV2's one_hot peaks are lower when it sees every 2nd frame. Against its own
        # full-rate cuts (threshold 0.5) on a 212 s music video, threshold 0.5 / 0.3 / 0.2 at
        # half rate kept 69% / 88% / 97% of them; on the benchmark's generated clip 0.2 adds
        # false cuts in chaotic shots (F1@0.5 s 0.80 vs 0.85 at 0.3). 0.3 balances the two.
        self.threshold = threshold
        self.window = window
        self.stride = stride  # None: transnet_stride(fps) on a CPU, every frame on a GPU
        self._transnet = None
        self._features = None

    @property
    def device(self) -> str:
        return self._transnet.place.device if self._transnet is not None else self.asked

    @property
    def device_note(self) -> str | None:
        if self._transnet is None:
            return None
        return self._transnet.place.note or self._features.device_note

    def _models(self):
        """TransNetV2 and the Lite0 features: in torch on CUDA (windows in batches), else on
        ONNX Runtime on the CPU; where CUDA fails, the CPU's, with the CPU's stride."""
        if self._transnet is None:
            from ..placement import OnDevice, torch_placement
            from .features import shared_extractor
            from .transnet import OnnxTransNet, TorchTransNet, load_transnet

            place = torch_placement(self.asked)

            def on_cpu():
                return OnnxTransNet("cpu", self.window)

            gpu = TorchTransNet(load_transnet(place.device)) if place.cuda else None
            self._transnet = OnDevice(gpu or on_cpu(), on_cpu, place)
            self._features = shared_extractor(place.device)
        return self._transnet, self._features

    def release(self) -> None:
        self._transnet = self._features = None

    def detect(self, source, progress: ProgressFn = no_progress, cancel=None) -> list[Boundary]:
        from ...media.shared_pass import read_alone

        return read_alone(source, self.reader(source), progress, cancel)

    def reader(self, source) -> BoundaryReader:
        """What ``detect`` does, as a reader for a decoding pass shared with other stages."""
        return BoundaryReader(self, source)

    def _transitions(self, probs: np.ndarray, times: np.ndarray, diffs: np.ndarray, stride: int, threshold: float):
        """TransNetV2 transitions with frame indices of the full-rate video."""
        from .transnet import transitions_from_probs

        seen = np.arange(0, len(times), stride)[: len(probs)]  # frame index of each TransNet row
        out = []
        for tr in transitions_from_probs(probs, times[seen], threshold=threshold):
            start, end = int(seen[tr.start]), int(seen[tr.end])
            if tr.kind == "cut":
                frame = refine_cut(diffs, int(seen[tr.frame - 1]) if tr.frame > 0 else -1, int(seen[tr.frame]))
            else:
                frame = (start + end + 1) // 2
            out.append(replace(tr, start=start, end=end, frame=frame, time=float(times[frame])))
        return out


class BoundaryReader:
    """Every frame at the engine's decode size, batch by batch (media/shared_pass.py);
    ``result()`` gives the Boundary records."""

    def __init__(self, engine: BuiltinBoundaryEngine, source) -> None:
        # torch-free models and scipy load here, when a video is analysed: not when its
        # boundaries come from the cache, nor when a process only needs the engine's name.
        from .events import MotionEnergy
        from .transnet import TransNetStream

        self.engine = engine
        transnet, self.extract = engine._models()
        info = source.info
        self.indices = np.arange(info.frame_count, dtype=np.int64)
        self.size = scaled_size(info.width, info.height, engine.decode_long_side)
        self.batch = engine.batch
        self.total = max(1, info.frame_count)
        on_gpu = engine.device != "cpu"
        self.stride = engine.stride or (1 if on_gpu else transnet_stride(info.fps))
        self.wanted = np.zeros(self.total, bool)
        self.wanted[source.sample_indices(engine.sample_rate)] = True
        # A GPU takes many windows at once; on 2 CPU cores one at a time is fastest (transnet.py).
        self.stream = TransNetStream(transnet, batch_windows=16 if on_gpu else 1, window=engine.window,
                                     skip_still=True)
        self.motion, self.plain_diff = MotionEnergy(), MotionEnergy(denoise=False)
        self.probs, self.motion_values, self.diffs, self.frame_times = [], [], [], []
        self.sample_frames, self.sample_times, self.features = [], [], []

    def take(self, batch) -> None:
        from .transnet import resize_frames

        small = resize_frames(batch.frames)
        self.probs.append(self.stream.push(small[batch.indices % self.stride == 0]))
        self.motion_values.append(self.motion.push(small))
        self.diffs.append(self.plain_diff.push(small))
        self.frame_times.append(batch.times)
        pick = self.wanted[np.minimum(batch.indices, self.total - 1)]
        if pick.any():
            self.features.append(self.extract(batch.frames[pick]))
            self.sample_frames.append(batch.indices[pick])
            self.sample_times.append(batch.times[pick])

    def result(self) -> list[Boundary]:
        from .events import EventDetector, bin_to_samples, transition_spans

        engine = self.engine
        self.probs.append(self.stream.finish())
        if not self.frame_times:
            return []
        times = np.concatenate(self.frame_times)
        threshold = engine.threshold if engine.threshold is not None else (0.5 if self.stride == 1 else 0.3)
        transitions = engine._transitions(np.concatenate(self.probs), times, np.concatenate(self.diffs),
                                          self.stride, threshold)
        boundaries = [
            Boundary(time=round(float(times[tr.frame]), 6), frame=tr.frame, kind=tr.kind,
                     confidence=round(tr.peak, 4), engine=engine.name)
            for tr in transitions
        ]
        if self.features:
            s_times = np.concatenate(self.sample_times)
            s_frames = np.concatenate(self.sample_frames)
            s_motion = bin_to_samples(times, np.concatenate(self.motion_values), s_times)
            peaks = EventDetector().detect(s_times, np.concatenate(self.features), s_motion,
                                           transition_spans(transitions, times))
            for peak in peaks:
                frame = int(s_frames[peak.index])  # the first sample after the change
                boundaries.append(Boundary(time=round(float(times[frame]), 6), frame=frame, kind="event",
                                           confidence=round(peak.confidence, 4), engine=engine.name))
        return sorted(boundaries, key=lambda b: b.time)
