"""The builtin captioner, boundary captions and keyframes on clips with known changes:
nothing happens, the camera pans, an object enters, a cut, people come and go. What the
captioner says of a clip is a ``models`` test (EfficientNet-Lite0 and TransNetV2 run); a
reviewer's caption kept by re-analysis is checked with the fake engines (fake_engines.py)."""

from __future__ import annotations

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
    assert len(texts) == 4 and len(set(texts)) == 1  # no made-up progression
    assert "The camera is still." in texts[0] and all(c.engine == "builtin@4" for c in analysis.captions)
    assert [k.reason for k in analysis.keyframes] == ["first frame"]


@pytest.mark.models
def test_camera_pan_is_said(tmp_path, stage_cache):
    import cv2

    wide = cv2.resize(people()["eileen"].image, (900, 180), interpolation=cv2.INTER_CUBIC)
    path = tmp_path / "pan.mp4"
    encode_frames(path, (np.ascontiguousarray(wide[:, 4 * i:4 * i + 320]) for i in range(100)), 25)
    texts = [c.text for c in run(path, stage_cache).captions]
    assert all("camera pans right" in t.lower() for t in texts), texts  # the view slides right over the scene


@pytest.mark.models
def test_object_entering_changes_the_caption_after_it_and_not_before(event_video, stage_cache):
    analysis = run(event_video.path, stage_cache)
    by_time = {round(c.time): c.text for c in analysis.captions}
    enter = event_video.events["enter"]
    before = [t for s, t in by_time.items() if s < enter]
    assert len(set(before)) == 1  # static background: same caption
    during = [t for s, t in by_time.items() if enter < s < event_video.events["stop"]]
    assert during and all("something moves in the picture" in t or "Something starts moving" in t for t in during)
    assert all(t not in before for t in during)
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
        "P1 (left) and P2 (right) in close-up, with a goblet. P2 comes in. The camera is still.",
        "P2 in close-up on the right, with a goblet. P1 leaves. The camera is still.",
        "P2 in close-up on the right, with a goblet. The camera is still.",
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
