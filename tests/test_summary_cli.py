"""`videoreview summarize` and `videoreview visil`, run as a user runs them, on a clip the
fake engines (fake_engines.py, chosen in the module home's engines.json) analyse."""

import json

import pysubs2
import pytest

from helpers import fake_home, run
from videos import make_bad_inputs, make_cuts_video


@pytest.fixture(scope="module")
def clip(tmp_path_factory, home):
    fake_home(home)
    return make_cuts_video(tmp_path_factory.mktemp("summary cli"), name="clip é.mp4")


def test_visil_json_compares_the_formats_asked_for(clip, home, tmp_path):
    proc = run("visil", clip.path, "--json", "-q", home=home)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert [r["format"] for r in rows] == ["text", "1", "3"]
    for row in rows:
        assert row.keys() == {"format", "visil", "tokens", "scorer", "keyframes", "text"}
        assert row["scorer"].startswith("builtin") and isinstance(row["visil"], float) and row["tokens"] > 0
        assert len(row["keyframes"]) == (0 if row["format"] == "text" else int(row["format"]))
    reference = tmp_path / "notes.txt"
    reference.write_text("Four coloured shots: a pinwheel, a web site, a chain and a slide.", encoding="utf-8")
    proc = run("visil", clip.path, "--summaries", "text,2", "--reference", reference, home=home)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "approximate" in out and "reference: file notes.txt" in out and "pinwheel" in out
    assert [line.split()[0] for line in out.splitlines() if line[:4] in ("text", "2   ")] == ["text", "2"]


def test_visil_bad_input_gets_one_clear_message(clip, home, tmp_path):
    missing = tmp_path / "nope.txt"
    proc = run("visil", clip.path, "--reference", missing, "-q", home=home)
    assert proc.returncode == 1 and str(missing) in proc.stderr and proc.stdout == ""
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n")
    proc = run("visil", clip.path, "--reference", empty, "-q", home=home)
    assert proc.returncode == 1 and "empty" in proc.stderr
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("caf\xe9 au lait".encode("latin-1"))
    proc = run("visil", clip.path, "--reference", latin1, "-q", home=home)
    assert proc.returncode == 1 and "not UTF-8" in proc.stderr
    proc = run("visil", clip.path, "--summaries", "text,x", "-q", home=home)
    assert proc.returncode == 2 and "'x'" in proc.stderr
    proc = run("visil", clip.path, "--scorer", tmp_path, "-q", home=home)
    assert proc.returncode == 1 and str(tmp_path) in proc.stderr
    text = make_bad_inputs(tmp_path / "bad")["text_as_mp4"]
    proc = run("visil", text, "-q", home=home)
    assert proc.returncode == 1 and str(text) in proc.stderr


def test_summarize_prints_the_summary_and_writes_the_exports(clip, home, tmp_path):
    out = {suffix: tmp_path / f"clip.{suffix}" for suffix in ("srt", "vtt", "otio", "json", "csv")}
    proc = run("summarize", clip.path, "--keyframes", "2", "-q", *[a for s, p in out.items() for a in (f"--{s}", p)],
               home=home)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "[KEYFRAME1]" in lines[0] and "[KEYFRAME2]" in lines[0]
    assert lines[1].startswith("[KEYFRAME1] 00:") and lines[2].startswith("[KEYFRAME2] 00:")
    assert all(path.stat().st_size > 0 for path in out.values())
    assert len(pysubs2.load(str(out["srt"]))) > 0 and out["vtt"].read_text(encoding="utf-8").startswith("WEBVTT")
    saved = json.loads(out["json"].read_text(encoding="utf-8"))
    assert sorted((s["format"], len(s["keyframe_frames"])) for s in saved["summaries"]) == \
        [("keyframes+text", 1), ("keyframes+text", 2), ("keyframes+text", 3), ("text", 0)]
    proc = run("summarize", clip.path, "--keyframes", "0", "-q", home=home)
    assert proc.returncode == 0 and "KEYFRAME" not in proc.stdout and proc.stdout.startswith("A "), proc.stderr
    proc = run("summarize", clip.path, "--keyframes", "-1", "-q", home=home)
    assert proc.returncode == 2 and "'-1'" in proc.stderr
    under_a_file = out["csv"] / "x.srt"  # a file where the folder should be
    proc = run("summarize", clip.path, "--srt", under_a_file, "-q", home=home)
    assert proc.returncode == 1 and str(under_a_file) in proc.stderr and "Traceback" not in proc.stderr
    assert out["csv"].read_text(encoding="utf-8-sig").startswith("time,frame")  # left as it was


def test_summaries_written_by_a_vlm_folder_are_saved_and_scored(clip, home, tmp_path, untrained):
    out = tmp_path / "clip.json"
    proc = run("summarize", clip.path, "--writer", untrained, "--keyframes", "1", "--json", out, home=home)
    assert proc.returncode == 0, proc.stderr
    assert f"loading {untrained}" in proc.stderr and "writing '3' with qwen2_vl:" in proc.stderr
    saved = json.loads(out.read_text(encoding="utf-8"))["summaries"]
    assert {s["engine"] for s in saved} == {f"qwen2_vl:{untrained.name}"}
    # Without --writer, visil scores the saved summaries as they are (no model needed).
    proc = run("visil", clip.path, "--json", "-q", home=home)
    assert proc.returncode == 0, proc.stderr
    by_format = {s["keyframe_frames"].__len__() if s["format"] != "text" else "text": s["text"] for s in saved}
    rows = json.loads(proc.stdout)
    assert [r["text"] for r in rows] == [by_format["text"], by_format[1], by_format[3]]
    proc = run("visil", clip.path, "--writer", tmp_path / "nope", "-q", home=home)
    assert proc.returncode == 1 and str(tmp_path / "nope") in proc.stderr and "Traceback" not in proc.stderr
    # An explicit builtin writer replaces them (edited ones would stay).
    proc = run("visil", clip.path, "--writer", "builtin", "--json", "-q", home=home)
    assert proc.returncode == 0 and json.loads(proc.stdout)[0]["text"] != by_format["text"]
