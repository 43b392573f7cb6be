"""The builtin boundary engine: one decoding pass, three signals, one list of Boundary records.

Per batch of decoded frames (small: the long side is ``decode_long_side`` pixels):
  * every frame, shrunk to 48x27, goes to TransNetV2 (cuts and gradual transitions) and
    to the motion-energy signal;
  * frames at ``sample_rate`` per second go to EfficientNet-Lite0 for appearance features.
At the end, transitions come from TransNetV2's probabilities and events from the
novelty of features and motion inside each shot. Nothing but small per-frame numbers and
the sampled features is kept, so memory does not grow with the length of the video
beyond those (a 20-minute video at 5 samples/s: 6000 x 1280 float32 = 31 MB).
"""

from __future__ import annotations

import numpy as np

from ...records import Boundary
from ..base import ProgressFn, no_progress
from .events import EventDetector, MotionEnergy, bin_to_samples, transition_spans
from .features import FeatureExtractor
from .transnet import TransNetStream, load_transnet, resize_frames, transitions_from_probs


def decode_size(width: int, height: int, long_side: int) -> tuple[int, int]:
    """(width, height) with the long side ``long_side``, aspect kept, even numbers."""
    scale = long_side / max(width, height, 1)
    return max(2, round(width * scale / 2) * 2), max(2, round(height * scale / 2) * 2)


class BuiltinBoundaryEngine:
    name = "builtin"
    # Bump when anything that changes the output changes: it is part of the cache key.
    version = "1"

    def __init__(self, device: str = "cpu", sample_rate: float = 5.0, decode_long_side: int = 224,
                 batch: int = 50, threshold: float = 0.5):
        self.device = device
        self.sample_rate = sample_rate
        self.decode_long_side = decode_long_side
        self.batch = batch
        self.threshold = threshold
        self._transnet = None
        self._features = None

    def _models(self):
        if self._transnet is None:
            self._transnet = load_transnet(self.device)
            self._features = FeatureExtractor(self.device)
        return self._transnet, self._features

    def detect(self, source, progress: ProgressFn = no_progress, cancel=None) -> list[Boundary]:
        transnet, extract = self._models()
        info = source.info
        total = max(1, info.frame_count)
        size = decode_size(info.width, info.height, self.decode_long_side)
        wanted = np.zeros(total, bool)
        wanted[source.sample_indices(self.sample_rate)] = True

        stream = TransNetStream(transnet)
        motion = MotionEnergy()
        probs, motion_values, frame_times = [], [], []
        sample_frames, sample_times, features = [], [], []
        for batch in source.iter_batches(size=size, batch=self.batch):
            if cancel is not None:
                cancel.check()
            small = resize_frames(batch.frames)
            probs.append(stream.push(small))
            motion_values.append(motion.push(small))
            frame_times.append(batch.times)
            pick = wanted[np.minimum(batch.indices, total - 1)]
            if pick.any():
                features.append(extract(batch.frames[pick]))
                sample_frames.append(batch.indices[pick])
                sample_times.append(batch.times[pick])
            progress(min(1.0, (batch.indices[-1] + 1) / total), f"frame {batch.indices[-1] + 1}/{total}")
        probs.append(stream.finish())
        if not frame_times:
            return []

        times = np.concatenate(frame_times)
        transitions = transitions_from_probs(np.concatenate(probs), times, threshold=self.threshold)
        boundaries = [
            Boundary(time=round(tr.time, 6), frame=tr.frame, kind=tr.kind, confidence=round(tr.peak, 4),
                     engine=self.name)
            for tr in transitions
        ]
        if features:
            s_times = np.concatenate(sample_times)
            s_frames = np.concatenate(sample_frames)
            s_motion = bin_to_samples(times, np.concatenate(motion_values), s_times)
            peaks = EventDetector().detect(s_times, np.concatenate(features), s_motion,
                                           transition_spans(transitions, times))
            for peak in peaks:
                frame = int(s_frames[peak.index])  # the first sample after the change
                boundaries.append(Boundary(time=round(float(times[frame]), 6), frame=frame, kind="event",
                                           confidence=round(peak.confidence, 4), engine=self.name))
        return sorted(boundaries, key=lambda b: b.time)
