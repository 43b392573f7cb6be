"""The boundaries' sampled features (engines/boundaries/sampled.py) skip what tells nothing:
a picture that has not changed takes its reference's feature."""

from __future__ import annotations

import numpy as np

from videoreview.engines.boundaries.sampled import SampledFeatures


class Spy:
    """A network: features from the picture's mean colour, and a record of every picture it saw."""

    def __init__(self) -> None:
        self.seen: list[np.ndarray] = []

    def __call__(self, pictures: np.ndarray) -> np.ndarray:
        self.seen += list(pictures)
        means = pictures.reshape(len(pictures), -1, 3).mean(axis=1).astype(np.float32) + 1
        return means / np.linalg.norm(means, axis=1, keepdims=True)


def pictures_of(levels) -> np.ndarray:
    return np.stack([np.full((18, 32, 3), level, np.uint8) for level in levels])


def settle_all(samples: SampledFeatures, levels, cut_at: float | None = None):
    frames = np.arange(len(levels)) * 5
    times = frames / 25.0
    samples.add(frames, times, pictures_of(levels))
    if cut_at is not None:
        samples.transitions_at([cut_at])
    return samples.result()


def test_a_still_picture_costs_one_feature_and_a_still_video_none():
    spy = Spy()
    samples = SampledFeatures(spy, guard=0.5)
    _, _, features = settle_all(samples, [100] * 20)
    assert spy.seen == [] and samples.reused == 19  # one reference, never compared with another
    assert np.allclose(features, features[0]) and np.isclose(np.linalg.norm(features[0]), 1)

    spy = Spy()
    samples = SampledFeatures(spy, guard=0.5)
    levels = [100] * 10 + [180] * 10  # the picture changes once
    _, _, features = settle_all(samples, levels)
    assert len(spy.seen) == 2 and samples.computed == 2 and samples.reused == 18
    reference = spy(pictures_of(levels))
    assert np.allclose(features, reference)  # a reused feature is its reference's: the same picture


def test_a_slow_drift_is_measured_against_the_reference_not_the_last_sample():
    spy = Spy()
    samples = SampledFeatures(spy, guard=0.5)
    settle_all(samples, [100 + 2 * i for i in range(20)])  # 2 levels a sample: under SAME each step
    assert 5 <= samples.computed <= 10  # a new reference every 3 samples or so, not one for all
