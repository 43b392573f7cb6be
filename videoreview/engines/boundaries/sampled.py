"""The sampled frames' appearance features, computed only where an event can be found.

The event detector (events.py) never scores a sample within ``cut_guard`` seconds of a
transition, so a feature there is wasted work: about 5 samples a cut at 5 a second, 35 %
of the Lite0 work on the benchmark's clip with a cut every 1.5-5 s. Samples wait here
until the transitions around them are known (TransNetV2's rows and the cascade's clear
cuts arrive a few seconds behind the decoder), then only those that can be scored go
through the network. A skipped sample's feature row is zeros, which the detector never
reads: the events come out exactly as with every feature computed.
"""

from __future__ import annotations

import numpy as np


class SampledFeatures:
    def __init__(self, extract, guard: float) -> None:
        self.extract = extract
        self.guard = guard - 1e-6  # strictly inside the detector's guard: never skip a sample it scores
        self.skipped = 0
        self._pending: list[tuple[int, float, np.ndarray]] = []  # (frame, time, picture)
        self._transitions: list[float] = []  # times of frames inside a transition, in order
        self._frames: list[np.ndarray] = []
        self._times: list[np.ndarray] = []
        self._rows: list[np.ndarray | None] = []  # per settled sample: its feature, or None

    def add(self, frames: np.ndarray, times: np.ndarray, pictures: np.ndarray) -> None:
        self._pending += zip(frames.tolist(), times.tolist(), pictures)

    def transitions_at(self, times) -> None:
        """Times of frames that are inside a transition, in time order."""
        self._transitions += list(times)

    def settle(self, known_until: float | None) -> None:
        """Features for the pending samples whose neighbourhood is known: every transition
        before ``known_until`` seconds has been reported (None: all of them)."""
        count = len(self._pending)
        if known_until is not None:
            count = 0
            while count < len(self._pending) and self._pending[count][1] + self.guard < known_until:
                count += 1
        if not count:
            return
        ready, self._pending = self._pending[:count], self._pending[count:]
        cuts = np.asarray(self._transitions)
        keep = [not np.any(np.abs(cuts - t) < self.guard) for _, t, _ in ready]
        features = iter(self.extract(np.stack([p for (_, _, p), k in zip(ready, keep) if k])) if any(keep) else ())
        self._rows += [next(features) if k else None for k in keep]
        self.skipped += keep.count(False)
        self._frames.append(np.array([f for f, _, _ in ready]))
        self._times.append(np.array([t for _, t, _ in ready]))
        # transitions that no pending sample can be near any more
        oldest = self._pending[0][1] if self._pending else np.inf
        self._transitions = [t for t in self._transitions if t >= oldest - self.guard]

    def result(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """(frames, times, features) of every sample, zeros for the skipped; None if none."""
        self.settle(None)
        computed = [r for r in self._rows if r is not None]
        if not self._rows:
            return None
        width = computed[0].shape[-1] if computed else 1
        features = np.zeros((len(self._rows), width), np.float32)
        for i, row in enumerate(self._rows):
            if row is not None:
                features[i] = row
        return np.concatenate(self._frames), np.concatenate(self._times), features
