"""The plan of an analysis (pipeline/plan.py): the stages' declared costs added up for a
video, a budget met by coarser rates, and the plan kept in the Analysis with the seconds
each stage spent. The wiring runs the fake engines (fake_engines.py) on a real clip."""

import json
from types import SimpleNamespace

import pytest

from fake_engines import ENGINES
from helpers import fake_home, run
from videoreview.pipeline import StageCache, analyze, build_stages
from videoreview.pipeline.plan import make_plan
from videoreview.pipeline.stages.cost import StageCost
from videoreview.records import Analysis, VideoInfo
from videos import make_cuts_video

MINUTE = VideoInfo(path="x.mp4", duration=60.0, fps=25.0, frame_count=1500, width=640, height=360)


def stage(name, cost, rate=None):
    return SimpleNamespace(name=name, cost=cost, sample_rate=rate)


STAGES = [stage("cuts", StageCost(0.002, unit="decoded")),
          stage("looks", StageCost(0.05, load=0.5, coarse_rate=0.5), rate=2.0),
          stage("bodies", StageCost(0.01, needs="person", coarse_rate=3.0), rate=5.0),
          stage("labels", StageCost(0.04), rate=1.0),
          stage("talk", StageCost(0.1, needs="voice", unit="audio", beside=True))]


def by_name(plan):
    return {p.stage: p for p in plan.stages}


def test_the_plan_adds_up_each_stages_declared_cost():
    plan = make_plan(MINUTE, STAGES, cores=2)
    rows = by_name(plan)
    assert rows["cuts"].estimated == pytest.approx(1500 * 0.002)
    assert rows["looks"].estimated == pytest.approx(60 * 2 * 0.05 + 0.5)
    assert rows["bodies"].needs == "person"
    assert rows["talk"].note == "no sound track" and rows["talk"].estimated == 0
    assert plan.budget is None and all(p.rate == p.default_rate for p in plan.stages)
    assert plan.estimated == pytest.approx(plan.decode_estimated + 3.0 + 6.5 + 3.0 + 2.4, abs=0.02)
    # twice the cores, half the seconds
    assert make_plan(MINUTE, STAGES, cores=4).estimated == pytest.approx(plan.estimated / 2, abs=0.02)


def test_cached_stages_cost_nothing_and_sound_is_planned_where_there_is_some():
    plan = make_plan(VideoInfo(**{**MINUTE.to_dict(), "has_audio": True}), STAGES, cores=2, cached={"looks"})
    rows = by_name(plan)
    assert rows["looks"].note == "from the cache" and rows["looks"].estimated == 0
    assert rows["talk"].estimated == pytest.approx(6.0) and rows["talk"].beside
    assert plan.estimated == pytest.approx(plan.decode_estimated + 3.0 + 3.0 + 2.4, abs=0.02)  # speech beside


def test_a_budget_lowers_only_the_stages_that_may_go_coarser_and_no_further_than_they_may():
    fits = make_plan(MINUTE, STAGES, cores=2, speed=1.0)  # 60 s: everything fits
    assert all(p.rate == p.default_rate for p in fits.stages)
    tight = make_plan(MINUTE, STAGES, cores=2, speed=6.0)  # 10 s for ~15 s of work
    rows = by_name(tight)
    assert tight.budget == pytest.approx(10.0)
    assert rows["labels"].rate == 1.0 and rows["cuts"].rate is None  # no coarse rate declared
    assert 0.5 <= rows["looks"].rate < 2.0 and 3.0 <= rows["bodies"].rate < 5.0
    assert "coarse" in rows["looks"].note
    assert tight.estimated < make_plan(MINUTE, STAGES, cores=2).estimated
    floor = by_name(make_plan(MINUTE, STAGES, cores=2, speed=1000.0))
    assert floor["looks"].rate == 0.5 and floor["bodies"].rate == 3.0  # the budget cannot be met: as coarse as allowed


@pytest.fixture(scope="module")
def cuts(tmp_path_factory):
    return make_cuts_video(tmp_path_factory.mktemp("plan"))


def test_the_analysis_keeps_its_plan_with_the_seconds_each_stage_spent(cuts, tmp_path):
    cache = StageCache(tmp_path / "cache")
    first = analyze(cuts.path, ENGINES, cache=cache)
    rows = by_name(first.plan)
    assert list(rows) == [s.name for s in build_stages(ENGINES)]
    assert all(p.spent is not None and p.spent >= 0 for p in first.plan.stages)
    assert first.plan.spent >= max(p.spent for p in first.plan.stages if not p.beside)
    assert Analysis.from_dict(json.loads(first.to_json())).plan == first.plan
    again = analyze(cuts.path, ENGINES, cache=cache)
    assert {p.stage for p in again.plan.stages if p.note == "from the cache"} == {
        "boundaries", "faces", "objects", "poses", "speech", "screen-text", "captions"}
    assert all(p.spent is None for p in again.plan.stages if p.note == "from the cache")


def test_a_budget_makes_stages_coarser_and_a_larger_one_computes_only_those_again(cuts, tmp_path):
    fast = analyze(cuts.path, ENGINES, cache=StageCache(tmp_path / "cache"), speed=1e6)
    rows = by_name(fast.plan)
    coarse = {p.stage for p in fast.plan.stages if p.rate != p.default_rate}
    assert coarse == {"faces", "expressions", "poses", "screen-text", "captions"}  # those declaring a coarse rate
    assert rows["captions"].rate == 0.5 and "coarse" in rows["captions"].note
    messages = []
    refined = analyze(cuts.path, ENGINES, cache=StageCache(tmp_path / "cache"),
                      progress=lambda s, f, m: messages.append((s, m)))
    from_cache = {s for s, m in messages if m == "from cache"}
    assert from_cache == {"boundaries", "objects", "speech", "speakers"}  # all but the coarse ones
    full = analyze(cuts.path, ENGINES, cache=StageCache(tmp_path / "other"))
    assert len(fast.captions) < len(full.captions) and refined.captions == full.captions
    # a budget does not stay with the stages, which the next video reuses
    stages = build_stages(ENGINES)
    analyze(cuts.path, cache=StageCache(tmp_path / "third"), stages=stages, speed=1e6)
    assert [getattr(s, "sample_rate", None) for s in stages] == [
        getattr(s, "sample_rate", None) for s in build_stages(ENGINES)]


def test_analyze_plan_prints_the_plan_and_analyses_nothing(cuts, tmp_path):
    home = fake_home(tmp_path / "home")
    proc = run("analyze", "--plan", "--speed", "4", "--engines", ",".join(f"{k}={v}" for k, v in ENGINES.items()),
               cuts.path, cwd=tmp_path, home=home)
    assert proc.returncode == 0, proc.stderr
    assert "plan for 9.6 s of video" in proc.stdout and "budget 2.4 s (4x realtime)" in proc.stdout
    for name in ("boundaries", "faces", "captions", "screen-text"):
        assert f"  {name}" in proc.stdout
    assert not list(tmp_path.glob("*.analysis.json"))
    bad = run("analyze", "--plan", str(tmp_path / "missing.mp4"), home=home)
    assert bad.returncode != 0 and "missing.mp4" in bad.stderr
