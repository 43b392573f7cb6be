"""One EfficientNet-Lite0 pass per sampled frame for the boundaries' event features and the
captions' whole-picture view (engines/boundaries/handover.py), and the sampled features that
skip what tells nothing (engines/boundaries/sampled.py). The ``models`` tests run the real
network through the real readers in a real decoding pass."""

from __future__ import annotations

import numpy as np
import pytest

from videoreview.engines.boundaries import handover
from videoreview.engines.boundaries.sampled import SampledFeatures


class Spy:
    """An extractor-like network: features from the picture's mean colour, and a record of
    every picture it saw."""

    def __init__(self) -> None:
        self.seen: list[np.ndarray] = []

    def features_and_probabilities(self, pictures: np.ndarray):
        self.seen += list(pictures)
        means = pictures.reshape(len(pictures), -1, 3).mean(axis=1).astype(np.float32) + 1
        features = means / np.linalg.norm(means, axis=1, keepdims=True)
        return features, np.repeat(features[:, :1], 10, axis=1)


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
    reference = spy.features_and_probabilities(pictures_of(levels))[0]
    assert np.allclose(features, reference)  # a reused feature is its reference's: the same picture


def test_a_slow_drift_is_measured_against_the_reference_not_the_last_sample():
    spy = Spy()
    samples = SampledFeatures(spy, guard=0.5)
    settle_all(samples, [100 + 2 * i for i in range(20)])  # 2 levels a sample: under SAME each step
    assert 5 <= samples.computed <= 10  # a new reference every 3 samples or so, not one for all


def test_the_captions_get_every_frame_they_want_even_near_a_cut_or_where_reused():
    spy = Spy()
    link = handover.Handover()
    link.producer = link.consumer = True
    frames = np.arange(20) * 5
    link.wanted = frozenset(frames[::5].tolist())  # 1 a second of 5
    samples = SampledFeatures(spy, guard=0.5, handover=link)
    levels = [100] * 20
    settle_all(samples, levels, cut_at=0.4)  # the captions want frame 0 (0.0 s), near the cut
    assert sorted(link.ready) == sorted(link.wanted)
    assert samples.skipped == 5  # the samples within 0.5 s of the cut (0.0-0.8 s)
    # each frame the captions want on its own picture, as they would compute it alone: frame
    # 0 near the cut, and 25, 50 and 75 (25 is also the reference the others reuse)
    assert len(spy.seen) == 4 and samples.reused == 14
    feature, probabilities = link.ready[25]
    assert feature.shape == (3,) and probabilities.shape == (10,)


def test_readers_of_one_pass_join_and_a_later_reader_finds_nobody():
    source = type("Source", (), {})()
    boundaries = handover.join(source, offers=[0, 5, 10])
    captions = handover.join(source, wants=[0, 25])
    assert boundaries is captions and captions.linked
    assert captions.expects(0) and not captions.expects(25)  # 25 is not among the frames offered
    handover.start(boundaries)
    late = handover.join(source, wants=[0])  # made after the pass began: works alone
    assert late is not boundaries and not late.linked and not late.expects(0)


@pytest.fixture(scope="module")
def stages():
    from videoreview.pipeline.stages import build_stages

    return build_stages({"boundaries": "builtin", "captions": "builtin"})


def one_pass(video, stages, order=(0, 1)):
    """The boundary and caption stages' results from one decoding pass, their readers made
    and their results asked for in ``order``; and what each reader ran the network on."""
    from videoreview.media import open_video
    from videoreview.media.shared_pass import read_together

    with open_video(video.path) as source:
        readers = [None, None]
        for k in order:
            readers[k] = stages[k].reader(source)
        results = read_together(source, readers, [lambda *a: None] * 2)
    return results, readers


def alone(video, stage):
    from videoreview.media import open_video

    with open_video(video.path) as source:
        return stage.compute(source, lambda *a: None, None)


def same_samples(shared: dict, own: dict) -> None:
    """The captions' measurements, shared or alone: the same network on the same pixels."""
    from videoreview.pipeline.stages.captions import unpack_feature

    assert [s["frame"] for s in shared["samples"]] == [s["frame"] for s in own["samples"]]
    for a, b in zip(shared["samples"], own["samples"]):
        assert a["labels"] == b["labels"] and a["camera"] == b["camera"]
        assert [n for n, _ in a["whole"]] == [n for n, _ in b["whole"]]
        assert np.allclose([p for _, p in a["whole"]], [p for _, p in b["whole"]], atol=2e-4)
        assert np.allclose(unpack_feature(a["feature"]), unpack_feature(b["feature"]), atol=2e-3)


@pytest.mark.models
def test_a_shared_pass_runs_the_network_once_per_sampled_frame(cuts_video, stages):
    from videoreview.engines.boundaries.handover import shared_size

    (bounds, captions), (b_reader, c_reader) = one_pass(cuts_video, stages)
    samples = b_reader.reader.samples
    link = c_reader.handover
    assert link is b_reader.reader.handover and link.linked and link.finished
    assert link.ready == {}  # every frame handed over was taken
    # Every caption sample was handed over, those near the cuts too (the boundaries skip them).
    assert c_reader.handed == len(captions["samples"]) == 10 and samples.skipped > 0
    assert bounds == alone(cuts_video, stages[0])  # the boundaries are those of a pass alone
    same_samples(captions, alone(cuts_video, stages[1]))
    width, height = shared_size(cuts_video.size[0], cuts_video.size[1])
    assert b_reader.reader.size == (width, height)


@pytest.mark.models
def test_the_captions_go_first_or_finish_first_and_still_get_every_sample(event_video, stages):
    (bounds, captions), _ = one_pass(event_video, stages, order=(1, 0))  # captions' reader made first
    assert bounds == alone(event_video, stages[0])
    same_samples(captions, alone(event_video, stages[1]))

    from videoreview.media import open_video
    from videoreview.media.shared_pass import read_together

    with open_video(event_video.path) as source:  # the captions' result asked for first
        readers = [stages[1].reader(source), stages[0].reader(source)]
        first, second = read_together(source, readers, [lambda *a: None] * 2)
    same_samples(first, captions)
    assert second == bounds
