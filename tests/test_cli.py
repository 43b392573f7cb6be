"""The command line: in this process through cli.main (the same parser and code), and as a
user runs it, a new process of the entry point, for the exit status and the entry point itself.
The analyses run the fake engines (fake_engines.py), chosen in each home's engines.json."""

import json

import pytest

from helpers import fake_home, run, run_process
from videoreview.records import SCHEMA_VERSION
from videos import make_bad_inputs, make_cuts_video


@pytest.fixture(scope="module")
def cuts(tmp_path_factory):
    return make_cuts_video(tmp_path_factory.mktemp("cli"), name="two words é.mp4")


def test_analyze_writes_the_analysis_json(cuts, tmp_path):
    out = tmp_path / "out.json"
    proc = run("analyze", cuts.path, "-o", out, home=fake_home(tmp_path / "home"))
    assert proc.returncode == 0, proc.stderr
    # stderr is no terminal here (a log): a line when each stage starts, no redrawn bar
    assert "\r" not in proc.stderr
    lines = proc.stderr.splitlines()
    for stage in ("probe", "boundaries", "faces", "captions"):
        assert sum(line.startswith(f"{cuts.path.name}: {stage} (") for line in lines) == 1, proc.stderr
    assert lines[-2].startswith(f"{cuts.path.name}: done (") and lines[-1].startswith(f"{out}: 3 boundaries")
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["schema_version"] == SCHEMA_VERSION
    assert data["video"]["path"] == str(cuts.path)
    cut_times = [b["time"] for b in data["boundaries"] if b["kind"] == "cut"]
    assert len(cut_times) == len(cuts.cut_times)
    for found, true in zip(sorted(cut_times), cuts.cut_times):
        assert abs(found - true) <= 0.1
    assert all(b["caption"]["engine"] == "fake@1" for b in data["boundaries"])
    assert data["captions"] and all(c["engine"] == "fake@1" for c in data["captions"])
    assert data["keyframes"] and all(k["reason"] for k in data["keyframes"])
    assert (tmp_path / "home" / "cache").is_dir()


def test_analyze_default_output_and_stdout(cuts, tmp_path):
    proc = run("analyze", "-q", cuts.path, cwd=tmp_path, home=fake_home(tmp_path / "home"))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / f"{cuts.path.stem}.analysis.json").exists()
    proc = run("analyze", "-q", cuts.path, "-o", "-", home=tmp_path / "home")
    assert json.loads(proc.stdout)["video"]["frame_count"] == cuts.frame_count


def test_bad_inputs_one_line_each_and_non_zero(tmp_path, cuts):
    bad = make_bad_inputs(tmp_path / "bad")
    out = tmp_path / "outs"
    proc = run_process("analyze", "-q", *bad.values(), cuts.path, "-o", out, home=fake_home(tmp_path / "home"))
    assert proc.returncode == 1
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert "Traceback" not in proc.stderr
    assert len(lines) == len(bad), proc.stderr
    for path, line in zip(bad.values(), lines):
        assert line.startswith("videoreview: error: ") and str(path) in line
    # the good video among them was still analysed
    assert (out / f"{cuts.path.stem}.analysis.json").exists()


def test_info(cuts):
    proc = run("info", cuts.path)
    assert proc.returncode == 0 and "25.000" in proc.stdout and "320x180" in proc.stdout
    data = json.loads(run("info", "--json", cuts.path).stdout)
    assert data["frame_count"] == cuts.frame_count


def test_info_on_a_directory(tmp_path):
    proc = run("info", tmp_path)
    assert proc.returncode == 1 and str(tmp_path) in proc.stderr and "Traceback" not in proc.stderr


def test_eval_boundaries(tmp_path):
    pred = tmp_path / "pred.json"
    truth = tmp_path / "truth.json"
    pred.write_text(json.dumps({"schema_version": 1, "boundaries": [
        {"time": 2.05, "kind": "cut"}, {"time": 5.4, "kind": "event"}, {"time": 12.0, "kind": "cut"}]}))
    truth.write_text(json.dumps([2.0, 5.0, 9.0]))
    proc = run("eval", "boundaries", pred, truth, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["average_f1"] == pytest.approx((2 / 3 + 10 / 3 + 1) / 8)
    text = run("eval", "boundaries", pred, truth).stdout
    assert "average" in text and "0.1" in text
    only_cuts = json.loads(run("eval", "boundaries", pred, truth, "--kind", "cut", "--json").stdout)
    assert only_cuts["predicted"] == 2


def test_eval_bad_json(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    proc = run("eval", "boundaries", bad, bad)
    assert proc.returncode == 1 and str(bad) in proc.stderr and "not valid JSON" in proc.stderr


def test_unknown_engine(cuts):
    proc = run("analyze", cuts.path, "--engines", "boundaries=nope")
    assert proc.returncode == 2 and "no boundaries engine named 'nope'" in proc.stderr


def test_version_and_help():
    assert run_process("--version").stdout.startswith("videoreview ")  # the entry point, as installed
    assert run("--version").stdout.startswith("videoreview ")
    assert "analyze" in run("--help").stdout and "gui" in run("--help").stdout


def test_a_long_video_in_a_log_says_how_far_each_stage_is_at_least_every_30_s():
    import io

    from videoreview.cli.progress import ProgressBar

    now = [0.0]
    log = io.StringIO()
    shown = ProgressBar("long.mp4", stream=log, stages=["probe", "boundaries", "captions"], clock=lambda: now[0])
    shown.update("probe", 1.0)  # no share of the work: the estimates below do not count it
    for second in range(0, 1200, 3):  # a 20-minute analysis, one update every 3 s
        now[0] = float(second)
        shown.update("boundaries", min(1.0, second / 600))
        shown.update("captions", second / 1200)
    lines = log.getvalue().splitlines()
    assert lines[:3] == ["long.mp4: probe (0.0 s)", "long.mp4: boundaries (0.0 s)", "long.mp4: captions (0.0 s)"]
    times = [float(line.split(" after ")[1].split(" s")[0]) for line in lines[3:]]
    assert all(b - a <= 30 for a, b in zip([0.0, *times], times)) and times[-1] >= 1170
    at_600 = next(line for line in lines if " after 600 s" in line)
    assert at_600.startswith("long.mp4: 75% after 600 s, about 20")  # 600 s for 75 %: 200 s more
    assert at_600.endswith("s left; captions 50%")  # the boundaries are done: not listed
    assert "boundaries 25%, captions 12%" in log.getvalue()  # both running


def test_progress_is_a_bar_on_a_terminal_and_lines_in_a_log():
    import io

    from videoreview.cli.progress import ProgressBar

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for stream in (Terminal(), io.StringIO()):
        shown = ProgressBar("clip.mp4", stream=stream)
        for stage, fraction in (("probe", 0.0), ("boundaries", 0.1), ("captions", 0.2), ("boundaries", 0.4),
                                ("captions", 0.9)):
            shown.update(stage, fraction, "reading")
        shown.write("videoreview: notice: something")
        shown.close(done=True)
        text = stream.getvalue()
        assert "videoreview: notice: something\n" in text
        if isinstance(stream, Terminal):
            assert "\r" in text and "100%|" in text and "captions: reading" in text
        else:
            assert [line.split(" (")[0] for line in text.splitlines()] == [
                "clip.mp4: probe", "clip.mp4: boundaries", "clip.mp4: captions", "videoreview: notice: something",
                "clip.mp4: done"]
    quiet = io.StringIO()
    shown = ProgressBar("clip.mp4", quiet=True, stream=quiet)
    shown.update("probe", 0.5)
    shown.close(done=True)
    assert quiet.getvalue() == ""
