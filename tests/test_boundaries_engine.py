"""The builtin boundary engine on generated videos whose boundaries are known (``models``:
TransNetV2 and EfficientNet-Lite0 run)."""

import numpy as np
import pytest

from videoreview.engines.boundaries.builtin import BuiltinBoundaryEngine
from videoreview.errors import Cancelled
from videoreview.media import open_video
from videoreview.metrics.boundaries import boundary_f1, f1_at
from videoreview.pipeline import CancelToken


@pytest.fixture(scope="module")
def engine():
    return BuiltinBoundaryEngine()


def detect(engine, video, **kwargs):
    with open_video(video.path, **kwargs) as source:
        return engine.detect(source)


def times(boundaries, *kinds):
    return [b.time for b in boundaries if b.kind in kinds]


@pytest.mark.models
def test_hard_cuts_exact_frames(engine, cuts_video):
    found = detect(engine, cuts_video)
    cuts = [b for b in found if b.kind == "cut"]
    assert [b.frame for b in cuts] == list(cuts_video.cut_frames)
    assert f1_at(times(found, "cut"), cuts_video.cut_times, 0.1).f1 == 1.0
    assert all(0.0 < b.confidence <= 1.0 and b.caption is None for b in found)
    # a static-camera clip of moving test patterns has no events worth reporting near cuts
    for b in found:
        if b.kind == "event":
            assert min(abs(b.time - t) for t in cuts_video.cut_times) > 0.5


@pytest.mark.models
def test_both_backends_agree(engine, cuts_video):
    a = detect(engine, cuts_video, backend="decord")
    b = detect(engine, cuts_video, backend="pyav")
    assert times(a, "cut") == times(b, "cut")


@pytest.mark.models
def test_cross_fade_is_one_gradual_transition(engine, crossfade_video):
    found = detect(engine, crossfade_video)
    (start, end), = crossfade_video.gradual
    transitions = [b for b in found if b.kind in ("cut", "gradual")]
    assert len(transitions) == 1, found
    assert transitions[0].kind == "gradual"
    assert abs(transitions[0].time - (start + end) / 2) <= 0.5


@pytest.mark.models
def test_events_without_a_cut(engine, event_video):
    found = detect(engine, event_video)
    assert times(found, "cut", "gradual") == []
    events = times(found, "event")
    truth = [event_video.events[k] for k in ("enter", "stop", "change")]
    scores, _ = boundary_f1(events, truth, (0.5,))
    assert scores[0].recall >= 2 / 3, (events, truth)
    assert scores[0].precision >= 0.5, (events, truth)


@pytest.mark.models
def test_variable_frame_rate_times_are_presentation_times(engine, cuts_video, tmp_path):
    from videos import encode_frames

    # the first 90 frames of the cuts video (a cut at frame 50), re-timed: 1/30 s apart,
    # then 1/10 s apart from frame 45 on, so the cut is at 1.5 + 0.5 = 2.0 s, not 50 / fps
    with open_video(cuts_video.path) as source:
        frames = source.frames_at_indices(range(90)).frames
    dts = [1 / 30] * 45 + [1 / 10] * 44
    t = np.round(np.concatenate([[0.0], np.cumsum(dts)]), 4)
    path = tmp_path / "vfr_cut.mkv"
    encode_frames(path, list(frames), 30, times=t)
    with open_video(path) as source:
        assert source.info.variable_frame_rate
        found = engine.detect(source)
    cuts = [x for x in found if x.kind in ("cut", "gradual")]
    assert [c.frame for c in cuts] == [50]
    assert abs(cuts[0].time - 2.0) < 1e-3


@pytest.mark.models
def test_rotated_video_is_analysed_upright(engine, rotated_video):
    with open_video(rotated_video.path) as source:
        assert (source.info.width, source.info.height) == rotated_video.size
        found = engine.detect(source)
    assert all(b.frame < rotated_video.frame_count for b in found)


@pytest.mark.models
def test_cancel_stops_between_batches(engine, cuts_video):
    token = CancelToken()
    calls = []

    def progress(fraction, message):
        calls.append(fraction)
        token.cancel()

    with open_video(cuts_video.path) as source, pytest.raises(Cancelled):
        engine.detect(source, progress, token)
    assert len(calls) == 1


@pytest.mark.models
def test_features_skipped_near_cuts_change_nothing(cuts_video, event_video):
    """The sampled features near a transition are never read by the event detector, so
    skipping them (engines/boundaries/sampled.py) gives exactly the same boundaries."""
    from videoreview.media.shared_pass import read_alone

    skipped = {}
    for video in (cuts_video, event_video):
        results = []
        for guard in (None, -1.0):  # the detector's guard, and none: every feature computed
            with open_video(video.path) as source:
                reader = BuiltinBoundaryEngine().reader(source)
                if guard is not None:
                    reader.samples.guard = guard
                results.append([b.to_dict() for b in read_alone(source, reader, lambda *a: None)])
                skipped[video.path.name, guard] = reader.samples.skipped
        assert results[0] == results[1]
    assert skipped[cuts_video.path.name, None] >= 3 * len(cuts_video.cut_frames)
    assert skipped[cuts_video.path.name, -1.0] == 0


@pytest.fixture(scope="module")
def hard_shots(tmp_path_factory):
    from hard_shots import HARD_SHOTS

    folder = tmp_path_factory.mktemp("hard shots")
    return {name: make(folder) for name, make in HARD_SHOTS.items()}


@pytest.mark.models
def test_fast_motion_in_one_shot_is_no_cut(engine, hard_shots):
    """Bubbles, smoke, flashes, a head passing the lens and a whip pan stay one shot (the
    whip pan is an event: the view changes); cuts between two cameras on one scene, in fast
    motion, and slow dissolves (1, 1.5 and 2 s) are all found."""
    from hard_shots import CUT_CLIPS, MOTION_CLIPS

    for name in MOTION_CLIPS:
        found = detect(engine, hard_shots[name])
        assert times(found, "cut", "gradual") == [], (name, found)
    assert times(detect(engine, hard_shots["whip_pan"]), "event") != []
    for name in CUT_CLIPS:
        video = hard_shots[name]
        found = detect(engine, video)
        assert len(times(found, "cut")) == len(video.cut_times), (name, found)
        if video.cut_times:
            assert f1_at(times(found, "cut"), video.cut_times, 0.1).f1 == 1.0, (name, found)
        middles = [(a + b) / 2 for a, b in video.gradual]
        assert len(times(found, "gradual")) == len(middles), (name, found)
        if middles:
            assert f1_at(times(found, "gradual"), middles, 0.5).f1 == 1.0, (name, found)


@pytest.mark.models
def test_the_half_rate_stream_sees_every_second_frame(crossfade_video):
    """Where the cascade sees a dissolve, TransNetV2 also looks at every 2nd frame of the
    video: frames 0, 2, 4, ... whatever the batches, though the full-rate rows lag behind."""
    from videoreview.engines.boundaries.transnet import resize_frames
    from videoreview.media.shared_pass import read_alone

    with open_video(crossfade_video.path) as source:
        every = resize_frames(np.concatenate([b.frames for b in source.iter_batches(size=(160, 90))]))
    for batch in (60, 7):
        given = []
        with open_video(crossfade_video.path) as source:
            reader = BuiltinBoundaryEngine(batch=batch).reader(source)
            push = reader.half.push
            reader.half.push = lambda frames, marks: (given.append(frames), push(frames, marks))[1]
            read_alone(source, reader, lambda *a: None)
        assert np.array_equal(np.concatenate(given), every[::2]), batch
