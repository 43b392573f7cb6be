"""Objects followed through shots (pipeline/stages/objects.py): the tracking on drawn detections,
and the stage with the builtin detector on real photographs filmed by a virtual camera."""

import pytest

from videoreview.pipeline.stages.objects import object_tracks


def sample(time, frame, *objects):
    return {"time": time, "frame": frame, "objects": [list(o) for o in objects]}


def test_an_object_is_one_track_through_a_shot_and_a_cut_ends_it():
    cup = ("cup", 0.8, 100, 100, 50, 60)
    moved = ("cup", 0.7, 110, 104, 50, 60)
    samples = [sample(0.0, 0, cup), sample(1.0, 25, moved), sample(2.0, 50),  # missed once: same track
               sample(3.0, 75, moved), sample(4.0, 100, moved), sample(5.0, 125, moved)]
    detections, tracks = object_tracks(samples, cuts=[90], step=1.0, duration=6.0, engine="centernet@1")
    # the first ends at the cut
    assert [(t.label, t.start, t.end, t.detections) for t in tracks] == [("cup", 0.0, 3.6, 3), ("cup", 4.0, 6.0, 2)]
    assert [d.track for d in detections] == [0, 0, 0, 1, 1]
    assert tracks[0].score == pytest.approx((0.8 + 0.7 + 0.7) / 3, abs=1e-3) and tracks[0].engine == "centernet@1"


def test_two_objects_of_a_label_stay_apart_and_unsure_ones_are_no_track():
    left, right = ("dog", 0.9, 0, 0, 40, 40), ("dog", 0.8, 200, 0, 40, 40)
    samples = [sample(t, int(t * 25), left, right) for t in (0.0, 1.0, 2.0)]
    samples[0]["objects"].append(["car", 0.35, 300, 100, 80, 40])  # seen twice, weak
    samples[1]["objects"].append(["car", 0.35, 300, 100, 80, 40])
    samples[2]["objects"].append(["bus", 0.9, 300, 100, 80, 40])  # seen once, however sure
    detections, tracks = object_tracks(samples, cuts=[], step=1.0, duration=3.0)
    assert sorted((t.label, t.detections) for t in tracks) == [("dog", 3), ("dog", 3)]
    assert {d.track for d in detections if d.label in ("car", "bus")} == {-1}
    assert {d.track for d in detections if d.label == "dog" and d.box[0] == 0} != \
        {d.track for d in detections if d.label == "dog" and d.box[0] == 200}


def test_a_thing_seen_again_and_again_is_sure_from_a_lower_mean():
    cup = ("cup", 0.53, 100, 100, 50, 60)
    _, short = object_tracks([sample(t, int(t * 25), cup) for t in range(3)], cuts=[], step=1.0, duration=3.0)
    _, long = object_tracks([sample(t, int(t * 25), cup) for t in range(6)], cuts=[], step=1.0, duration=6.0)
    assert short == [] and [(t.label, t.detections) for t in long] == [("cup", 6)]


def test_one_thing_is_one_detection_and_a_walker_one_track():
    from videoreview.pipeline.stages.objects import one_per_thing

    person, inner = ["person", 0.9, 100, 100, 60, 180], ["person", 0.6, 110, 110, 40, 100]  # inside it
    dog, cat = ["dog", 0.58, 300, 100, 80, 60], ["cat", 0.62, 302, 101, 80, 60]  # one animal, two labels
    two = ["person", 0.8, 400, 100, 60, 180]  # someone else
    assert one_per_thing([inner, dog, person, cat, two]) == [person, two, cat]
    # a walker moves most of a body height a second: boxes a second apart do not overlap
    samples = [sample(t, int(t * 25), ("person", 0.8, 100 + 130 * t, 100, 60, 180)) for t in (0.0, 1.0, 2.0)]
    _, tracks = object_tracks(samples, cuts=[], step=1.0, duration=3.0)
    assert [(t.start, t.end, t.detections) for t in tracks] == [(0.0, 3.0, 3)]


@pytest.mark.models
def looked_at(found_at, seconds=6.0, rate=1.0, look_rate=4.0, fps=25):
    """The times AdaptiveSampling has the detector see, of frames offered at ``look_rate``, with
    ``found_at(time)`` the objects found then."""
    from videoreview.pipeline.stages.objects import AdaptiveSampling

    closer, seen = AdaptiveSampling(rate, look_rate), []
    for k in range(int(seconds * look_rate)):
        time = round(k * fps / look_rate) / fps  # the offered frames fall on the video's frames
        if closer.due(time):
            seen.append(time)
            closer.saw(time, [list(o) for o in found_at(time)])
    return seen


def test_the_detector_looks_closer_at_what_it_is_unsure_of_and_only_so_long():
    once_a_second = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert looked_at(lambda t: []) == once_a_second
    assert looked_at(lambda t: [("cup", 0.8, 10, 10, 50, 50)]) == [0.0, 0.24, 1.24, 2.24, 3.24, 4.24, 5.24]
    # a weak car from 2 s: three looks, then it is taken to be the detector's mistake while
    # it is seen once a second
    weak = looked_at(lambda t: [("car", 0.45, 10, 10, 50, 50)] if t >= 2 else [])
    assert weak == [0.0, 1.0, 2.0, 2.24, 2.48, 3.52, 4.48, 5.52]
    # a person is sure from 0.4 on average, a car from 0.55
    assert looked_at(lambda t: [("person", 0.45, 10, 10, 50, 50)])[:3] == [0.0, 0.24, 1.24]
    assert looked_at(lambda t: [], look_rate=1.0) == once_a_second  # never closer


def test_the_stage_finds_what_the_photographs_show(tmp_path, home):
    from caption_set import make_clip
    from videoreview.pipeline import StageCache, analyze

    expected = {"coffee-pan": "cup", "motorcycle-shake": "motorcycle", "officer-shake": "person"}
    for name, label in expected.items():
        path, _labels = make_clip(tmp_path, name)
        analysis = analyze(path, {"boundaries": "builtin", "objects": "nanodet"}, cache=StageCache(tmp_path / "c"))
        labels = {t.label for t in analysis.object_tracks}
        assert label in labels, (name, labels)
        assert all(d.track == -1 or analysis.object_tracks[d.track].label == d.label for d in analysis.objects)
        assert analysis.engines["objects"].startswith("nanodet@")
