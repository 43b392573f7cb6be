"""The sampled frames' appearance features, computed only where they can tell something.

Two kinds of sample need no pass of the network:
  * near a transition. The event detector (events.py) never scores a sample within
    ``cut_guard`` seconds of one, so a feature there is wasted work: about 5 samples a cut
    at 5 a second, 35 % of the Lite0 work on the benchmark's clip with a cut every 1.5-5 s.
    Samples wait here until the transitions around them are known (TransNetV2's rows and
    the cascade's clear cuts arrive a few seconds behind the decoder); a skipped sample's
    feature row is zeros, which the detector never reads.
  * a picture that has not changed. Each sample's grey thumbnail (long side ``THUMB``) is
    held against that of the sample whose feature the run uses (its reference); where no
    pixel of it moved by ``SAME`` grey levels or more, the sample takes the reference's
    feature. A still shot then costs one frame of the network, and a still video none: a
    single reference's feature is never read (the detector compares features, and they
    are all the same), so it is not computed.

The captions do not share these features: at the boundaries' 160 px the classifier named
fewer subjects than at the captions' own 224 px (the caption evaluation set,
tests/test_caption_sense.py: 42 of 75 known subjects named, against 45), and computing the
boundaries' at 224 px would cost twice the pixels 5 times a second to save one picture a second.
"""

from __future__ import annotations

import numpy as np

THUMB = 32  # the long side of the thumbnails compared, in pixels (5x5 blocks of a 160x90 frame)
SAME = 6.0  # grey levels: a thumbnail pixel that moved this much is a change


class SampledFeatures:
    def __init__(self, extract, guard: float, same: float | None = SAME) -> None:
        self.extract = extract  # pictures -> features
        self.guard = guard - 1e-6  # strictly inside the detector's guard: never skip a sample it scores
        self.same = same  # None: every sample computed
        self.skipped = self.reused = self.computed = 0  # samples by what they cost
        self._pending: list[tuple[int, float, np.ndarray]] = []  # (frame, time, picture)
        self._transitions: list[float] = []  # times of frames inside a transition, in order
        self._frames: list[np.ndarray] = []
        self._times: list[np.ndarray] = []
        self._rows: list[int | None] = []  # per settled sample: its reference's number, or None (skipped)
        self._refs: list[_Reference] = []
        self._ref: _Reference | None = None  # the latest reference

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
        batch = _Batch()
        for _frame, time, picture in ready:
            if np.any(np.abs(cuts - time) < self.guard):
                self._rows.append(None)
                self.skipped += 1
                continue
            self._rows.append(self._reference(picture, batch).number)
        self._run(batch)
        self._frames.append(np.array([f for f, _, _ in ready]))
        self._times.append(np.array([t for _, t, _ in ready]))
        # transitions that no pending sample can be near any more
        oldest = self._pending[0][1] if self._pending else np.inf
        self._transitions = [t for t in self._transitions if t >= oldest - self.guard]

    def _reference(self, picture: np.ndarray, batch: _Batch) -> _Reference:
        """The reference whose feature this sample takes: the latest, where the picture
        has not changed since it, else this sample as a new one (the latest's feature is
        then needed: other features will be compared with it)."""
        thumb = thumbnail(picture)
        ref = self._ref
        if ref is not None and self.same is not None and np.abs(thumb - ref.thumb).max() < self.same:
            self.reused += 1
            return ref
        if ref is not None and ref.feature is None:
            batch.job_for(ref)
        if ref is not None:
            ref.thumb = None  # no later sample takes it: only its feature is kept
        self._ref = _Reference(len(self._refs), thumb, picture)
        self._refs.append(self._ref)
        return self._ref

    def _run(self, batch: _Batch) -> None:
        """The network on the batch's pictures: the references' features."""
        if not batch.pictures:
            return
        features = self.extract(np.stack(batch.pictures))
        self.computed += len(batch.pictures)
        for ref in batch.refs:
            ref.feature = features[ref.job]
            ref.picture = ref.job = None

    def result(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """(frames, times, features) of every sample, zeros for the skipped; None if none."""
        self.settle(None)
        if not self._rows:
            return None
        ref = self._ref
        if ref is not None and ref.feature is None and len(self._refs) > 1:
            batch = _Batch()
            batch.job_for(ref)
            self._run(batch)
        computed = [r.feature for r in self._refs if r.feature is not None]
        width = computed[0].shape[-1] if computed else 1
        constant = np.zeros(width, np.float32)
        constant[0] = 1.0  # a still video's one reference: any unit vector does (never compared with another)
        features = np.zeros((len(self._rows), width), np.float32)
        for i, number in enumerate(self._rows):
            if number is not None:
                feature = self._refs[number].feature
                features[i] = constant if feature is None else feature
        return np.concatenate(self._frames), np.concatenate(self._times), features


def thumbnail(picture: np.ndarray) -> np.ndarray:
    """The picture in grey, its long side THUMB pixels (OpenCV's area filter), as float32."""
    import cv2

    h, w = picture.shape[:2]
    scale = THUMB / max(h, w)
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    grey = cv2.cvtColor(np.ascontiguousarray(picture), cv2.COLOR_RGB2GRAY) if picture.ndim == 3 else picture
    return cv2.resize(grey, size, interpolation=cv2.INTER_AREA).astype(np.float32)


class _Reference:
    """A sample whose feature the later samples with the same picture take."""

    def __init__(self, number: int, thumb: np.ndarray, picture: np.ndarray) -> None:
        self.number, self.thumb, self.picture = number, thumb, picture
        self.feature: np.ndarray | None = None
        self.job: int | None = None  # its place in the batch that computes it


class _Batch:
    """One settle's pictures for the network, and what their results are for."""

    def __init__(self) -> None:
        self.pictures: list[np.ndarray] = []
        self.refs: list[_Reference] = []  # references whose features it computes

    def add(self, picture: np.ndarray) -> int:
        self.pictures.append(picture)
        return len(self.pictures) - 1

    def job_for(self, ref: _Reference) -> int:
        if ref.job is None:
            ref.job = self.add(ref.picture)
            self.refs.append(ref)
        return ref.job
