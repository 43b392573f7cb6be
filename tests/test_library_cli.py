"""`videoreview library` on a real library of generated clips, run as a user runs it: a
folder added recursively, queries that must land on the right video and moment (facts the
clips were made with: the cuts clip has no people; in the face scene P2 is on screen from
2 s to 6 s), a moved file recognised, a non-video reported, an indexer killed mid-way and
resumed with nothing lost or duplicated, and a damaged catalog rebuilt. The library is
made with the fake engines (fake_engines.py; fake-people finds the face scene's two
people); the queries that need what the real engines and the sentence embedding make of
the clips (what the cuts clip looks like, the grounding of "P2 in close-up") run on a
library of their own, marked ``models``. (The builtin captions do not say "no people" of
the cuts clip: something moves in each of its shots, and a detector may miss whoever moves.)"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from faces import SCENE, make_face_video
from fake_engines import ENGINES, SLOW, WITH_PEOPLE
from helpers import fake_home, make_library_folder, run, run_json
from videoreview.library.units import units_of
from videoreview.records import Analysis
from videos import make_bad_inputs, make_cuts_video

# What the builtin captions say of one of the cuts clip's shots, and of none of the face scene's.
CUTS_LOOK = "a picture in green and purple"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = make_library_folder(tmp_path_factory.mktemp("videos"))
    (root / "notes.txt").write_text("not a video")  # not a video suffix: not picked up
    return root


def add_folder(folder, home) -> dict[str, dict]:
    proc = run("library", "add", folder, home=home)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "2 indexed, 0 unchanged, 0 failed"
    return {v["path"]: v for v in listing(home)}


@pytest.fixture(scope="module")
def added(folder, home):
    return add_folder(folder, fake_home(home, WITH_PEOPLE))


@pytest.fixture(scope="module")
def models_home(tmp_path_factory, stage_cache):
    """A home with the builtin engines (its stage cache the session's, as conftest's home)."""
    path = tmp_path_factory.mktemp("models home")
    (path / "cache").symlink_to(stage_cache, target_is_directory=True)
    return path


@pytest.fixture(scope="module")
def added_by_models(folder, models_home):
    return add_folder(folder, models_home)


def listing(home) -> list[dict]:
    return run_json("library", "list", home=home)


def search(home, *args) -> list[dict]:
    return run_json("library", "search", *args, home=home)


def test_a_folder_is_added_recursively(added, folder):
    assert sorted(added) == sorted([str(folder / "cuts clip.mp4"), str(folder / "sub" / "people é.mp4")])
    people = added[str(folder / "sub" / "people é.mp4")]
    assert people["status"] == "done" and [i["id"] for i in people["identities"]] == ["P1", "P2"]
    assert added[str(folder / "cuts clip.mp4")]["identities"] == []


@pytest.mark.models
def test_queries_land_on_the_right_video_and_moment(added_by_models, folder, models_home):
    added, home = added_by_models, models_home
    cuts, people = str(folder / "cuts clip.mp4"), str(folder / "sub" / "people é.mp4")
    assert search(home, CUTS_LOOK)[0]["path"] == cuts
    assert search(home, "the cuts clip")[0]["path"] == cuts  # its file name
    results = search(home, "close-up", "--identity", "P2", "--top", "20")
    assert results and all(r["path"] == people for r in results)
    assert all(r["start"] < 6.0 and r["end"] > 2.0 for r in results)  # P2 is on screen from 2 s to 6 s
    for r in results:
        assert r.keys() == {"path", "video_id", "start", "end", "text", "score", "kind"}
    # Grounding inside one video: ranked timestamps of the open video only.
    inside = search(home, "P2", "--video", str(added[people]["id"]))
    assert inside and {r["video_id"] for r in inside} == {added[people]["id"]}
    assert 2.0 <= inside[0]["end"] and inside[0]["start"] <= 6.0
    plain = run("library", "search", CUTS_LOOK, "--top", "3", home=home)
    assert plain.returncode == 0 and plain.stdout.splitlines()[0] == cuts


def test_bad_queries_get_one_line(added, home):
    for query in ("", "   ", "?!"):
        proc = run("library", "search", query, home=home)
        assert proc.returncode == 1 and "query" in proc.stderr and "Traceback" not in proc.stderr
    for query in ('"unclosed', "a AND OR NOT (", "x'; DROP TABLE videos; --", "日本語"):
        proc = run("library", "search", query, "--json", home=home)
        assert proc.returncode == 0, proc.stderr
    assert len(listing(home)) == 2


@pytest.mark.models
def test_eval_retrieval_scores_the_library_on_a_query_file(added_by_models, folder, models_home, tmp_path):
    home = models_home
    queries = tmp_path / "queries.json"
    queries.write_text(json.dumps([
        {"query": CUTS_LOOK, "video": "cuts clip.mp4", "set": "spatial"},
        {"query": "a person in an academic gown", "video": str(folder / "sub" / "people é.mp4"), "set": "spatial"},
        {"query": "P2 in close-up", "video": "people é.mp4", "set": "temporal", "times": [4.0]},
    ]), encoding="utf-8")
    proc = run("eval", "retrieval", queries, "--json", home=home)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["queries"] == 3 and set(report["recall"]) == {"R@1", "R@5", "R@10"}
    assert report["recall"]["R@10"] == 1.0 and 0 < report["mAP"] <= 1  # two videos: always in the top 10
    assert report["spatial"]["queries"] == 2 and report["temporal"]["queries"] == 1 and report["ReBias"] >= 0
    assert report["grounding"]["queries"] == 1 and report["grounding"]["f1"]["3"] == 1.0  # P2: 2-6 s
    bad = tmp_path / "bad.json"
    for content, problem in (("{nope", "not valid JSON"), ("[]", "expected a list"),
                             ('[{"query": "x", "video": "nowhere.mp4"}]', "not in the library"),
                             ('[{"query": "x", "video": "people é.mp4", "set": "other"}]', "'set'")):
        bad.write_text(content, encoding="utf-8")
        proc = run("eval", "retrieval", bad, home=home)
        assert proc.returncode == 1 and str(bad) in proc.stderr and problem in proc.stderr, proc.stderr


def test_adding_again_skips_what_is_indexed_and_recognises_a_moved_file(added, folder, home, tmp_path):
    proc = run("library", "add", folder, home=home)
    assert proc.returncode == 0 and proc.stdout.strip() == "0 indexed, 2 unchanged, 0 failed"
    elsewhere = tmp_path / "moved"
    elsewhere.mkdir()
    old = folder / "cuts clip.mp4"
    new = elsewhere / "renamed.mp4"
    shutil.move(old, new)
    try:
        assert {v["path"]: v["status"] for v in listing(home)}[str(old)] == "done"  # not yet noticed
        proc = run("library", "add", elsewhere, home=home)
        assert proc.returncode == 0, proc.stderr
        assert "moved" in proc.stderr and proc.stdout.strip() == "0 indexed, 1 unchanged, 0 failed"
        videos = {v["path"]: v for v in listing(home)}
        assert str(new) in videos and str(old) not in videos and len(videos) == 2
        assert videos[str(new)]["id"] == added[str(old)]["id"]
        assert search(home, "the camera zooms in")[0]["path"] == str(new)  # only the cuts clip zooms (fake captions)
    finally:
        shutil.move(new, old)
        run("library", "add", old, home=home)


def test_a_non_video_is_reported_and_the_rest_indexed(home, tmp_path):
    bad = make_bad_inputs(tmp_path / "bad")["text_as_mp4"]
    proc = run("library", "add", bad, tmp_path / "nowhere", home=home)
    assert proc.returncode == 1 and str(bad) in proc.stderr and str(tmp_path / "nowhere") in proc.stderr
    assert "Traceback" not in proc.stderr
    status = {v["path"]: v for v in listing(home)}[str(bad)]
    assert status["status"] == "failed" and str(bad) in status["error"]


def test_killed_mid_indexing_then_resumed_loses_and_duplicates_nothing(tmp_path):
    home = tmp_path / "home"
    videos = tmp_path / "videos"
    videos.mkdir()
    make_face_video(videos / "scene.mp4", SCENE)
    make_cuts_video(videos, name="cuts.mp4")
    fake_home(home, {**ENGINES, "faces": SLOW})  # faces that take seconds: it is killed while it analyses
    env = dict(os.environ, VIDEOREVIEW_HOME=str(home))
    child = subprocess.Popen([sys.executable, "-m", "videoreview", "library", "add", str(videos), "-q"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    database = home / "library.sqlite3"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and child.poll() is None:  # kill it while it analyses
        if database.exists() and _analysing(database):
            break
        time.sleep(0.05)
    assert child.poll() is None, "the indexer finished before it could be killed"
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert _count(database, "SELECT count(*) FROM videos WHERE status = 'analysing'") == 1

    proc = run("library", "add", videos, home=fake_home(home))  # resumed with the quick fakes
    assert proc.returncode == 0, proc.stderr
    listed = listing(home)
    assert sorted(v["path"] for v in listed) == sorted(str(p) for p in videos.iterdir())
    assert {v["status"] for v in listed} == {"done"}
    for video in listed:
        digest = _rows(database, "SELECT content_hash FROM videos WHERE id = ?", (video["id"],))[0][0]
        analysis = Analysis.load(home / "analyses" / f"{digest}.analysis.json")
        assert _count(database, "SELECT count(*) FROM units WHERE video_id = ?", (video["id"],)) == \
            len(units_of(analysis))  # each unit once
    assert _count(database, "SELECT count(*) FROM units_fts") == _count(database, "SELECT count(*) FROM units")


def test_a_damaged_catalog_is_moved_aside_and_rebuilt(tmp_path):
    home = tmp_path / "home"
    videos = tmp_path / "videos"
    videos.mkdir()
    make_cuts_video(videos, name="only.mp4")
    assert run("library", "add", videos, "-q", home=fake_home(home)).returncode == 0
    database = home / "library.sqlite3"
    database.write_bytes(b"\0garbage" * 1000)
    for suffix in ("-wal", "-shm"):
        (home / f"library.sqlite3{suffix}").unlink(missing_ok=True)
    proc = run("library", "list", home=home)
    assert proc.returncode == 1 and "damaged" in proc.stderr and "library rebuild" in proc.stderr
    proc = run("library", "rebuild", home=home)
    assert proc.returncode == 0, proc.stderr
    assert "moved to" in proc.stdout and "rebuilt: 1 videos" in proc.stdout
    assert [p.name for p in home.glob("library.sqlite3.unusable-*")]  # the old file is kept
    assert search(home, "the camera zooms in")[0]["path"] == str(videos / "only.mp4")


def _analysing(database) -> int:
    """Videos being analysed; 0 while the new catalog has no tables yet."""
    try:
        return _count(database, "SELECT count(*) FROM videos WHERE status = 'analysing'")
    except sqlite3.OperationalError:  # created, its schema not yet written
        return 0


def _rows(database, sql, params=()):
    with sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True) as db:
        return db.execute(sql, params).fetchall()


def _count(database, sql, params=()) -> int:
    return _rows(database, sql, params)[0][0]
