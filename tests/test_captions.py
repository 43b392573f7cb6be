"""The builtin captioner, boundary captions and keyframes on clips with known changes:
nothing happens, the camera pans, an object enters, a cut, people come and go. What the
captioner says of a clip is a ``models`` test (EfficientNet-Lite0 and TransNetV2 run); a
reviewer's caption kept by re-analysis is checked with the fake engines (fake_engines.py)."""

from __future__ import annotations

from bisect import bisect_right

import numpy as np
import pytest

from faces import people
from fake_engines import ENGINES
from videoreview.pipeline import StageCache, analyze
from videos import encode_frames


def run(path, cache_dir, engines=None):
    """``path`` analysed, its stages cached in ``cache_dir`` (the session's stage cache for
    the builtin engines: a clip another test analysed is not analysed again)."""
    return analyze(path, engines, cache=StageCache(cache_dir))


def texture(size=(320, 180)) -> np.ndarray:
    """A real photograph as scenery (the astronaut picture without its person in view)."""
    import cv2

    image = people()["eileen"].image
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


@pytest.mark.models
def test_nothing_happens_means_one_caption_and_one_keyframe(tmp_path, stage_cache):
    still = texture()
    path = tmp_path / "still.mp4"
    encode_frames(path, (still for _ in range(100)), 25)
    analysis = run(path, stage_cache)
    texts = [c.text for c in analysis.captions]
    assert len(texts) == 4 and len(set(texts[1:])) == 1  # no made-up progression
    # the still camera is said once, where it becomes known, not in every caption
    assert texts[0] == f"{texts[1].removesuffix('.')}. The camera is still." and "camera" not in texts[1]
    assert all(c.engine == "builtin@4" for c in analysis.captions)
    assert [k.reason for k in analysis.keyframes] == ["first frame"]


@pytest.mark.models
def test_camera_pan_is_said(tmp_path, stage_cache):
    import cv2

    wide = cv2.resize(people()["eileen"].image, (900, 180), interpolation=cv2.INTER_CUBIC)
    path = tmp_path / "pan.mp4"
    encode_frames(path, (np.ascontiguousarray(wide[:, 4 * i:4 * i + 320]) for i in range(100)), 25)
    texts = [c.text for c in run(path, stage_cache).captions]
    assert "The camera pans right." in texts[0], texts  # the view slides right over the scene
    assert not any("camera" in t for t in texts[1:]), texts  # said where it starts, not again while it holds


@pytest.mark.models
def test_object_entering_changes_the_caption_after_it_and_not_before(event_video, stage_cache):
    analysis = run(event_video.path, stage_cache)
    by_time = {round(c.time): c.text for c in analysis.captions}
    enter = event_video.events["enter"]
    before = [t for s, t in by_time.items() if s < enter]
    assert len(set(before[1:])) == 1 and before[0].startswith(before[1])  # static background: same caption
    # the start and end of the square's slide, measured under a camera surely still; no filler
    # sentence while it moves
    starts = [s for s, t in by_time.items() if "Something starts moving." in t]
    assert starts and enter <= starts[0] <= enter + 1 and not any("mov" in t for t in before), by_time
    stops = [s for s, t in by_time.items() if "The movement stops." in t]
    assert stops and event_video.events["stop"] <= stops[0] <= event_video.events["stop"] + 1, by_time
    assert not any("something moves" in t.lower() for t in by_time.values())
    # Keyframes: the first frame, then one after each event boundary (entering, stopping,
    # turning cyan); nothing while the background is still.
    kept = [(k.time, k.reason) for k in analysis.keyframes]
    assert kept[0] == (0.0, "first frame") and all(r == "event boundary" for _, r in kept[1:])
    assert not any(0 < t <= enter for t, _ in kept)
    assert any(enter < t <= event_video.events["stop"] + 1 for t, _ in kept)
    assert any(event_video.events["change"] <= t <= event_video.events["change"] + 1 for t, _ in kept)


@pytest.mark.models
def test_cut_changes_shot_and_boundaries_get_captions(cuts_video, stage_cache):
    import bisect

    analysis = run(cuts_video.path, stage_cache)
    shots = [bisect.bisect_right(cuts_video.cut_frames, c.frame) + 1 for c in analysis.captions]
    assert shots[0] == 1 and shots[-1] == len(cuts_video.cut_frames) + 1
    # A caption says "New shot" exactly at the first sampled frame after each cut.
    first_of_shot = [n > 0 and shots[n] != shots[n - 1] for n in range(len(shots))]
    assert [c.text.startswith("New shot: ") for c in analysis.captions] == first_of_shot
    for boundary in analysis.boundaries:
        assert boundary.caption is not None and boundary.caption.engine == "builtin@4"
        assert boundary.caption.subject and boundary.caption.before and boundary.caption.after
    kept_shots = {s for s, k in zip(shots, analysis.captions) if k.frame in {kf.frame for kf in analysis.keyframes}}
    assert len(kept_shots) == len(set(shots))  # a keyframe in every shot
    assert all(k.reason for k in analysis.keyframes)


def test_people_entering_and_leaving_within_a_shot():
    from videoreview.engines.captions.builtin import Person, Sample, describe

    samples = [Sample(float(t), 25 * t, (("goblet", 0.6),), (0.0, 0.0), 0.0) for t in range(4)]
    seen = {0: [Person("P1", (50, 50, 100, 100))],
            1: [Person("P1", (50, 50, 100, 100)), Person("P2", (450, 60, 90, 90))],
            2: [Person("P2", (450, 60, 90, 90))],
            3: [Person("P2", (450, 60, 90, 90))]}
    texts = [t for _, t in describe(samples, lambda time: seen[int(time)], lambda f: 1, 640, 360)]
    assert texts == [
        "P1 in close-up on the left, with a goblet. The camera is still.",
        "P1 (left) and P2 (right) in close-up, with a goblet. P2 comes in.",
        "P2 in close-up on the right, with a goblet. P1 leaves.",
        "P2 in close-up on the right, with a goblet.",
    ]


def test_subject_is_said_at_the_level_both_views_are_sure_of_over_the_window():
    from videoreview.engines.captions.subjects import subject_word

    parrots = [[("macaw", 0.2), ("lorikeet", 0.2), ("sulphur-crested cockatoo", 0.2)]] * 3
    assert subject_word(parrots, parrots) == "parrot"  # no species is sure; the parrots together are
    macaw = [[("macaw", 0.5), ("lorikeet", 0.2)]] * 3
    assert subject_word(macaw, macaw) == "macaw"  # the most specific sure one
    cats = [[("Egyptian cat", 0.2), ("tabby", 0.2), ("tiger cat", 0.2)]] * 3
    assert subject_word(cats, cats) == "cat"  # "domestic cat", in plain words
    flicker = [[("macaw", 0.9)], [("great white shark", 0.9)], [("hare", 0.9)]]
    assert subject_word(flicker, flicker) is None  # one sampled frame each: nothing holds
    platform = [[("drilling platform", 0.95)]] * 3
    missile = [[("missile", 0.3), ("projectile", 0.1)]] * 3
    assert subject_word(missile, platform) is None  # the two views disagree: say nothing
    assert subject_word(platform) == "drilling platform"  # one view alone (older cache entries)


def test_reviewer_caption_survives_reanalysis(cuts_video, tmp_path):
    from dataclasses import replace

    first = run(cuts_video.path, tmp_path / "cache", ENGINES)
    mine = replace(first.captions[1], text="A reviewer's caption", edited=True)
    edited = replace(first, captions=(first.captions[0], mine) + first.captions[2:])
    again = analyze(cuts_video.path, ENGINES, cache=StageCache(tmp_path / "cache"), previous=edited)
    assert again.captions[1].text == "A reviewer's caption" and again.captions[1].edited
    assert len(again.captions) == len(first.captions)


def test_features_are_stored_compactly_and_cached_lists_still_load():
    from videoreview.pipeline.stages.captions import pack_feature, unpack_feature

    vector = np.random.default_rng(0).normal(size=1280).astype(np.float32)
    vector /= np.linalg.norm(vector)
    packed = pack_feature(vector)
    assert isinstance(packed, str) and len(packed) < 3500  # a list of 1280 rounded floats: ~9 kB of JSON
    assert np.abs(unpack_feature(packed) - vector).max() < 1e-3
    assert np.array_equal(unpack_feature([0.5, -0.25]), np.array([0.5, -0.25], np.float32))


def _sample(time: float, camera=(0.0, 0.0), motion: float = 0.0, zoom: float = 0.0):
    from videoreview.engines.captions.builtin import Sample

    return Sample(time, int(25 * time), (), camera, motion, zoom, light=0.5, colours=(("grey", 1.0),))


def _texts(samples, shot_of=lambda frame: 1, **kwargs) -> list[str]:
    from videoreview.engines.captions.builtin import describe

    return [t for _, t in describe(samples, lambda time: [], shot_of, 640, 360, **kwargs)]


def test_no_filler_sentence_is_repeated_in_every_caption():
    # a handheld phone clip: the camera wanders, parallax and noise leave flow everywhere
    rng = np.random.default_rng(3)
    samples = [_sample(float(t), tuple(rng.normal(0, 1.5, 2)), motion=2.5) for t in range(12)]
    texts = _texts(samples)
    assert all(t.startswith("A picture in grey") for t in texts)  # what it looks like: never empty
    assert not any("something moves" in t.lower() or "moving" in t.lower() for t in texts), texts
    # beyond the scene (what it looks like, the same through the shot), no sentence in half the captions
    said = [sentence for t in texts for sentence in set(t.split(". ")[1:])]
    assert max(said.count(s) for s in set(said)) < len(texts) / 2, texts


def test_the_camera_is_said_only_where_sure_and_once_while_it_holds():
    still = [_sample(float(t)) for t in range(3)]
    # just over the pan threshold: a guess, not said
    weak = [_sample(float(t), camera=(-0.3, 0.0)) for t in range(3, 6)]
    # one sample's jolt between still ones: no pan held, and not still throughout the shot
    jolt = [_sample(6.0), _sample(7.0, camera=(-2.0, 0.0)), _sample(8.0)]
    # a steady pan, well over the threshold: said where it starts
    pan = [_sample(float(t), camera=(-1.5, 0.0)) for t in range(9, 13)]
    # a zoom, and the same scale of the flow where the picture's content moves far more (a
    # drop of water, a turning globe): that is no zoom
    zoom = [_sample(float(t), zoom=0.004, motion=0.1) for t in range(13, 16)]
    swirl = [_sample(float(t), zoom=0.004, motion=3.0) for t in range(16, 19)]
    cuts = [3, 6, 9, 13, 16]
    texts = _texts(still + weak + jolt + pan + zoom + swirl, shot_of=lambda frame: bisect_right(cuts, frame / 25))
    said = [(i, t.split(". ", 1)[1]) for i, t in enumerate(texts) if "camera" in t]
    assert said == [(0, "The camera is still."), (9, "The camera pans right."), (13, "The camera zooms in.")], texts


def test_a_camera_guess_is_not_in_a_boundary_status():
    from videoreview.engines.captions.builtin import describe

    states = [s for s, _ in describe([_sample(float(t), camera=(-0.3, 0.0)) for t in range(3)],
                                     lambda time: [], lambda frame: 1, 640, 360)]
    assert states[1].camera == "" and states[1].status() == "a picture in grey"


def _caption_stage_run(boundaries, objects=(), engines=("faces", "poses", "objects"), seconds=10, faces=(),
                       bodies=(), motion=None):
    """Whether each caption says "no people": the captions stage's apply on an analysis with
    these cuts (times) and person detections (``objects``: (time, score); ``faces``,
    ``bodies``: (start, score) of a face track, a body), ``engines`` the stages that ran, its
    samples measured once a second (no model runs), the flow beyond the camera's ``motion``
    (time -> pixels) or none."""
    from videoreview.engines.captions.builtin import BuiltinCaptionEngine
    from videoreview.pipeline.stages.captions import CaptionResult, CaptionStage, pack_feature
    from videoreview.records import Analysis, Boundary, FaceTrack, ObjectDetection, PoseTrack, VideoInfo

    info = VideoInfo(path="v.mp4", width=640, height=360, fps=25.0, frame_count=25 * seconds, duration=seconds)
    look = {"light": 0.5, "colours": [["grey", 1.0]], "saturation": 0.3, "flat": 0.0}
    samples = [{"time": float(t), "frame": 25 * t, "labels": [], "whole": [], "camera": [0.0, 0.0], "zoom": 0.0,
                "motion": (motion or {}).get(t, 0.0), "feature": pack_feature(np.zeros(8)), "look": look}
               for t in range(seconds)]
    analysis = Analysis(
        video=info, engines={name: f"{name}@1" for name in engines},
        boundaries=tuple(Boundary(time=t, frame=round(25 * t), kind="cut", confidence=1.0) for t in boundaries),
        objects=tuple(ObjectDetection(time=t, frame=round(25 * t), label="person", box=(10, 10, 40, 90),
                                      score=score, track=-1) for t, score in objects),
        face_tracks=tuple(FaceTrack(id=i, start=t, end=t + 0.5, shot=0, faces=2, size=20.0, score=score, blur=10.0,
                                    quality=0.1) for i, (t, score) in enumerate(faces)),
        poses=tuple(PoseTrack(id=i, start=t, end=t + 1.0, score=score, samples=5, box=(10, 10, 40, 90))
                            for i, (t, score) in enumerate(bodies)))
    result = CaptionResult(1.0, tuple(samples))
    captions = CaptionStage(BuiltinCaptionEngine()).apply(analysis, result, None).captions
    return [("no people" in c.text) for c in captions]


def test_no_people_only_where_every_person_detector_checked_the_shot_and_saw_nobody():
    # shots 0-5 s and 6-10 s, checked and empty; 5-6 s, too short to be checked
    assert _caption_stage_run([5.0, 6.0]) == [True] * 5 + [False] + [True] * 4
    # the poses stage did not run: nobody looked for bodies, so nothing is said about people
    assert not any(_caption_stage_run([5.0, 6.0], engines=("faces", "objects")))
    # someone seen weakly in one shot may be in the others unseen: a person detection, a face
    # track, a body no detector is sure of (a cartoon's, a pattern's, a crowd's far away)
    assert not any(_caption_stage_run([5.0, 6.0], objects=[(7.0, 0.42)]))
    assert not any(_caption_stage_run([5.0, 6.0], faces=[(1.0, 0.6)]))
    assert not any(_caption_stage_run([5.0, 6.0], bodies=[(8.0, 0.3)]))
    # something surely moves in the first shot (a hand before the lens?): not said of it
    assert _caption_stage_run([5.0, 6.0], motion={2: 1.2}) == [False] * 6 + [True] * 4
