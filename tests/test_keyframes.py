"""Keyframe selection: progression mode adapts to content, budget mode covers shots and people."""

import numpy as np

from videoreview.summary.keyframes import Candidate, best_keyframes, measured_judge, progression_keyframes


def unit(*values):
    v = np.zeros(8, np.float32)
    v[: len(values)] = values
    return v / np.linalg.norm(v)


def cand(t, shot, ids=(), feature=(1.0,)):
    return Candidate(time=float(t), frame=25 * t, shot=shot, ids=frozenset(ids), feature=unit(*feature))


def test_progression_keeps_only_frames_that_progress():
    frames = [cand(0, 1), cand(1, 1), cand(2, 1, feature=(1, 0.02)),  # nothing happens
              cand(3, 1, ids=["P1"]),  # someone enters
              cand(4, 1, ids=["P1"], feature=(0.2, 1)),  # the scene changes a lot
              cand(5, 2, ids=["P1"], feature=(0.2, 1))]  # a cut
    kept = progression_keyframes(frames)
    assert [(k.time, k.reason) for k in kept] == [
        (0.0, "first frame"), (3.0, "P1 entered"), (4.0, "appearance changed (0.80)"), (5.0, "new shot")]
    assert measured_judge()(frames[0], frames[1]) is None


def test_a_keyframe_where_the_described_subject_changes_and_not_where_it_goes_unsaid():
    from dataclasses import replace

    frames = [replace(cand(t, 1), subject=subject)
              for t, subject in enumerate(["a cat", "a cat", "", "a cat", "a dog", "a dog"])]
    kept = progression_keyframes(frames)
    # "" is a sample where nothing was sure: not a change to say, nor the cat coming back.
    assert [(k.time, k.reason) for k in kept] == [(0.0, "first frame"), (4.0, "now a dog")]


def test_best_k_covers_shots_then_people_then_novelty():
    frames = [cand(t, 1) for t in range(5)] + [cand(5, 2), cand(6, 2, ids=["P2"]), cand(7, 3, feature=(0, 1))]
    one = best_keyframes(frames, 1)
    assert len(one) == 1 and one[0].reason == "most typical frame of shot 1"
    three = best_keyframes(frames, 3)
    assert sorted(k.reason.split(" of shot ")[-1] for k in three) == ["1", "2", "3"]
    four = best_keyframes(frames, 4)
    assert any(k.reason == "first view of P2" for k in four) and [k.time for k in four] == sorted(k.time for k in four)
    assert len(best_keyframes(frames, 20)) == len(frames) and best_keyframes([], 3) == []


def test_an_event_boundary_is_progression_even_when_the_picture_barely_changes():
    judge = measured_judge()
    same = cand(0, 1)
    after_event = Candidate(time=1.0, frame=25, shot=1, ids=frozenset(), feature=same.feature, events=1)
    assert judge(same, after_event) == "event boundary"
    assert judge(same, cand(1, 1, feature=(1, 0.5))) is None  # cosine distance 0.11: below 0.25
