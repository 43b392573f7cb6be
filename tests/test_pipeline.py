"""The pipeline on real files: real decoder, real cache on disk; the fake engines
(fake_engines.py) where the wiring is checked, the builtin ones end to end (``models``)."""

import json
import os
import shutil
from dataclasses import replace
from unittest.mock import patch

import pytest

from fake_engines import ENGINES
from videoreview.errors import Cancelled, MediaError
from videoreview.media import open_video
from videoreview.metrics.boundaries import f1_at
from videoreview.pipeline import CancelToken, StageCache, analyze
from videoreview.pipeline.runner import stage_key
from videoreview.pipeline.stages import DEFAULT_ENGINES, build_stages
from videoreview.pipeline.stages.captions import CaptionResult
from videoreview.pipeline.stages.result import StageResult
from videoreview.pipeline.stages.speech import SpeechResult
from videoreview.pipeline.stages.vlm_captions import VLMCaptionResult
from videoreview.records import Analysis, Boundary
from videos import make_bad_inputs, make_cuts_video


@pytest.fixture(scope="module")
def cuts(tmp_path_factory):
    return make_cuts_video(tmp_path_factory.mktemp("pipeline"))


@pytest.fixture()
def cache(tmp_path):
    return StageCache(tmp_path / "cache")


def snapshot(root):
    """Every file under root with its bytes: to prove nothing changed."""
    return {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.models
def test_analyze_finds_the_cuts_and_records_engines(cuts, cache):
    events = []
    analysis = analyze(cuts.path, cache=cache, progress=lambda s, f, m: events.append((s, f)))
    found = [b.time for b in analysis.boundaries if b.kind == "cut"]
    assert f1_at(found, cuts.cut_times, 0.1).f1 == 1.0, (found, cuts.cut_times)
    assert analysis.engines["boundaries"].startswith("builtin@")
    assert analysis.video.frame_count == cuts.frame_count
    assert len(analysis.content_hash) == 64
    stages = [s for s, _ in events]
    assert stages[0] == "probe" and "boundaries" in stages
    fractions = [f for s, f in events if s == "boundaries"]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0


@pytest.mark.models
def test_one_decoding_pass_gives_each_stage_what_it_reads_alone(cuts, cache):
    """The stages that read frames at fixed times share one decoding pass; each one's
    result is the one its own pass gives, and the file is opened once."""
    stages = build_stages(DEFAULT_ENGINES)
    readers = [stage for stage in stages if not stage.cost.beside and not stage.after_earlier]
    assert {stage.name for stage in readers} == {"boundaries", "faces", "objects", "poses", "screen-text", "captions"}
    opened = []
    def counted(*args, **kwargs):
        opened.append(1)
        return open_video(*args, **kwargs)

    with patch("videoreview.pipeline.runner.open_video", side_effect=counted):
        analysis = analyze(cuts.path, cache=cache, use_cache=False, stages=stages)
    assert len(opened) == 1
    with open_video(cuts.path) as source:
        for stage in readers:
            alone = stage.compute(source, lambda fraction, message="": None, CancelToken())
            key = stage_key(stage, analysis.content_hash)
            assert json.loads(json.dumps(alone.to_json())) == cache.get(*key), stage.name


def test_second_run_and_moved_file_come_from_cache(cuts, cache, tmp_path):
    first = analyze(cuts.path, ENGINES, cache=cache)
    before = snapshot(cache.root)
    messages = []
    moved = tmp_path / "moved name ünï.mp4"
    shutil.copy(cuts.path, moved)
    second = analyze(moved, ENGINES, cache=cache, progress=lambda s, f, m: messages.append((s, m)))
    assert ("boundaries", "from cache") in messages
    assert second.boundaries == first.boundaries
    assert second.video.path == str(moved)
    # the only change to the cache is the hash index learning the new path
    after = snapshot(cache.root)
    assert {p: b for p, b in after.items() if p.name != "hash-index.json"} == \
        {p: b for p, b in before.items() if p.name != "hash-index.json"}


def test_changed_file_misses_the_cache(cuts, cache, tmp_path):
    analyze(cuts.path, ENGINES, cache=cache)
    other = make_cuts_video(tmp_path, cut_frames=(80,), frames=160, name="other.mp4")
    messages = []
    analysis = analyze(other.path, ENGINES, cache=cache, progress=lambda s, f, m: messages.append((s, m)))
    assert ("boundaries", "from cache") not in messages
    assert f1_at([b.time for b in analysis.boundaries if b.kind == "cut"], other.cut_times, 0.1).f1 == 1.0


def test_cancel_leaves_no_finished_stage(cuts, cache):
    token = CancelToken()

    def progress(stage, fraction, message):
        if stage == "boundaries" and 0 < fraction < 1:
            token.cancel()

    with pytest.raises(Cancelled):
        analyze(cuts.path, ENGINES, cache=cache, progress=progress, cancel=token)
    assert cache.entries() == []
    # and a later run is not disturbed by the cancelled one
    assert analyze(cuts.path, ENGINES, cache=cache).boundaries


def test_reviewer_edits_survive_a_rerun(cuts, cache):
    fresh = analyze(cuts.path, ENGINES, cache=cache)
    cut = next(b for b in fresh.boundaries if b.kind == "cut")
    moved = Boundary(time=cut.time + 0.04, frame=cut.frame + 1, kind="cut", confidence=1.0, edited=True)
    added = Boundary(time=0.8, frame=20, kind="event", confidence=1.0, edited=True)
    previous = fresh.with_boundaries([b for b in fresh.boundaries if b is not cut] + [moved, added])
    rerun = analyze(cuts.path, ENGINES, cache=cache, previous=previous)
    # (the captions stage gives the reviewer's boundaries a caption; they stay theirs)
    kept = [replace(b, caption=None) for b in rerun.boundaries]
    assert moved in kept and added in kept
    assert all(b.edited for b in rerun.boundaries if b.frame in (moved.frame, added.frame))
    assert cut not in kept  # the engine's version of the edited boundary gives way
    assert len(rerun.boundaries) == len(fresh.boundaries) + 1


def test_bad_inputs_raise_one_clear_error_and_touch_nothing(tmp_path, cuts, cache):
    analyze(cuts.path, ENGINES, cache=cache)
    before = snapshot(cache.root)
    for name, path in make_bad_inputs(tmp_path / "bad").items():
        with pytest.raises(MediaError) as err:
            analyze(path, ENGINES, cache=cache)
        assert os.fspath(path) in str(err.value), name
        assert err.value.reason, name
    assert snapshot(cache.root) == before


def test_damaged_cache_entry_is_recomputed(cuts, cache):
    analysis = analyze(cuts.path, ENGINES, cache=cache)
    (entry,) = [p for p in cache.entries() if "boundaries" in p.name]
    entry.write_text("{ half a fi")
    again = analyze(cuts.path, ENGINES, cache=cache)
    assert again.boundaries == analysis.boundaries
    assert Analysis.from_dict(again.to_dict()) == again


def test_each_stage_result_is_cached_as_json_its_result_type_reads_back(cuts, cache):
    """A stage's typed result is cached as the JSON results had before they had types: read
    back as the stage's Result, it writes the same JSON again (so entries cached then load)."""
    stages = build_stages(DEFAULT_ENGINES)
    analyze(cuts.path, cache=cache, stages=stages)
    by_name = {stage.name: stage for stage in stages}
    entries = [json.loads(path.read_text()) for path in cache.entries()]
    assert {entry["stage"] for entry in entries} == set(by_name)
    for entry in entries:
        result = by_name[entry["stage"]].Result.from_json(entry["result"])
        assert isinstance(result, StageResult), entry["stage"]
        assert json.loads(json.dumps(result.to_json())) == entry["result"], entry["stage"]


def test_a_cached_result_its_result_type_cannot_read_is_computed_again(cuts, cache):
    analysis = analyze(cuts.path, ENGINES, cache=cache)
    (path,) = [p for p in cache.entries() if "objects" in p.name]
    entry = json.loads(path.read_text())
    path.write_text(json.dumps({**entry, "result": {"samples": []}}))  # no sample_rate
    again = analyze(cuts.path, ENGINES, cache=cache)
    assert again.objects == analysis.objects
    assert json.loads(path.read_text())["result"] == entry["result"]


def test_results_cached_before_they_had_types_load():
    """Entries as earlier versions wrote them: a video without sound, a VLM's captions."""
    assert SpeechResult.from_json({"audio": "none"}) == SpeechResult("none")
    builtin = {"sample_rate": 1.0, "samples": [{"time": 0.0, "frame": 0}]}
    cached = {"builtin": builtin, "captions": [{"frame": 0, "time": 0.0, "text": "P1 waves.", "ids": ["P1"]}],
              "boundaries": [{"frame": 50, "caption": ["P1", "sitting", "standing"]}, {"frame": 75, "caption": None}],
              "keyframes": [{"frame": 0, "time": 0.0, "reason": "first frame"}],
              "plan": {"mode": "dense", "frames": [0], "windows": [[0]], "boundaries": [50, 75], "spent": 1.5}}
    result = VLMCaptionResult.from_json(cached)
    assert result.builtin == CaptionResult(1.0, ({"time": 0.0, "frame": 0},))
    assert result.captions[0].ids == ("P1",) and result.boundaries[0].caption == ("P1", "sitting", "standing")
    assert result.boundaries[1].caption is None and result.keyframes[0].reason == "first frame"
    assert json.loads(json.dumps(result.to_json())) == cached
