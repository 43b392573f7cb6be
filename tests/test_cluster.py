"""`library add --cluster` on a real Ray cluster: a head node and a second node started with
``ray start`` as separate processes, six generated clips (faces, cuts, a spoken sentence
each) analysed with real engines, and what lands in the library checked against a local
run of the same clips: the same Analysis (boundaries, identities, captions, transcript,
everything), found by search. Then the faults: the command killed (SIGKILL) and run again
sends only what is not done; the second node's raylet killed (``kill -9`` by its pid)
mid-run loses nothing and indexes nothing twice. Each test starts its own cluster, its
nodes' stage caches empty, so that every video is really analysed there.

All of a cluster's traffic stays on this machine by construction: the cluster, the
command and the faults run in a helper (this file run as a script) inside a network
namespace that has only ``lo`` (``unshare --net``, as root), which also records the
interfaces it had and every inet socket open in it during the run. The helper stops every
process it started by pid (videoreview/cluster/local.py).

The local reference run sets OMP_NUM_THREADS=1, as Ray does for an actor with one CPU:
Whisper's word probabilities depend on the thread count (CTranslate2's int8 sums), the
rest does not. The sentences are ones Whisper tiny.en decodes at temperature 0: where it
is unsure it falls back to sampling, which differs from run to run, local or not.
"""

from __future__ import annotations

import ipaddress
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from helpers import can_unshare

ENGINES = ("boundaries=builtin,faces=blazeface,speech=whisper-tiny.en,screen-text=none,objects=none,poses=none,"
           "captions=builtin")
SENTENCES = ["The tide comes in at noon.", "Bring the red box to the kitchen.", "Please close the door.",
             "Open the window please.", "The garden is full of roses.", "We found the keys in the car."]
HELPER_SECONDS = 420
SERVER_KEY = "key-only-the-workers-have-7f3a"


pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not can_unshare(), reason="needs root to make a loopback-only network namespace")]


@pytest.fixture(scope="module")
def clips(tmp_path_factory) -> Path:
    """Six 4 s clips: two shots of the two test faces (a cut at 2 s) and a sentence."""
    from faces import SCENE, SECOND_CLIP, make_face_video
    from speech import Line, speech_clip

    folder = tmp_path_factory.mktemp("cluster clips")
    work = tmp_path_factory.mktemp("cluster raw")
    shots = [SECOND_CLIP, SCENE[:2], SCENE[1:3], SCENE[2:], [SCENE[3], SCENE[0]], [SECOND_CLIP[1], SCENE[1]]]
    for n, (shot, sentence) in enumerate(zip(shots, SENTENCES)):
        make_face_video(work / f"{n}.mp4", shot, size=(320, 180))
        clip, _ = speech_clip(work, f"clip {n}.mp4", work / f"{n}.mp4", [Line(0.5, sentence)], 4.0)
        clip.rename(folder / clip.name)
    return folder


@pytest.fixture(scope="module")
def local(clips, tmp_path_factory) -> Path:
    """The same clips added by a local run: its home."""
    home = tmp_path_factory.mktemp("local home")
    env = {**os.environ, "VIDEOREVIEW_HOME": str(home), "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, "-m", "videoreview", "library", "add", str(clips), "--engines", ENGINES,
                           "-q"], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "6 indexed, 0 unchanged, 0 failed"
    return home


def in_namespace(folder: Path, steps: list[dict], **options) -> dict:
    """Run the helper (this file) in a new network namespace: it starts the cluster, runs
    ``steps`` and stops it; returns its report. A step: {"home": name under ``folder``,
    "paths": [...], "engines": (default ENGINES), "kill": "driver"|"raylet", "keep": a name
    to copy the home to first, "client": true for the ray:// address}. ``options``:
    "server_key" (a loopback model server that wants this key, the nodes' BOX_KEY),
    "server_home" (a home where the server is defined)."""
    plan = folder / "plan.json"
    plan.write_text(json.dumps({"folder": str(folder), "steps": steps, **options}))
    started = time.monotonic()
    proc = subprocess.run(["unshare", "--net", sys.executable, __file__, str(plan)], capture_output=True, text=True,
                          timeout=HELPER_SECONDS)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads((folder / "report.json").read_text())
    report["seconds"] = time.monotonic() - started
    print(f"helper: {report['seconds']:.1f} s; steps: {[round(s['seconds'], 1) for s in report['steps']]}")
    return report


def assert_loopback_only(report: dict) -> None:
    assert report["interfaces"] == ["lo"]
    assert report["sockets"], "the helper saw no sockets: the check would prove nothing"
    for local_ip, remote_ip, state in report["sockets"]:
        if state == "CLOSE" and not remote_ip:
            continue  # a TCP socket neither listening nor connected (being set up or torn down) is reachable by none
        for text in filter(None, (local_ip, remote_ip)):
            ip = ipaddress.ip_address(text)
            ip = getattr(ip, "ipv4_mapped", None) or ip
            assert ip.is_loopback, f"a socket on {text} ({state})"
    assert report["left"] == [], "processes of the cluster still running after it was stopped"


def lines(step: dict, what: str) -> list[str]:
    """The paths of the step's progress lines of one kind ("running", "indexed", ...)."""
    return [line.split(None, 1)[1].split("  (")[0] for line in step["stderr"] if line.split(None, 1)[:1] == [what]]


def catalog_rows(home: Path) -> list[tuple]:
    import sqlite3

    db = sqlite3.connect(home / "library.sqlite3")
    try:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        return db.execute("SELECT v.path, v.status, v.content_hash, (SELECT count(*) FROM units u WHERE "
                          "u.video_id = v.id) FROM videos v ORDER BY v.path").fetchall()
    finally:
        db.close()


def assert_same_as_local(home: Path, local: Path, besides: str = "") -> None:
    """Every clip done, its saved Analysis equal to the local run's, as many units indexed
    (``besides``: a path only the cluster run had)."""
    here, there = [r for r in catalog_rows(home) if r[0] != besides], catalog_rows(local)
    assert [r[:3] for r in here] == [r[:3] for r in there] and all(r[1] == "done" for r in here)
    assert [r[3] for r in here] == [r[3] for r in there]  # no unit indexed twice
    for path, _, digest, _ in here:
        mine = json.loads((home / "analyses" / f"{digest}.analysis.json").read_text())
        theirs = json.loads((local / "analyses" / f"{digest}.analysis.json").read_text())
        for key in ("boundaries", "identities", "captions", "transcript", *theirs):
            if key == "plan":  # how this run went (seconds spent, stages from a cache), not what it found
                continue
            assert mine[key] == theirs[key], f"{path}: {key}: {_first_difference(mine[key], theirs[key])}"
        assert mine["transcript"] and mine["identities"] and mine["boundaries"], path


def _first_difference(mine, theirs) -> str:
    if isinstance(mine, list) and isinstance(theirs, list) and len(mine) == len(theirs):
        return next(f"item {n}: {a} != {b}" for n, (a, b) in enumerate(zip(mine, theirs)) if a != b)
    return f"{str(mine)[:400]} != {str(theirs)[:400]}"


def test_six_clips_analysed_on_the_cluster_equal_a_local_run(clips, local, tmp_path, monkeypatch):
    broken = tmp_path / "videos" / "broken.mp4"
    broken.parent.mkdir()
    broken.write_bytes(b"not a video" * 100)
    report = in_namespace(tmp_path, [{"home": "driver", "paths": [str(clips), str(broken)]}])
    assert_loopback_only(report)
    [step] = report["steps"]
    assert step["rc"] == 0, step["stderr"][-20:]
    assert step["stdout"].strip() == "6 indexed, 0 unchanged, 1 failed"
    # Both nodes took videos, and the broken file failed alone, named, with its reason.
    assert len({line.rsplit("node ", 1)[1] for line in step["stderr"] if line.lstrip().startswith("running")}) == 2
    [failed] = [line for line in step["stderr"] if line.lstrip().startswith("failed")]
    assert str(broken) in failed and "on " in failed
    home = tmp_path / "driver"
    assert [r[1] for r in catalog_rows(home) if r[0] == str(broken)] == ["failed"]
    assert_same_as_local(home, local, besides=str(broken))

    # The library finds each clip by what was heard in it (Whisper tiny mishears some).
    from videoreview.library.catalog import Catalog
    from videoreview.library.indexer import text_embedder
    from videoreview.library.search import Searcher
    from videoreview.records import Analysis

    monkeypatch.setenv("VIDEOREVIEW_HOME", str(home))
    with Catalog(home / "library.sqlite3", readonly=True) as catalog:
        searcher = Searcher(catalog, text_embedder(), None)
        for video in catalog.videos():
            if video.status == "done":
                said = Analysis.load(home / "analyses" / f"{video.content_hash}.analysis.json").transcript[0].text
                best = searcher.search(said, top=3)[0]
                assert best.path == video.path and best.kind == "speech", (said, best)


def test_a_killed_command_run_again_sends_only_what_is_not_done(clips, local, tmp_path):
    other = ENGINES.replace("speech=whisper-tiny.en", "speech=none")
    report = in_namespace(tmp_path, [{"home": "rerun", "paths": [str(clips)], "kill": "driver"},
                                     {"home": "rerun", "paths": [str(clips)]},
                                     {"home": "rerun", "paths": [str(clips)], "engines": other, "keep": "kept"}])
    assert_loopback_only(report)
    killed, again, changed = report["steps"]
    assert killed["rc"] == -9
    before = lines(killed, "indexed")
    assert len(before) == 2
    # Sent again: exactly the videos the killed run had not indexed; the rest unchanged.
    assert sorted(lines(again, "running")) == sorted(str(p) for p in clips.iterdir() if str(p) not in before)
    assert sorted(lines(again, "unchanged")) == sorted(before)
    assert again["rc"] == 0 and again["stdout"].strip() == "4 indexed, 2 unchanged, 0 failed"
    assert_same_as_local(tmp_path / "kept", local)  # the library as the second run left it
    # Other engines: everything is sent again (a local add keeps what is indexed).
    assert changed["rc"] == 0 and changed["stdout"].strip() == "6 indexed, 0 unchanged, 0 failed"
    for path, status, digest, _ in catalog_rows(tmp_path / "rerun"):
        analysis = json.loads((tmp_path / "rerun" / "analyses" / f"{digest}.analysis.json").read_text())
        assert status == "done" and "speech" not in analysis["engines"] and not analysis["transcript"], path


def test_a_node_killed_mid_run_loses_nothing_and_indexes_nothing_twice(clips, local, tmp_path):
    # The second node's raylet is killed as soon as a video is sent there: its actor is
    # then loading the models for it, so that video is certainly in flight.
    report = in_namespace(tmp_path, [{"home": "lost node", "paths": [str(clips)], "kill": "raylet"}])
    assert_loopback_only(report)
    [step] = report["steps"]
    assert step["rc"] == 0, step["stderr"][-20:]
    assert step["killed_raylet"], "the raylet was never killed"
    assert lines(step, "retrying") == [step["lost_path"]]  # the video in flight there, sent again
    assert sorted(lines(step, "indexed")) == sorted(str(p) for p in clips.iterdir())  # all six, each once
    assert step["stdout"].strip() == "6 indexed, 0 unchanged, 0 failed"
    assert_same_as_local(tmp_path / "lost node", local)


def test_a_model_server_engine_runs_in_the_actors_with_the_workers_own_key(tmp_path):
    """Captions by a model server (server:box): the asking machine defines the server (URL,
    model, the variable holding the key) and has no key; the nodes have the key in their
    environment. The key reaches the server from the workers and is in no file of the
    run: not in the library, the nodes' homes, nor anything Ray wrote (its logs). Sent
    through Ray Client (a ray:// address), as from a machine outside the cluster."""
    from tiny_vlm import colour_clip

    (tmp_path / "videos").mkdir()
    clip = colour_clip(tmp_path / "videos" / "colours.mp4")
    engines = "boundaries=fake,faces=none,speech=none,screen-text=none,objects=none,poses=none,captions=server:box"
    report = in_namespace(tmp_path, [{"home": "driver", "paths": [str(clip)], "engines": engines, "client": True}],
                          server_key=SERVER_KEY, server_home="driver")
    assert_loopback_only(report)
    [step] = report["steps"]
    assert step["rc"] == 0 and step["stdout"].strip() == "1 indexed, 0 unchanged, 0 failed", step["stderr"][-10:]
    from videoreview.records import Analysis

    [saved] = (tmp_path / "driver" / "analyses").glob("*.analysis.json")
    analysis = Analysis.load(saved)
    assert analysis.engines["captions"] == "server:box@1-colours"
    assert [c.text for c in sorted(analysis.captions, key=lambda c: c.time)] == \
        ["a red frame."] * 3 + ["a blue frame."] * 3 + ["a green frame."] * 3
    assert report["server_auth"] and set(report["server_auth"]) == {f"Bearer {SERVER_KEY}"}
    assert report["key_found_in"] == []
    assert SERVER_KEY not in json.dumps(step)


# -- the helper, run as a script inside the namespace -----------------------------------


def _sample_sockets(seen: set, stop: threading.Event) -> None:
    import psutil

    while not stop.is_set():
        for conn in psutil.net_connections(kind="inet"):
            state = conn.status if conn.type == socket.SOCK_STREAM else "UDP"
            seen.add((conn.laddr.ip if conn.laddr else "", conn.raddr.ip if conn.raddr else "", state))
        stop.wait(0.2)


def _run_step(cluster, folder: Path, step: dict) -> dict:
    """Run ``library add --cluster``; kill what the step says when it is time."""
    env = {**cluster.environment(), "VIDEOREVIEW_HOME": str(folder / step["home"])}
    env.pop("BOX_KEY", None)  # the asking machine has no key: the workers have theirs
    if step.get("keep"):
        shutil.copytree(folder / step["home"], folder / step["keep"])
    address = cluster.client_address if step.get("client") else cluster.address
    args = [sys.executable, "-m", "videoreview", "library", "add", *step["paths"], "--engines",
            step.get("engines", ENGINES), "--cluster", address]
    started = time.monotonic()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out: dict = {"stderr": [], "killed_raylet": 0, "lost_path": ""}
    worker = cluster.nodes[1].node_id[:8]
    stdout = []
    reader = threading.Thread(target=lambda: stdout.append(proc.stdout.read()), daemon=True)
    reader.start()
    indexed = 0
    for line in proc.stderr:
        out["stderr"].append(line.rstrip("\n"))
        what = line.split(None, 1)[:1]
        indexed += what == ["indexed"]
        if step.get("kill") == "driver" and indexed == 2:
            proc.kill()  # SIGKILL by its pid, as a crash or a pulled plug would
            break
        if step.get("kill") == "raylet" and not out["killed_raylet"] and what == ["running"] \
                and line.rstrip().endswith(f"node {worker}))"):
            out["killed_raylet"] = cluster.kill_raylet(1)
            out["lost_path"] = line.split(None, 1)[1].split("  (")[0]
    proc.wait(timeout=HELPER_SECONDS)
    reader.join(timeout=10)
    out.update(rc=proc.returncode, stdout="".join(stdout), seconds=time.monotonic() - started)
    return out


def _model_server(key: str, home: Path):
    """The loopback model server, defined in ``home`` as the user would (no key there)."""
    from model_server import ModelServer
    from videoreview.models.servers import Server, add_server

    server = ModelServer(key=key)
    before = os.environ.get("VIDEOREVIEW_HOME")
    os.environ["VIDEOREVIEW_HOME"] = str(home)
    try:
        add_server(Server("box", server.url, "colours", api_key_env="BOX_KEY"))
    finally:
        os.environ.pop("VIDEOREVIEW_HOME")
        if before is not None:
            os.environ["VIDEOREVIEW_HOME"] = before
    return server


def _helper(plan_path: str) -> None:
    import socket

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from videoreview.cluster.local import LocalCluster

    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    plan = json.loads(Path(plan_path).read_text())
    folder = Path(plan["folder"])
    report: dict = {"interfaces": sorted(name for _, name in socket.if_nameindex()), "steps": []}
    seen: set = set()
    stop = threading.Event()
    sampler = threading.Thread(target=_sample_sockets, args=(seen, stop), daemon=True)
    sampler.start()
    key = plan.get("server_key")
    # Ray Client's proxy gives up on a connection's server after this (30 s by default); the
    # app then connects again (connect.py says why).
    env = {"RAY_CLIENT_SERVER_CHECK_CHANNEL_TIMEOUT_S": "15", **({"BOX_KEY": key} if key else {})}
    cluster = LocalCluster(folder / "cluster", workers=1, cpus=1, homes=[folder / "node0", folder / "node1"],
                           token_path=folder / "cluster" / "token", env=env)
    server = _model_server(key, folder / plan["server_home"]) if key else None
    try:
        cluster.start()
        for step in plan["steps"]:
            report["steps"].append(_run_step(cluster, folder, step))
        if key:  # before the cluster stops and its temporary folder goes (the plan holds it: not counted)
            files = [p for p in (*folder.rglob("*"), *cluster.temp.rglob("*")) if p != Path(plan_path)]
            report["key_found_in"] = [str(p) for p in files
                                      if p.is_file() and not p.is_symlink() and key.encode() in p.read_bytes()]
    finally:
        processes = cluster.processes()  # every one seen, the killed node's too
        if cluster.temp is not None and any(step["rc"] not in (0, -9) for step in report["steps"]):
            logs = next(cluster.temp.glob("session_2*"), cluster.temp) / "logs"  # kept to see why
            shutil.copytree(logs, folder / "ray logs", ignore_dangling_symlinks=True, dirs_exist_ok=True)
        cluster.stop()
        stop.set()
        sampler.join(timeout=5)
        if server is not None:
            server.close()
            report["server_auth"] = [r["headers"].get("Authorization") for r in server.requests]
    report["left"] = [p.pid for p in processes if p.is_running() and p.status() != "zombie"]
    report["sockets"] = sorted(seen)
    (folder / "report.json").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    _helper(sys.argv[1])
