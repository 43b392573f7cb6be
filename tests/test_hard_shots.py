"""The hard-shot clips (hard_shots.py): each decodes to the frames it claims, and its ground
truth agrees with what the frames show (cuts where the picture jumps, dissolves that blend,
the events of the one-shot clips where they are said to be)."""

from __future__ import annotations

import av
import numpy as np
import pytest

import hard_shots as HS
import videos as V


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    """Each clip made once for the module, when a test first asks for it."""
    folder = tmp_path_factory.mktemp("hard shots")
    made: dict[str, V.SyntheticVideo] = {}

    def get(name: str) -> V.SyntheticVideo:
        if name not in made:
            made[name] = HS.HARD_SHOTS[name](folder)
        return made[name]

    return get


def small_frames(path, size=(64, 36)) -> np.ndarray:
    """Every frame, shrunk: float32 (n, h, w, 3)."""
    with av.open(str(path)) as container:
        return np.stack([f.to_ndarray(format="rgb24", width=size[0], height=size[1])
                         for f in container.decode(video=0)]).astype(np.float32)


def steps(frames: np.ndarray) -> np.ndarray:
    """Mean absolute difference of each frame from the one before (index i: frame i+1)."""
    return np.abs(np.diff(frames, axis=0)).mean(axis=(1, 2, 3))


def luma(frames: np.ndarray) -> np.ndarray:
    return frames @ np.float32([0.299, 0.587, 0.114])


def test_the_set():
    assert set(HS.HARD_SHOTS) == set(HS.MOTION_CLIPS) | set(HS.CUT_CLIPS)
    assert not set(HS.MOTION_CLIPS) & set(HS.CUT_CLIPS)


@pytest.mark.parametrize("name", list(HS.HARD_SHOTS))
def test_decodes_with_the_frames_claimed(clips, name):
    v = clips(name)
    assert V.ffprobe_decoded_frames(v.path) == v.frame_count
    with av.open(str(v.path)) as container:
        stream = container.streams.video[0]
        assert (stream.codec_context.width, stream.codec_context.height) == v.size
        assert stream.codec_context.name == v.codec
        assert float(stream.average_rate) == pytest.approx(v.fps, rel=1e-3)
    assert len(v.times) == v.frame_count
    assert 6.0 <= v.duration <= 11.0


@pytest.mark.parametrize("name", list(HS.HARD_SHOTS))
def test_ground_truth_is_consistent(clips, name):
    v = clips(name)
    assert np.allclose(np.diff(v.times), 1 / v.fps)
    cuts = list(v.cut_frames)
    assert cuts == sorted(set(cuts)) and all(0 < c < v.frame_count for c in cuts)
    spans = list(v.gradual)
    for (a, b), nxt in zip(spans, spans[1:] + [(v.duration, v.duration)]):
        assert 0 < a < b <= nxt[0] <= v.duration
    assert not any(a <= t < b for t in v.cut_times for a, b in spans)
    assert all(0 <= t < v.duration for t in v.events.values())
    if name in HS.MOTION_CLIPS:
        assert not cuts and not spans and v.events
    else:
        assert cuts or spans


def test_the_reported_case_is_an_mjpeg_avi_with_bubbles_in_its_last_half_second(clips):
    v = clips("bubbles_late")
    assert v.path.suffix == ".avi" and v.codec == "mjpeg" and v.size == (640, 480)
    assert v.duration - 0.5 <= v.events["burst"] < v.duration - 0.4


@pytest.mark.parametrize("name", ["bubbles", "bubbles_late"])
def test_the_bubbles_fill_the_frame(clips, name):
    v = clips(name)
    y = luma(small_frames(v.path, (160, 90)))
    burst = round(v.events["burst"] * v.fps)
    before = y[burst - 1]

    def covered(k: int) -> float:  # the bubbles' silver whitens what they cover
        return float((y[k] > before + 12).mean())

    assert covered(burst - 2) < 0.02
    # The burst starts small and covers most of the picture within about half a second.
    assert covered(burst) < 0.15
    assert covered(min(burst + round(0.5 * v.fps), v.frame_count - 1)) > 0.7
    assert covered(v.frame_count - 1) > 0.7


def test_the_smoke_covers_most_of_the_picture_then_thins(clips):
    v = clips("smoke")
    f = small_frames(v.path, (160, 90))
    grey = (f.max(-1) - f.min(-1) < 40) & (f.mean(-1) > 110)  # smoke: light, hardly any colour
    k = {name: round(t * v.fps) for name, t in v.events.items()}
    assert grey[0].mean() < 0.1
    thick = grey[k["thick"] + 2:k["thin"]].mean(axis=(1, 2))
    assert thick.min() > 0.6
    assert grey[-1].mean() < 0.3


def test_the_flashes_light_one_to_three_frames(clips):
    v = clips("flash")
    y = luma(small_frames(v.path)).mean(axis=(1, 2))
    base = np.median(y)
    lit = set(np.flatnonzero(y > base + 25))
    first, second = (round(v.events[k] * v.fps) for k in ("flash1", "flash2"))
    assert lit == {first, second, second + 1, second + 2}
    assert y[first] > base + 60 and y[second + 1] > base + 60


def test_the_passer_by_hides_everything_for_a_few_frames(clips):
    v = clips("close_pass")
    f = small_frames(v.path)
    y = luma(f)
    start, covered = (round(v.events[k] * v.fps) for k in ("pass", "covered"))
    dark = np.flatnonzero(y.max(axis=(1, 2)) < 60)
    assert len(dark) >= 2 and dark[0] == covered and np.all(np.diff(dark) == 1)
    assert start < covered < start + round(0.5 * v.fps)
    # Before and after: the same shot (it moves little), not another one.
    assert np.abs(f[start - 1] - f[start + round(0.6 * v.fps)]).mean() < 12


def test_the_whip_pan_blurs_from_one_part_of_the_scene_to_another(clips):
    v = clips("whip_pan")
    f = small_frames(v.path, (160, 90))
    whip, settled = (round(v.events[k] * v.fps) for k in ("whip", "settled"))
    sharp = np.abs(np.diff(luma(f), axis=2)).mean(axis=(1, 2))  # horizontal detail
    middle = (whip + settled) // 2
    assert sharp[middle] < 0.4 * sharp[whip - 2]
    assert np.abs(f[whip - 1] - f[settled + 5]).mean() > 25


@pytest.mark.parametrize("name", ["two_cameras", "cut_in_motion"])
def test_the_picture_jumps_at_each_cut_and_only_there(clips, name):
    v = clips(name)
    d = steps(small_frames(v.path))
    at_cuts = d[np.array(v.cut_frames) - 1]
    inside = np.delete(d, np.array(v.cut_frames) - 1)
    assert at_cuts.min() > 1.5 * inside.max()
    if name == "cut_in_motion":  # and the shots do move fast
        assert np.median(inside) > 8


def test_two_cameras_keep_the_colours(clips):
    v = clips("two_cameras")
    f = small_frames(v.path)
    means = f.mean(axis=(1, 2))
    for c in v.cut_frames:
        assert np.abs(means[c] - means[c - 1]).max() < 20


def test_the_dissolves_blend_slowly(clips):
    v = clips("slow_dissolves")
    f = small_frames(v.path)
    d = steps(f)
    frames = [round((b - a) * v.fps) for a, b in v.gradual]
    assert frames == [round(s * v.fps) for s in (1.0, 2.0, 1.5)]
    for a, b in v.gradual:
        start, end = round(a * v.fps), round(b * v.fps)
        jump = np.abs(f[end] - f[start - 1]).mean()
        assert jump > 15
        assert d[start - 1:end].max() < 0.25 * jump
