"""`videoreview identities`, `analyze --videoset`, `eval identities` and `eval fitb` as a user runs them,
in homes that choose the fake engines (fake_engines.py: fake-people finds the clips' two people)."""

from __future__ import annotations

import json

import cv2
import pytest

from faces import SCENE, SECOND_CLIP, make_face_video
from fake_engines import WITH_PEOPLE
from helpers import fake_home, run


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    folder = tmp_path_factory.mktemp("faces cli")
    return make_face_video(folder / "scène 1.mp4", SCENE), make_face_video(folder / "scene2.mp4", SECOND_CLIP)


def test_identities_table_crops_and_a_broken_clip(clips, tmp_path):
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(clips[0].path.read_bytes()[:3000])
    crops = tmp_path / "faces"
    home = fake_home(tmp_path / "home", WITH_PEOPLE)
    proc = run("identities", clips[0].path, broken, clips[1].path, "--crops", crops, "--json", "-q", home=home)
    assert proc.returncode == 1  # one file failed...
    assert proc.stderr.count("error:") == 1 and "broken.mp4" in proc.stderr
    rows = json.loads(proc.stdout)  # ...and the others still got their identities
    assert [r["id"] for r in rows] == ["P1", "P2"]
    first, second = rows
    assert {a["video"] for a in first["appearances"]} == {str(clips[0].path), str(clips[1].path)}
    spans = [(a["start"], a["end"]) for a in second["appearances"] if a["video"] == str(clips[1].path)]
    assert spans == [(0.0, 2.0 - 0.02)]  # P2 opens the second clip
    for row in rows:
        image = cv2.imread(row["crop"])
        assert image is not None and image.shape[0] > 80
    text = run("identities", clips[0].path, clips[1].path, "-q", home=home)
    assert text.returncode == 0 and "P1: on screen" in text.stdout and "P2: on screen" in text.stdout


def test_analyze_videoset_shares_ids(clips, tmp_path):
    out = tmp_path / "out"
    proc = run("analyze", clips[1].path, clips[0].path, "--videoset", "-o", out, "-q",
               home=fake_home(tmp_path / "home", WITH_PEOPLE))
    assert proc.returncode == 0, proc.stderr
    second = json.loads((out / "scene2.analysis.json").read_text(encoding="utf-8"))
    first = json.loads((out / "scène 1.analysis.json").read_text(encoding="utf-8"))
    # Given in this order, scene2 comes first in the set: Eileen opens it and is P1 everywhere.
    assert [i["id"] for i in second["identities"]] == ["P1", "P2"]
    eileen_in_first = {f["identity"] for f in first["faces"] if f["time"] >= 2.0 and f["time"] < 4.0}
    assert eileen_in_first == {"P1"}


def test_eval_identities_and_fitb(tmp_path):
    truth = {"faces": [{"frame": 0, "box": [0, 0, 10, 10], "person": "ann"},
                       {"frame": 5, "box": [0, 0, 10, 10], "person": "ann"},
                       {"frame": 5, "box": [50, 0, 10, 10], "person": "bob"},
                       {"frame": 9, "box": [50, 0, 10, 10], "person": "bob"}]}
    pred = {"faces": [{"frame": 0, "box": [1, 0, 10, 10], "identity": "P1"},
                      {"frame": 5, "box": [0, 1, 10, 10], "identity": "P1"},
                      {"frame": 5, "box": [50, 0, 10, 10], "identity": "P1"}]}  # bob at 9 missed
    (tmp_path / "t.json").write_text(json.dumps(truth))
    (tmp_path / "p.json").write_text(json.dumps(pred))
    proc = run("eval", "identities", tmp_path / "p.json", tmp_path / "t.json", "--json")
    assert proc.returncode == 0, proc.stderr
    score = json.loads(proc.stdout)
    # P1 holds ann, ann, bob: precision (2/3 + 2/3 + 1/3 + 1) / 4; recall (1 + 1 + 1/2 + 1/2) / 4
    assert score["precision"] == pytest.approx(2 / 3) and score["recall"] == pytest.approx(3 / 4)
    assert score["unassigned"] == 1

    (tmp_path / "ft.json").write_text(json.dumps({"caption_sets": [[["A"], ["B", "A"]]]}))
    (tmp_path / "fp.json").write_text(json.dumps([["P1", "P2", "P2"]]))
    proc = run("eval", "fitb", tmp_path / "fp.json", tmp_path / "ft.json")
    assert proc.returncode == 0, proc.stderr
    assert "Same-acc 0.000  Diff-acc 0.500  Inst-acc 0.333  Class-acc 0.000" in proc.stdout


@pytest.mark.parametrize("task", ["identities", "fitb"])
def test_eval_bad_files_fail_with_one_line(task, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"faces": []}) if task == "identities" else "[]")
    for args in ((bad, good), (good, bad), (tmp_path / "missing.json", good)):
        proc = run("eval", task, *args)
        assert proc.returncode == 1
        assert proc.stderr.count("\n") == 1 and "error:" in proc.stderr
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"faces": [{"frame": 1}]}) if task == "identities" else json.dumps([["P1", 3]]))
    proc = run("eval", task, wrong, wrong)
    assert proc.returncode == 1 and "wrong.json" in proc.stderr
