"""The parts of ``library add --cluster`` that need no cluster, quick: the addresses it
takes and the one line it gives for one it cannot use (nothing listening, Ray not
installed), the actor's work called in this process (the same Analysis as a local run;
a file a worker cannot read, or reads different, fails alone with a line naming it), what
is sent to the workers about a model server (never its key), when an actor asks for a
GPU, and the progress counts. The cluster itself: test_cluster.py."""

from __future__ import annotations

import io
import json
import socket
import subprocess
import sys
from dataclasses import replace

import pytest

from fake_engines import ENGINES
from helpers import run
from videoreview.cluster.connect import parse_address
from videoreview.cluster.driver import can_use_gpu, engine_names, server_entries
from videoreview.cluster.worker import Analyser
from videoreview.errors import VideoReviewError


@pytest.mark.parametrize(("text", "host", "port", "client"), [
    ("ray://head.lan:10001", "head.lan", 10001, True),
    ("ray://10.0.0.5", "10.0.0.5", 10001, True),
    ("head.lan:6380", "head.lan", 6380, False),
    ("127.0.0.1", "127.0.0.1", 6379, False),
    ("[::1]:6379", "::1", 6379, False),
    ("auto", None, None, False),
])
def test_addresses(text, host, port, client):
    address = parse_address(text)
    assert (address.host, address.port, address.client) == (host, port, client)
    assert address.loopback == (host in (None, "127.0.0.1", "::1"))


@pytest.mark.parametrize("text", ["ray://", "head:port", "head:70000", "http://head:6379", ""])
def test_a_mistyped_address_is_one_line(text):
    with pytest.raises(VideoReviewError, match="--cluster"):
        parse_address(text)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when the socket is: nothing listens there


def test_an_address_nothing_answers_at_is_refused_in_one_line(tmp_path, fresh_home):
    port = _closed_port()
    (tmp_path / "a.mp4").write_bytes(b"x")
    proc = run("library", "add", tmp_path, "--cluster", f"127.0.0.1:{port}")
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        f"videoreview: error: cannot reach the Ray cluster at 127.0.0.1:{port} (Connection refused); is its head "
        "running and this machine allowed to reach it? (docs/cluster.md)"]
    assert not (fresh_home / "library.sqlite3").exists()  # refused before anything was catalogued


def test_stop_is_heard_between_tries_to_connect():
    """Ray Client's tries can each take half a minute: the window's Stop ends them between
    tries (a stand-in for ray: the wiring is what is tested)."""
    from videoreview.cluster.connect import _init
    from videoreview.pipeline.cancel import Cancelled, CancelToken

    cancel, tries = CancelToken(), []

    class Ray:
        @staticmethod
        def init(**options):
            tries.append(options["address"])
            cancel.cancel()  # Stop pressed during the first try
            raise ConnectionError("ray client connection timeout: Initialization failure from server")

    with pytest.raises(Cancelled):
        _init(Ray, "ray://127.0.0.1:1", {}, parse_address("ray://127.0.0.1:1"), lambda line: None, cancel)
    assert tries == ["ray://127.0.0.1:1"]


def test_without_ray_the_line_says_how_to_install_it(tmp_path, fresh_home):
    # sys.modules["ray"] = None: "import ray" fails as it does where Ray is not installed.
    code = ("import sys; sys.modules['ray'] = None; from videoreview.cli import main; "
            f"sys.exit(main(['library', 'add', {str(tmp_path)!r}, '--cluster', 'auto']))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        'videoreview: error: --cluster needs Ray, which is not installed: pip install "videoreview[cluster]" '
        '(or pip install "ray[data,client]==2.60.0")']


def test_actors_go_with_cluster(tmp_path, fresh_home):
    proc = run("library", "add", tmp_path, "--actors", "2")
    assert proc.returncode == 2 and "--actors goes with --cluster" in proc.stderr


def test_the_actor_makes_the_analysis_a_local_run_makes(cuts_video, fresh_home):
    from videoreview.pipeline import StageCache, analyze
    from videoreview.records import Analysis

    path = str(cuts_video.path)
    digest = StageCache().content_hash(path)
    actor = Analyser(ENGINES, [])
    ready = actor.ready()
    assert ready["stages"] == {"boundaries": "fake", "faces": "fake", "expressions": "fake", "objects": "fake",
                               "poses": "fake", "speech": "fake", "speakers": "face-mesh", "screen-text": "fake",
                               "captions": "fake"}
    done = actor.analyse(path, digest, None)
    assert "problem" not in done, done
    local = analyze(path, ENGINES, cache=StageCache(fresh_home / "other cache"))
    remote = Analysis.from_dict(json.loads(done["analysis"]))
    assert replace(remote, plan=None) == replace(local, plan=None)  # the plan: how each run went (seconds)
    assert [p.stage for p in remote.plan.stages] == [p.stage for p in local.plan.stages]
    assert engine_names(json.dumps(local.engines)) == ready["stages"]


def test_a_file_a_worker_cannot_read_or_reads_different_fails_alone(cuts_video, tmp_path, fresh_home):
    actor = Analyser(ENGINES, [])
    gone = str(tmp_path / "not here.mp4")
    done = actor.analyse(gone, "0" * 64, None)
    assert done["problem"].startswith(f"{gone}: cannot be read on ")
    assert "No such file or directory" in done["problem"] and "shared storage" in done["problem"]
    other = actor.analyse(str(cuts_video.path), "0" * 64, None)  # the asking machine hashed another file
    assert other["problem"] == (f"{cuts_video.path}: the file on {actor.node} is not the one on this machine (its "
                                "content differs); the workers must see the videos at the same path as this machine "
                                "(shared storage, docs/cluster.md)")


def test_a_model_server_reaches_the_workers_without_its_key(tmp_path, monkeypatch, fresh_home):
    from videoreview.models.servers import Server, add_server, servers

    monkeypatch.setenv("BOX_KEY", "s3cret-on-this-machine")
    add_server(Server("box", "http://127.0.0.1:9/v1", "colours", api_key_env="BOX_KEY"))
    entries = server_entries({"captions": "server:box", "faces": "blazeface"})
    assert entries == [{"name": "box", "url": "http://127.0.0.1:9/v1", "model": "colours", "api_key_env": "BOX_KEY",
                        "concurrency": 4, "timeout": 120.0}]
    assert "s3cret" not in json.dumps(entries)
    # A worker with a home of its own learns the server (and reads the key from its environment).
    monkeypatch.setenv("VIDEOREVIEW_HOME", str(tmp_path / "worker home"))
    actor = Analyser({**ENGINES, "captions": "server:box"}, entries)
    assert actor.ready()["stages"]["captions"] == "server:box"
    assert servers()["box"] == Server(**entries[0])
    assert "s3cret" not in (tmp_path / "worker home" / "servers.json").read_text()


def test_an_actor_asks_for_a_gpu_only_for_engines_that_use_one():
    assert can_use_gpu({"boundaries": "builtin", "faces": "dlib-hog"})  # TransNetV2 on torch
    assert can_use_gpu({"speech": "whisper-base"})
    assert not can_use_gpu({"faces": "dlib-hog", "captions": "server:box", "speech": "none"})
    assert not can_use_gpu(ENGINES)  # the fake engines are plain Python


def test_the_progress_counts_and_lines():
    from videoreview.cli.library import ClusterBar

    out = io.StringIO()
    bar = ClusterBar(stream=out)
    events = [("a", "queued", ""), ("b", "queued", ""), ("c", "queued", ""), ("a", "running", "node 1"),
              ("b", "running", "node 2"), ("b", "retrying", "lost on node 2"), ("a", "indexed", "1.0 s on node 1"),
              ("b", "running", "node 1"), ("b", "failed", "b: not a video file"), ("", "notice", "a notice")]
    for event in events:
        bar.report(*event)
    assert (sorted(bar.queued), sorted(bar.running), bar.done, bar.failed) == (["c"], [], 1, 1)
    assert out.getvalue().splitlines() == [
        "  running  a  (node 1)", "  running  b  (node 2)", " retrying  b  (lost on node 2)",
        "  indexed  a  (1.0 s on node 1)", "  running  b  (node 1)", "   failed  b: not a video file",
        "videoreview: notice: a notice"]


def test_a_worker_that_cannot_make_the_engines_says_why(fresh_home):
    actor = Analyser({**ENGINES, "captions": "no-such-model"}, [])
    ready = actor.ready()
    assert ready["stages"] == {}
    assert ready["problem"].startswith(f"{actor.node} cannot make the chosen engines: ")
    assert "no-such-model" in ready["problem"]
