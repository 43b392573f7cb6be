"""The per-shot caption plan (pipeline/caption_plan.py) on its own, and through the real
captions stage with tiny models of every VLM family built and taught here.

The tiny models are taught (tiny_vlm.teach) the per-shot prompts: a window of solid red or
blue frames is captioned "a red frame." frame by frame, and a boundary from 2 frames before,
1 at and 2 after answers "Subject: the frame / Before: red / After: blue"; so a
caption or a boundary caption is only right when the plan's frames reach the model. The clip
is real (encoded, then decoded by the pipeline): 8 s of red, a cut, 3 s of blue; the fake
boundaries engine (fake_engines.py) finds the cut. Which windows a budget buys depends only on
the budget's extremes here (nothing, one window, everything), never on how fast this machine is.
"""

from __future__ import annotations

import io
import shutil

import pytest

import tiny_vlm
from fake_engines import FAKE
from tiny_vlm import colour_frame
from videoreview.engines.captions.vlm import FAMILIES
from videoreview.pipeline.caption_plan import (
    BUDGET_PER_VIDEO_SECOND,
    Costs,
    Job,
    plan_line,
    plan_mode,
    plan_per_shot,
    spread,
)

FPS = 10
RED_SECONDS, BLUE_SECONDS = 8, 3
CUT = RED_SECONDS * FPS  # the frame the blue shot starts at


# -- the plan on its own -------------------------------------------------------------------

def windows(plan) -> list[tuple[int, ...]]:
    return [job.samples for job in plan.windows]


def test_spread_takes_the_middle_of_equal_stretches_or_everything():
    assert spread(list(range(8)), 6) == (0, 2, 3, 4, 6, 7)
    assert spread(list(range(10)), 2) == (2, 7)
    assert spread([4, 9, 12], 1) == (9,)
    assert spread([4, 9], 6) == (4, 9)


def test_a_loose_budget_buys_a_window_a_shot_then_the_boundaries_then_every_sample():
    shots = [list(range(8)), [8, 9, 10]]
    plan = plan_per_shot(shots, [80], budget=1000.0, costs=Costs(frame=1.0, boundary=5.0))
    assert [job.kind for job in plan.jobs] == ["window", "window", "boundary", "window"]
    assert windows(plan) == [(0, 2, 3, 4, 6, 7), (8, 9, 10), (1, 5)]  # the long shot's unseen samples last
    assert plan.boundaries[0].boundary == 80 and plan.estimated == 16.0
    assert sorted(s for w in windows(plan) for s in w) == list(range(11))


def test_a_tight_budget_gives_every_shot_a_pair_before_any_shot_more():
    shots = [list(range(10)), list(range(10, 14)), [14]]  # 10, 4 and 1 samples
    plan = plan_per_shot(shots, [10, 14], budget=5.0, costs=Costs(frame=1.0, boundary=5.0))
    assert windows(plan) == [(2, 7), (11, 13), (14,)]
    assert not plan.boundaries and plan.estimated == 5.0
    # one frame more: the longest shot's window grows first
    plan = plan_per_shot(shots, [10, 14], budget=6.0, costs=Costs(frame=1.0, boundary=5.0))
    assert [len(w) for w in windows(plan)] == [3, 2, 1]


def test_windows_never_shrink_and_boundaries_come_before_more_windows_as_the_budget_grows():
    shots = [list(range(30)), list(range(30, 42)), list(range(42, 45))]
    costs = Costs(frame=1.0, boundary=4.0)
    counts = []
    for budget in range(0, 80, 3):
        plan = plan_per_shot(shots, [30, 42], float(budget), costs)
        assert plan.estimated <= budget
        counts.append((len(plan.windows), len(plan.boundaries), plan.estimated))
    for column in zip(*counts):  # a looser budget: as many windows and boundaries at least, and more time
        assert list(column) == sorted(column)
    assert counts[0] == (0, 0, 0) and counts[-1] == (8, 2, 53.0)  # 0 s: nothing; 78 s: every sample, 45 frames
    full = plan_per_shot(shots, [30, 42], 15.0, costs)  # 6 + 6 + 3 frames: every shot's first window
    assert [len(w) for w in windows(full)] == [6, 6, 3] and not full.boundaries
    assert len(plan_per_shot(shots, [30, 42], 23.0, costs).boundaries) == 2  # then the boundaries, in order


def test_a_positive_budget_always_buys_the_longest_shots_first_window_and_zero_buys_nothing():
    shots = [[0, 1], list(range(2, 9))]
    plan = plan_per_shot(shots, [2], budget=0.01, costs=Costs(frame=10.0, boundary=50.0))
    assert windows(plan) == [spread(range(2, 9), 2)] and plan.estimated == 20.0
    assert plan_per_shot(shots, [2], budget=0.0, costs=Costs(0.0, 0.0)).jobs == ()


def test_made_again_the_plan_keeps_what_was_asked_and_counts_what_it_took():
    shots = [list(range(8)), [8, 9, 10]]
    first = Job("window", shot=0, samples=(0, 2, 3, 4, 6, 7))
    # what was asked took longer than the budget: nothing more
    assert plan_per_shot(shots, [80], 10.0, Costs(1.0, 5.0), done=[first], spent=12.0).jobs == (first,)
    plan = plan_per_shot(shots, [80], 9.0, Costs(1.0, 5.0), done=[first], spent=6.0)
    assert plan.jobs[0] == first and windows(plan)[1:] == [(8, 9, 10)] and plan.estimated == 9.0
    # the first window's shot is not given a first window again
    plan = plan_per_shot(shots, [80], 100.0, Costs(1.0, 5.0), done=[first], spent=6.0)
    assert windows(plan) == [first.samples, (8, 9, 10), (1, 5)] and len(plan.boundaries) == 1


def test_a_boundary_that_does_not_fit_leaves_room_for_a_cheaper_window():
    shots = [list(range(8))]
    plan = plan_per_shot(shots, [5], budget=8.0, costs=Costs(frame=1.0, boundary=5.0))
    assert not plan.boundaries and windows(plan) == [(0, 2, 3, 4, 6, 7), (1, 5)]


def test_the_mode_follows_the_device_and_the_plan_reads_as_a_line():
    assert [plan_mode(d) for d in ("cpu", "mps", "cuda", "cuda:1", "server")] == \
        ["per-shot", "per-shot", "dense", "dense", "dense"]
    assert BUDGET_PER_VIDEO_SECOND == 0.5
    plan = plan_per_shot([list(range(8)), [8, 9, 10]], [80], 20.0, Costs(1.0, 5.0))
    assert plan_line("smolvlm2-256m-video-instruct", 2, plan, 20.0) == \
        "smolvlm2-256m-video-instruct per shot, 2 shots, 3 windows (11 frames), 1 boundary, about 16 s of 20 s budget"


# -- through the real stage, with tiny models ---------------------------------------------

def shot_lessons():
    """What the per-shot models answer: a window of red or blue frames (of the sizes the clip's
    plans ask for: 6, 3 and 2), and a boundary from 2 frames of one of them then 3 of the
    other. Only what the tests ask is taught: six families learn it in one go, and a machine
    shared with other work took 16 minutes for three times as many lessons."""
    from videoreview.engines.captions.prompts import SHOT_BOUNDARY_WORDS, boundary_prompt, shot_caption_prompt

    lessons = []
    for colour in ("red", "blue"):
        for k in (2, 3, 6):
            lessons.append(([colour_frame(colour)] * k, shot_caption_prompt(k),
                            "\n".join(f"<Frame {i}>: a {colour} frame." for i in range(1, k + 1))))
    for a, b in (("red", "blue"), ("blue", "red")):
        lessons.append(([colour_frame(a)] * 2 + [colour_frame(b)] * 3, boundary_prompt(2, 2, words=SHOT_BOUNDARY_WORDS),
                        f"Subject: the frame\nBefore: {a}\nAfter: {b}"))
    return lessons


def taught_one(family: str, folder):
    import torch

    torch.set_num_threads(1)  # the families side by side, one core each (tiny_vlm.taught_in_parallel)
    tiny_vlm.build(family, folder)
    tiny_vlm.teach(folder, shot_lessons(), steps=1000, lr=1e-3)
    return folder


def _teach_all(into):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(len(FAMILIES), mp_context=multiprocessing.get_context("spawn")) as pool:
        for job in [pool.submit(taught_one, family, into / family) for family in FAMILIES]:
            job.result()


@pytest.fixture(scope="session")
def shot_taught():
    """family -> a tiny model taught the per-shot lessons, kept between sessions (cached.py)."""
    from cached import cached
    from videoreview.engines.captions import prompts, vlm

    folder = cached("taught-per-shot", [tiny_vlm, vlm, prompts, shot_lessons, taught_one],
                    _teach_all, packages=("torch", "transformers", "tokenizers", "pillow", "numpy"),
                    arguments=tuple(FAMILIES))
    return {family: folder / family for family in FAMILIES}


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    from videos import encode_frames

    path = tmp_path_factory.mktemp("per-shot") / "red-then-blue.mp4"
    frames = [colour_frame("red")] * (RED_SECONDS * FPS) + [colour_frame("blue")] * (BLUE_SECONDS * FPS)
    encode_frames(path, frames, FPS)
    return path


def per_shot_stages(folder, budget_per_second: float):
    """The fake boundaries and the VLM's captions stage, the plan per shot whatever the device."""
    from videoreview.pipeline import build_stages
    from videoreview.pipeline.stages.vlm_captions import VLMCaptionStage

    boundaries, vlm = build_stages({"boundaries": FAKE, "captions": f"vlm:{folder}"})
    return [boundaries, VLMCaptionStage(vlm.engine, vlm.builtin, mode="per-shot", budget_per_second=budget_per_second)]


def analyse(clip, stages, tmp_path, progress=None):
    from videoreview.pipeline import StageCache, analyze

    return analyze(clip, stages=stages, cache=StageCache(tmp_path / "cache"), progress=progress)


SAMPLES = list(range(0, (RED_SECONDS + BLUE_SECONDS) * FPS, FPS))  # 1 fps: frames 0, 10, ..., 100


@pytest.mark.slow  # teaching the six families takes minutes the first time (then cached)
@pytest.mark.parametrize("family", FAMILIES)
def test_a_loose_budget_captions_every_shot_the_boundary_and_then_every_sample(shot_taught, family, clip, tmp_path):
    from videoreview.records import Analysis

    analysis = analyse(clip, per_shot_stages(shot_taught[family], budget_per_second=1e6), tmp_path)
    vlm = analysis.engines["captions"]
    assert vlm.startswith(f"{family}:")
    plan = analysis.caption_plan
    assert plan.mode == "per-shot" and plan.engine == vlm and plan.budget == pytest.approx(1e6 * 11, rel=0.01)
    # the long red shot's first window (6 of its 8 samples spread), the blue shot's, the cut,
    # then the red shot's 2 samples no window had seen
    assert plan.windows == ((0, 20, 30, 40, 60, 70), (80, 90, 100), (10, 50))
    assert plan.boundaries == (CUT,) and plan.frames == tuple(SAMPLES)
    assert plan.spent > 0 and plan.estimated == pytest.approx(plan.spent)
    captions = sorted(analysis.captions, key=lambda c: c.time)
    assert [c.frame for c in captions] == SAMPLES
    assert [c.text for c in captions] == ["a red frame."] * RED_SECONDS + ["a blue frame."] * BLUE_SECONDS
    assert all(c.engine == vlm for c in captions)
    (cut,) = analysis.boundaries
    assert cut.frame == CUT and cut.caption.engine == vlm
    assert (cut.caption.subject, cut.caption.before, cut.caption.after) == ("the frame", "red", "blue")
    # keyframes are the builtin's selection: the model judged nothing
    assert analysis.keyframes and all("model judge" not in k.reason for k in analysis.keyframes)
    assert Analysis.from_dict(analysis.to_dict()) == analysis


@pytest.mark.slow
@pytest.mark.parametrize("family", ["smolvlm", "qwen3_5"])
def test_a_tight_budget_buys_one_window_and_the_other_frames_keep_the_builtins_facts(shot_taught, family, clip,
                                                                                     tmp_path):
    stages = per_shot_stages(shot_taught[family], budget_per_second=1e-4)  # 1 ms: less than any window takes
    lines = io.StringIO()
    from videoreview.cli.analyze import _with_plan_lines
    from videoreview.cli.progress import ProgressBar

    shown = ProgressBar(clip.name, stream=lines, stages=["probe", "boundaries", "captions"])  # a log, not a bar
    analysis = analyse(clip, stages, tmp_path, progress=_with_plan_lines(shown))
    vlm = analysis.engines["captions"]
    plan = analysis.caption_plan
    # Nothing was known of the model's cost before its first window: that window is the red
    # shot's whole (6 frames); measured, it spent the budget.
    assert plan.windows == ((0, 20, 30, 40, 60, 70),) and plan.boundaries == () and plan.frames == plan.windows[0]
    assert plan.spent > plan.budget
    seen = {c.frame: c for c in analysis.captions if c.frame in plan.frames}
    others = [c for c in analysis.captions if c.frame not in plan.frames]
    assert all(c.engine == vlm and c.text == "a red frame." for c in seen.values())
    assert len(others) == 5 and all(c.engine.startswith("builtin@") and "red frame" not in c.text for c in others)
    assert analysis.boundaries[0].caption.engine.startswith("builtin@")  # the cut: the builtin's before / after
    out = lines.getvalue().splitlines()
    assert f"{clip.name}: captions: {plan_line_of(analysis, vlm)}" in out
    assert f"{clip.name}: captions: window 1/1: 6 frames in" in "\n".join(out)


def plan_line_of(analysis, vlm: str) -> str:
    plan = analysis.caption_plan
    name = vlm.split("@")[0]
    return (f"{name} per shot, 2 shots, 1 window (6 frames), 0 boundaries, about {plan.estimated:.0f} s of "
            f"{plan.budget:.0f} s budget")


@pytest.mark.slow
def test_a_budget_of_nothing_asks_the_model_nothing(shot_taught, clip, tmp_path):
    stages = per_shot_stages(shot_taught["smolvlm"], budget_per_second=0.0)
    stages[1].engine.release()  # the registry's one engine of this name, maybe loaded by another test
    analysis = analyse(clip, stages, tmp_path)
    plan = analysis.caption_plan
    assert plan.mode == "per-shot" and plan.windows == () and plan.frames == () and plan.spent == 0
    assert all(c.engine.startswith("builtin@") for c in analysis.captions)
    assert stages[1].engine._model is None  # never even loaded


@pytest.mark.slow
def test_the_cache_key_follows_the_plan(shot_taught, clip, tmp_path):
    from videoreview.media import probe
    from videoreview.records import Analysis

    analysis = Analysis(video=probe(clip))
    loose, tight = per_shot_stages(shot_taught["smolvlm"], 1.0)[1], per_shot_stages(shot_taught["smolvlm"], 0.5)[1]
    assert loose.prepare(analysis) != tight.prepare(analysis)
    dense = per_shot_stages(shot_taught["smolvlm"], 1.0)[1]
    dense.mode = "dense"
    assert dense.prepare(analysis) != loose.prepare(analysis) and dense._plan == ("dense", None, None)


def test_a_model_that_will_not_load_leaves_the_builtin_captions(untrained, clip, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(untrained, broken)
    (broken / "model.safetensors").write_bytes(b"not weights")
    notices = []
    from videoreview.pipeline import StageCache, analyze

    analysis = analyze(clip, stages=per_shot_stages(broken, 1e6), cache=StageCache(tmp_path / "cache"),
                       notice=notices.append)
    assert analysis.engines["captions"].startswith("builtin@") and analysis.caption_plan is None
    assert len(notices) == 1 and str(broken) in notices[0] and "Instead: Captions: builtin" in notices[0]
