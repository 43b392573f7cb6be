"""The CPU's cascade in front of TransNetV2 (engines/boundaries/cascade.py), the merging of
its clear cuts, and the sampled features that skip what the event detector never reads.
No model runs here: the frames are drawn."""

import numpy as np

from videoreview.engines.boundaries.builtin import with_clear_cuts, with_half_rate_dissolves
from videoreview.engines.boundaries.cascade import Cascade, ClearCut, Thresholds
from videoreview.engines.boundaries.sampled import SampledFeatures
from videoreview.engines.boundaries.transnet import Transition
from videoreview.engines.boundaries.whip import is_whip

H, W = 27, 48


def textured(seed: int, n: int, motion: float = 0.3, noise: float = 2.0) -> np.ndarray:
    """A smooth random picture the camera pans over by ``motion`` px a frame (drawn at 4x
    and shrunk, so the motion is smooth), with sensor noise."""
    import cv2

    rng = np.random.default_rng(seed)
    coarse = rng.integers(0, 256, (6, 10, 3)).astype(np.float32)
    world = cv2.resize(coarse, (W * 16, H * 16), interpolation=cv2.INTER_CUBIC)
    frames = []
    for i in range(n):
        x, y = int(i * motion * 4), int(i * motion * 2)
        big = world[y:y + H * 4, x:x + W * 4]
        frame = cv2.resize(big, (W, H), interpolation=cv2.INTER_AREA) + rng.normal(0, noise, (H, W, 3))
        frames.append(np.clip(frame, 0, 255))
    return np.array(frames, np.uint8)


def panned(seed: int, positions, noise: float = 2.0) -> np.ndarray:
    """A finer random picture than ``textured``'s, seen by a camera at ``positions`` (px,
    along x), each frame with its own sensor noise."""
    import cv2

    rng = np.random.default_rng(seed)
    coarse = rng.integers(0, 256, (12, 20, 3)).astype(np.float32)
    world = cv2.resize(coarse, (W * 16, H * 16), interpolation=cv2.INTER_CUBIC)
    frames = []
    for x in positions:
        big = world[:H * 4, int(round(x * 4)):int(round(x * 4)) + W * 4]
        frames.append(np.clip(cv2.resize(big, (W, H), interpolation=cv2.INTER_AREA) + rng.normal(0, noise, (H, W, 3)),
                              0, 255))
    return np.array(frames, np.uint8)


def run(frames: np.ndarray, chunk: int = 60, thresholds: Thresholds | None = None
        ) -> tuple[Cascade, np.ndarray, np.ndarray]:
    cascade, out, marks = Cascade(thresholds or Thresholds()), [], []
    for i in range(0, len(frames), chunk):
        marked = cascade.push(frames[i:i + chunk])
        out.append(marked.frames)
        marks.append(marked.marks)
    marked = cascade.finish()
    return cascade, np.concatenate(out + [marked.frames]), np.concatenate(marks + [marked.marks])


def test_a_hard_cut_is_clear_and_needs_no_window():
    frames = np.concatenate([textured(1, 100, motion=0.1), textured(2, 100, motion=0.1)])
    cascade, out, marks = run(frames)
    assert np.array_equal(out, frames)
    assert [cut.frame for cut in cascade.clear_cuts] == [100]
    assert not marks.any()


def test_two_clear_cuts_two_frames_apart_are_one_cut():
    """A cut whose first picture stays for two frames before the next change (a 3D
    render's cut in the corpus): the second jump is the same cut, not a second one."""
    a, b, c = panned(1, np.zeros(60)), panned(2, np.zeros(1)), panned(3, np.zeros(60))
    frames = np.concatenate([a, b, b, c])
    cascade, _, marks = run(frames)
    assert [cut.frame for cut in cascade.clear_cuts] == [60]
    assert not marks.any()


def test_chunks_do_not_change_the_answer():
    frames = np.concatenate([textured(1, 70), textured(2, 45), textured(3, 90)])
    frames[150:152] = np.clip(frames[150:152].astype(int) + 120, 0, 255)  # a flash
    answers = []
    for chunk in (1, 7, 60, 1000):
        cascade, out, marks = run(frames, chunk)
        assert len(out) == len(frames)
        answers.append(([c.frame for c in cascade.clear_cuts], np.flatnonzero(marks).tolist()))
    assert all(a == answers[0] for a in answers)
    assert answers[0][0] == [70, 115]


def test_a_flash_is_no_clear_cut_but_a_candidate():
    frames = textured(1, 120)
    frames[60:62] = np.clip(frames[60:62].astype(int) + 150, 0, 255)
    cascade, _, marks = run(frames)
    assert cascade.clear_cuts == []
    assert marks[58:64].any()


def test_a_dissolve_is_a_candidate_and_shake_no_clear_cut():
    a, b = textured(1, 60).astype(np.float32), textured(2, 60).astype(np.float32)
    fade = np.linspace(0, 1, 20)[:, None, None, None]
    dissolve = np.concatenate([a[:40], a[40:] * (1 - fade) + b[:20] * fade, b[20:]]).astype(np.uint8)
    cascade, _, marks = run(dissolve)
    assert cascade.clear_cuts == [] and marks[40:60].any()

    rng = np.random.default_rng(3)
    world = textured(4, 1, noise=0)[0]
    shake = np.array([np.roll(world, tuple(rng.integers(-3, 4, 2)), (0, 1)) for _ in range(150)])
    cascade, _, marks = run(shake)
    assert cascade.clear_cuts == [] and marks.mean() < 0.2  # a few peaks of the shake: TransNetV2 decides


def test_a_still_picture_needs_nothing():
    cascade, _, marks = run(textured(1, 200, motion=0))
    assert cascade.clear_cuts == [] and not marks.any() and cascade.candidates == 0


def test_a_pan_drawn_on_twos_is_no_candidate():
    """Each picture held for two frames (a cartoon on twos, a render padded to the video's
    rate): the held frames are no calm, so the picture that follows is no spike."""
    frames = np.repeat(panned(1, np.arange(100) * 1.5), 2, axis=0)
    cascade, _, marks = run(frames)
    assert cascade.clear_cuts == [] and not marks.any()
    _, _, marks = run(frames, thresholds=Thresholds(held=0.0))  # held frames taken for calm
    assert marks.sum() > 50


def test_an_eased_camera_move_in_a_still_shot_is_no_candidate():
    """A burst of motion of 12 frames: its frames stand out of the calm around them, but
    each has both neighbours at 60 % of it or more."""
    speeds = np.r_[np.zeros(60), [0.3, 0.8, 1.5, 2.5, 3.5, 4, 4, 3.5, 2.5, 1.5, 0.8, 0.3], np.zeros(60)]
    frames = panned(2, np.cumsum(speeds))
    cascade, _, marks = run(frames)
    assert cascade.clear_cuts == [] and not marks.any()
    _, _, marks = run(frames, thresholds=Thresholds(plateau=1e9))  # every burst a candidate
    assert marks[60:72].any()


def test_a_burst_next_to_a_clear_cut_stays_a_candidate():
    """A clear cut by its score, one calm frame, then a burst of motion: the burst may be
    what made the score (chaotic motion, a glitch), so its frames stay candidates and the
    window TransNetV2 runs over them judges the clear cut too (builtin.with_clear_cuts)."""
    speeds = np.r_[0, 0, 5, 4, 3.5, 2.5, 1.5, 0.8, 0.3, np.zeros(60)]
    frames = np.concatenate([panned(5, np.zeros(60)), panned(6, 20 + np.cumsum(speeds))])
    cascade, _, marks = run(frames)
    assert [cut.frame for cut in cascade.clear_cuts] == [60]
    assert np.flatnonzero(marks).tolist() == [63, 64]  # both a burst by the neighbours' test


def test_a_fade_from_black_stays_a_candidate():
    """A grey picture fading in from black at the start, its steps alike: a burst by the
    neighbours' test, but the black next to it makes it a fade, which TransNetV2 judges."""
    grey = panned(4, [3.0], noise=0)[0].mean(axis=2, keepdims=True) * 0.6 + 40 + np.array([4, 0, -4])
    ramp = np.r_[np.linspace(0, 1, 6), np.ones(80)][:, None, None, None]
    noise = np.random.default_rng(0).normal(0, 1.0, (len(ramp), H, W, 3)) * (ramp > 0)
    frames = np.clip(grey[None] * ramp + noise, 0, 255).astype(np.uint8)
    _, _, marks = run(frames)
    assert np.flatnonzero(marks).tolist() == [1, 2]
    _, _, marks = run(frames, thresholds=Thresholds(dark=0.0))
    assert np.flatnonzero(marks).tolist() == [1]


def test_clear_cuts_stand_only_where_transnet_did_not_look():
    times = np.arange(400) / 25
    found = [Transition(199, 199, 200, times[200], 0.9, "cut")]
    cuts = [ClearCut(50, 60.0, 9.0), ClearCut(201, 60.0, 9.0), ClearCut(300, 60.0, 9.0)]
    covered = np.zeros(400, bool)
    covered[280:330] = True  # TransNetV2 looked at the third and saw nothing there
    merged = with_clear_cuts(found, cuts, covered, times)
    assert [(t.frame, t.kind) for t in merged] == [(50, "cut"), (200, "cut")]
    assert merged[0].peak == 0.9 and (merged[0].start, merged[0].end) == (49, 49)


def test_sampled_features_skip_only_samples_near_a_transition():
    calls = []

    def extract(pictures):
        calls.append(len(pictures))
        return pictures.reshape(len(pictures), -1)[:, :4].astype(np.float32) + 1

    samples = SampledFeatures(extract, guard=0.5, same=None)  # every picture counts as new here
    frames = np.arange(0, 100, 5)
    times = frames / 25.0  # a sample every 0.2 s
    pictures = np.stack([np.full((2, 2, 3), f, np.uint8) for f in frames])
    samples.add(frames[:10], times[:10], pictures[:10])
    samples.transitions_at([1.0])  # a cut at 1.0 s
    samples.settle(1.3)  # nothing yet: the samples up to 0.8 s may still have a cut near
    assert calls == [] or sum(calls) <= 3
    samples.add(frames[10:], times[10:], pictures[10:])
    frames_out, times_out, features = samples.result()
    assert np.array_equal(frames_out, frames) and np.array_equal(times_out, times)
    near = np.abs(times - 1.0) < 0.5
    assert not features[near].any() and features[~near].all()
    assert samples.skipped == near.sum() and sum(calls) == (~near).sum()


def test_a_whip_is_a_smooth_dip_in_anisotropy_and_a_cut_a_step():
    flat = np.full(60, 0.1)
    whip = flat.copy()
    whip[25:35] -= np.r_[0.2, 0.35, 0.5, 0.6, 0.65, 0.6, 0.5, 0.35, 0.2, 0.1]  # blur comes and goes
    assert is_whip(whip, 30)
    assert is_whip(-whip, 30)  # a vertical whip: the other way round
    step = np.r_[np.full(30, 0.1), np.full(30, 0.9)]
    assert not is_whip(step, 30)
    short_shot = flat.copy()
    short_shot[25:35] = -0.5  # ten frames of another shot between two cuts
    assert not is_whip(short_shot, 25) and not is_whip(short_shot, 35)
    assert not is_whip(whip, 3)  # too near the start to know the level before


def test_half_rate_dissolves_land_on_full_rate_frames_and_never_twice():
    times = np.arange(300) / 25
    half = np.zeros((150, 2), np.float32)
    half[40:50] = (0.45, 0.9)  # a dissolve over half-rate rows 40-49: full-rate frames 80-99
    half[120:122] = (0.9, 0.9)  # a cut at half rate: not taken (cuts come from full rate)
    merged = with_half_rate_dissolves([], half, times)
    assert [(t.kind, t.start, t.end, t.frame) for t in merged] == [("gradual", 80, 99, 90)]
    assert merged[0].time == times[90]
    found = [Transition(85, 95, 90, times[90], 0.8, "gradual")]
    assert with_half_rate_dissolves(found, half, times) == found
