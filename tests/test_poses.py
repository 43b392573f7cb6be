"""People's statuses from their keypoints (videoreview/engines/poses/status.py): the posture rules
on hand-made keypoints, the motion and smoothing on hand-made tracks, the status changes; then the
drawn figure of tests/pose_clips.py, its own keypoints and MoveNet's (MoveNetEngine, marked
``models``) turned into statuses whose changes match the clips' truth (boundary F1 at 1 s, GEB+'s
average printed)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pose_clips import CLIPS, PoseClip, read_people, true_keypoints
from videoreview.engines.objects.decode import KEYPOINTS
from videoreview.engines.poses.status import (
    arms_raised,
    body_height,
    motion,
    posture,
    status_changes,
    statuses,
)
from videoreview.metrics.boundaries import boundary_f1

# ------------------------------------------------------------------------------------------- hand-made people

# A person 200 px tall facing the camera, feet at y = 200 (y down): shoulders 0.29 H above the hips,
# thighs and shins 0.245 H. Their left is the picture's right.
STANDING = {
    "nose": (100, 18), "left_eye": (104, 14), "right_eye": (96, 14), "left_ear": (109, 16), "right_ear": (91, 16),
    "left_shoulder": (123, 36), "right_shoulder": (77, 36), "left_elbow": (127, 70), "right_elbow": (73, 70),
    "left_wrist": (129, 100), "right_wrist": (71, 100), "left_hip": (110, 94), "right_hip": (90, 94),
    "left_knee": (111, 143), "right_knee": (89, 143), "left_ankle": (111, 192), "right_ankle": (89, 192),
}


def person(points: dict, score: float = 0.8, **changes) -> np.ndarray:
    """Keypoints [17, 3] from named points; ``changes`` move (x, y) or hide (None) some."""
    points = {**points, **changes}
    kps = np.zeros((17, 3), np.float32)
    for i, name in enumerate(KEYPOINTS):
        if points.get(name) is not None:
            kps[i] = (*points[name], score)
    return kps


def turned(points: dict, degrees: float, about=(100, 192)) -> dict:
    """The person turned clockwise in the picture about a point."""
    a = np.radians(degrees)
    c, s = np.cos(a), np.sin(a)
    return {k: (about[0] + c * (x - about[0]) - s * (y - about[1]), about[1] + s * (x - about[0]) + c * (y - about[1]))
            for k, (x, y) in points.items()}


# Seated in profile, facing right: thighs level, shins down, trunk upright.
SITTING = {**STANDING, "left_shoulder": (98, 36), "right_shoulder": (94, 36), "left_hip": (100, 94),
           "right_hip": (96, 94), "left_knee": (149, 98), "right_knee": (145, 97), "left_ankle": (150, 147),
           "right_ankle": (146, 146), "left_elbow": (104, 68), "right_elbow": (100, 68), "left_wrist": (125, 88),
           "right_wrist": (121, 88)}
# Bent forward at the hips over straight legs, in profile, arms hanging towards the feet.
BENDING = {**STANDING, "nose": (172, 92), "left_eye": (170, 86), "right_eye": (168, 86), "left_ear": (160, 82),
           "right_ear": (158, 82), "left_shoulder": (155, 84), "right_shoulder": (151, 86),
           "left_elbow": (156, 118), "right_elbow": (152, 120), "left_wrist": (158, 150), "right_wrist": (154, 152),
           "left_hip": (100, 94), "right_hip": (96, 94), "left_knee": (101, 143), "right_knee": (97, 143),
           "left_ankle": (101, 192), "right_ankle": (97, 192)}
ARMS_UP = {**STANDING, "left_elbow": (135, 5), "right_elbow": (65, 5), "left_wrist": (140, -25),
           "right_wrist": (60, -25)}


def test_posture_of_hand_made_people():
    assert posture(person(STANDING)) == "standing"
    assert posture(person(SITTING)) == "sitting"
    assert posture(person(turned(STANDING, 90))) == "lying"  # on their side, head to the right
    assert posture(person(turned(STANDING, -88))) == "lying"
    assert posture(person(BENDING)) == "bending"
    assert posture(person(ARMS_UP)) == "arms raised"
    # one hand well over the head is enough; one just above its shoulder is not
    assert posture(person(STANDING, left_elbow=(130, 10), left_wrist=(132, -20))) == "arms raised"
    assert posture(person(STANDING, left_elbow=(140, 30), left_wrist=(150, 20))) == "standing"
    assert arms_raised(person(ARMS_UP)) and not arms_raised(person(STANDING))


def test_posture_holds_at_any_scale_and_place():
    for points, expected in ((STANDING, "standing"), (SITTING, "sitting"), (BENDING, "bending"),
                             (ARMS_UP, "arms raised"), (turned(STANDING, 90), "lying")):
        for scale, shift in ((0.2, (5, 7)), (1.0, (0, 0)), (6.0, (1500, -300))):
            kps = person(points)
            kps[:, :2] = kps[:, :2] * scale + shift
            assert posture(kps) == expected, (expected, scale)
            assert body_height(kps) == pytest.approx(200 * scale, rel=0.02)


def test_posture_ignores_unsure_points_and_says_none_when_it_cannot_tell():
    assert posture(person(STANDING, score=0.25)) is None  # nothing over MoveNet's 0.3
    assert posture(np.zeros((17, 3), np.float32)) is None
    assert posture(person(STANDING, left_shoulder=None, right_shoulder=None)) is None
    assert posture(person(STANDING, left_hip=None, right_hip=None)) is None
    # no knees, no ankles (a half-length shot): standing or sitting cannot be told, arms up can
    legs = dict(left_knee=None, right_knee=None, left_ankle=None, right_ankle=None)
    assert posture(person(STANDING, **legs)) is None
    assert posture(person(ARMS_UP, **legs)) == "arms raised"
    # a knee at hip height scoring 0.2 is not a seated thigh
    kps = person(STANDING)
    kps[13] = (140, 96, 0.2)
    assert posture(kps) == "standing"
    # one of each pair is enough
    assert posture(person(SITTING, left_knee=None, left_ankle=None, right_shoulder=None)) == "sitting"


def test_bent_trunks_need_legs_or_hanging_arms_to_be_bending():
    legs = dict(left_knee=None, right_knee=None, left_ankle=None, right_ankle=None)
    assert posture(person(BENDING, **legs)) == "bending"  # the hands hang 0.33 H below the shoulders
    level = dict(left_elbow=(185, 86), right_elbow=(183, 88), left_wrist=(210, 88), right_wrist=(208, 90))
    assert posture(person(BENDING, **legs, **level)) == "lying"  # arms along the body, no legs: lying
    # bent towards the camera: the trunk foreshortened to half over upright legs
    towards = {k: (x, y + 30) if k in ("left_shoulder", "right_shoulder", "left_elbow", "right_elbow", "nose",
                                       "left_eye", "right_eye", "left_ear", "right_ear") else (x, y)
               for k, (x, y) in STANDING.items()}
    assert posture(person(towards)) == "bending"
    # on the way down: trunk at 50 degrees, legs neither upright nor seated
    falling = turned(STANDING, 50)
    assert posture(person(falling)) is None


# ------------------------------------------------------------------------------------------- hand-made tracks


def walker(t: float, speed: float, step: float, period: float, rng=None) -> np.ndarray:
    """STANDING moved right at ``speed`` H/s, in profile, the feet ``step`` H apart at their widest,
    a stride (two steps) every ``period`` s."""
    points = {k: (x + 200 * speed * t, y) for k, (x, y) in STANDING.items()}
    swing = 200 * step / 2 * np.sin(2 * np.pi * t / period)  # the left ankle ahead of the hips
    for side, sign in (("left", 1), ("right", -1)):  # straight legs of 98 px, turned about the hips
        hx, hy = points[f"{side}_hip"]
        a = np.arcsin(sign * swing / 98)
        points[f"{side}_knee"] = (hx + 49 * np.sin(a), hy + 49 * np.cos(a))
        points[f"{side}_ankle"] = (hx + 98 * np.sin(a), hy + 98 * np.cos(a))
    kps = person(points)
    if rng is not None:
        kps[:, :2] += rng.normal(0, 3, (17, 2))  # MoveNet's jitter, 1.5 % of the height
    return kps


def test_walking_and_running_by_speed_or_by_leg_swing():
    rng = np.random.default_rng(0)
    times = np.arange(0, 4, 0.2)
    still = [walker(t, 0, 0, 1, rng) for t in times]
    walk = [walker(t, 0.75, 0.4, 1.05, rng) for t in times]  # 1.3 m/s for 1.75 m, steps of 0.7 m
    run = [walker(t, 2.0, 0.65, 0.72, rng) for t in times]  # 3.5 m/s, steps of 1.15 m (legs kept straight)
    tracked_walk = [walker(t, 0.0, 0.4, 1.05, rng) for t in times]  # a camera that follows: no speed
    tracked_run = [walker(t, 0.05, 0.65, 0.72, rng) for t in times]
    assert set(statuses(times, still)) == {"standing"}
    assert set(statuses(times, walk)) == {"walking"}
    assert set(statuses(times, run)) == {"running"}
    assert set(statuses(times, tracked_walk)) == {"walking"}
    assert set(statuses(times, tracked_run)) == {"running"}
    speed, swing = motion(times, walk)[10]
    assert speed == pytest.approx(0.75, abs=0.1) and 0.8 < swing < 2.0
    speed, swing = motion(times, tracked_run)[10]
    assert speed < 0.2 and swing > 2.0


def test_one_odd_frame_does_not_flip_the_status_and_gaps_are_bridged():
    times = np.arange(0, 4, 0.2)
    track = [person(STANDING) for _ in times]
    track[7] = person(SITTING)  # one sample's knees misplaced
    track[12] = None  # not found once
    track[13] = person(STANDING, score=0.1)  # found, but no point sure
    assert statuses(times, track) == ["standing"] * len(times)
    track = [None, None] + [person(SITTING)] * 5
    assert statuses(np.arange(7) * 0.2, track) == ["sitting"] * 7  # what comes first is carried back
    assert statuses([0.0, 0.2], [None, None]) == [None, None]


def rounded(changes):
    return [(round(t, 6), before, after) for t, before, after in changes]


def test_status_changes_keep_lasting_changes_half_way_between_samples():
    times = np.arange(50) * 0.2
    status = ["standing"] * 20 + ["sitting"] * 20 + ["standing"] * 10  # 0-3.8, 4.0-7.8, 8.0-9.8
    assert rounded(status_changes(times, status)) == [(3.9, "standing", "sitting"), (7.9, "sitting", "standing")]
    blip = list(status)
    blip[5:8] = ["walking"] * 3  # 0.6 s: dropped, one run of standing around it
    assert rounded(status_changes(times, blip)) == [(3.9, "standing", "sitting"), (7.9, "sitting", "standing")]
    assert rounded(status_changes(times, blip, min_duration=0.5)) == [
        (0.9, "standing", "walking"), (1.5, "walking", "standing"), (3.9, "standing", "sitting"),
        (7.9, "sitting", "standing")]
    between = ["standing"] * 20 + ["bending"] * 3 + ["lying"] * 27  # a short step between two others
    changes = status_changes(times, between)
    assert [(b, a) for _, b, a in changes] == [("standing", "lying")] and 3.8 <= changes[0][0] <= 4.6
    gaps = [None if i % 3 == 0 else s for i, s in enumerate(status)]
    assert [(b, a) for _, b, a in status_changes(times, gaps)] == [("standing", "sitting"), ("sitting", "standing")]
    assert status_changes(times, ["lying"] * 50) == [] and status_changes([], []) == []


# ------------------------------------------------------------------------------------------- the clips


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    """The clips of tests/pose_clips.py, each made once for the module when first asked for."""
    folder = tmp_path_factory.mktemp("pose-clips")
    made: dict[str, PoseClip] = {}

    def get(name: str) -> PoseClip:
        if name not in made:
            made[name] = CLIPS[name](Path(folder))
        return made[name]

    return get


def check_changes(name: str, found: list, clip: PoseClip, label: str) -> float:
    """The changes found against the truth: the same statuses either side, F1 1 at a tolerance of
    1 s; GEB+'s average F1 over its tolerances printed (and returned)."""
    truth = [t for t, _, _ in clip.changes]
    scores, average = boundary_f1([t for t, _, _ in found], truth)
    print(f"{name} ({label}): found {[(round(t, 1), a, b) for t, a, b in found]}, true "
          f"{[(round(t, 1), a, b) for t, a, b in clip.changes]}; F1 "
          + " ".join(f"{s.tolerance:g}s {s.f1:.2f}" for s in scores) + f", GEB+ average {average:.2f}")
    assert [(a, b) for _, a, b in found] == [(a, b) for _, a, b in clip.changes], found
    assert next(s for s in scores if s.tolerance == 1.0).f1 == 1.0
    return average


@pytest.mark.parametrize("name", list(CLIPS))
def test_the_drawn_figures_keypoints_give_the_true_statuses(clip, name):
    """The rules on perfect keypoints (the figure's joints as drawn), sampled at 5 a second."""
    c = clip(name)
    times = np.arange(0, c.duration - 1e-6, 0.2)
    found = statuses(times, true_keypoints(c, times))
    right = np.mean([s == c.status_at(t) for t, s in zip(times, found)])
    assert right >= 0.9, list(zip(times.round(1), found))
    check_changes(name, status_changes(times, found, 1.0), c, "drawn keypoints")


@pytest.fixture(scope="module")
def engine():
    from videoreview.engines.poses.movenet import MoveNetEngine

    return MoveNetEngine()


@pytest.mark.models
def test_movenet_engine_finds_the_person_in_a_photograph(engine):
    from caption_set import photo

    assert (engine.name, engine.kind) == ("movenet", "poses") and engine.version.startswith("1-c16c27a418bc")
    (found,) = engine.people(photo("astronaut"))  # 512x512: letterboxed into 256x256
    assert 0.4 <= found.score <= 1 and found.keypoints.shape == (17, 3) and found.keypoints.dtype == np.float32
    x, y, w, h = found.box
    nose = found.keypoints[KEYPOINTS.index("nose")]
    assert nose[2] > 0.3 and x <= nose[0] <= x + w and y <= nose[1] <= y + h
    assert engine.people(photo("coffee")) == []
    engine.release()
    assert engine.people(np.zeros((90, 160, 3), np.uint8)) == []  # loads again; 16:9 into 256x160


@pytest.mark.models
@pytest.mark.parametrize("name", list(CLIPS))
def test_movenet_statuses_on_the_clips_change_when_the_truth_does(clip, engine, name):
    """MoveNet sees the drawn figure (the person in nearly every sample, its keypoints near the
    drawn joints) and its keypoints give the true status changes."""
    c = clip(name)
    times, keypoints, ms = read_people(engine, c, rate=5.0)
    seen = [k is not None for k in keypoints]
    assert np.mean(seen) >= 0.85, name
    drawn = true_keypoints(c, times)
    errors = [np.median(np.linalg.norm(k[:, :2] - d[:, :2], axis=1)) for k, d in zip(keypoints, drawn) if k is not None]
    assert np.median(errors) < 0.06 * c.height, (name, np.median(errors))  # the median point, pixels
    found = statuses(times, keypoints)
    right = np.mean([s == c.status_at(t) for t, s in zip(times, found)])
    assert right >= 0.85, list(zip(times.round(1), found))
    check_changes(name, status_changes(times, found, 1.0), c, f"MoveNet, {np.median(ms[1:]):.1f} ms a frame")
