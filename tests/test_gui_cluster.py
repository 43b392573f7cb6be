"""Settings > Cluster in the window: the address is checked and kept; with one
set, adding to the library goes to the library process's cluster action instead of the
window's analysis queue, a cluster that cannot be reached is one line in the panel with the
videos kept in the library, and the panel shows each video's state there (queued, running
on a node, indexed, failed) from the driver's reports. The fast tests need no cluster; the
slow one runs the real action against a loopback cluster (as tests/test_cluster.py, it
needs root for its network namespace)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from fake_engines import ENGINES  # noqa: E402
from helpers import can_unshare, choose_engines  # noqa: E402
from tiny_vlm import colour_clip  # noqa: E402
from videoreview.cluster.driver import add_on_cluster  # noqa: E402
from videoreview.gui.main_window import MainWindow  # noqa: E402
from videoreview.gui.window_settings import CLUSTER, cluster_address, set_cluster_address, window_settings  # noqa: E402
from videoreview.library.catalog import Catalog  # noqa: E402
from videoreview.library.service import LibraryService  # noqa: E402

REPLY_MS = 120_000  # the library process starts and imports Ray on a busy 2-core machine
UNREACHABLE = "127.0.0.1:1"  # loopback, a port nothing listens on: refused at once


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cluster clips")
    colour_clip(folder / "one.mp4", seconds=1)
    colour_clip(folder / "two.mp4", seconds=2)  # other content: another video to the catalog
    return folder


@pytest.fixture(scope="module")
def window(qapp, home):
    choose_engines(ENGINES)
    w = MainWindow()
    w.show()
    yield w
    set_cluster_address("")
    w.close()


def test_the_settings_field_checks_and_keeps_the_address(qtbot, window):
    window.show_settings()
    dialog = window.settings_dialog
    assert dialog.cluster.text() == ""
    dialog.cluster.setText("ray://head.lan/x")
    dialog.apply_cluster()
    assert dialog.status.text() == ("Cluster: 'ray://head.lan/x': not a Ray address (ray://HOST:10001, HOST:6379 "
                                    "or auto); not saved.")
    assert cluster_address() == ""
    dialog.cluster.setText("head.lan:70000")
    dialog.apply_cluster()
    assert "port 70000 is out of range" in dialog.status.text() and cluster_address() == ""

    dialog.cluster.setText("  ray://head.lan:10001 ")
    dialog.apply_cluster()
    assert dialog.status.text() == "Videos added to the library are now analysed on the cluster at ray://head.lan:10001."
    assert window_settings().value(CLUSTER) == "ray://head.lan:10001"
    dialog.close()
    window.show_settings()  # a new dialog shows what was kept
    assert window.settings_dialog.cluster.text() == "ray://head.lan:10001"
    window.settings_dialog.cluster.setText("")
    window.settings_dialog.close()  # closing applies what was typed
    assert cluster_address() == ""


def test_an_unreachable_cluster_is_one_line_and_the_videos_stay_in_the_library(qtbot, window, clips, home):
    set_cluster_address(UNREACHABLE)
    panel = window.library_panel
    sent_here = []
    panel.analyseRequested.connect(sent_here.append)
    problems = []
    panel.problem.connect(problems.append)
    with qtbot.waitSignal(panel.cataloguing.clusterEnded, timeout=REPLY_MS) as ended:
        panel.add_paths([str(clips)])
        assert panel.queue_status.stop_button.isVisibleTo(panel)  # the run can be stopped while it is asked for
    line = ended.args[0]
    assert line.startswith(f"cannot reach the Ray cluster at {UNREACHABLE} (Connection refused)"), line
    assert line.endswith("Nothing is lost: 2 videos stay in the library waiting to be analysed (add them again, or "
                         "empty Settings > Cluster to analyse them here)")
    assert "\n" not in line and problems == [line]
    assert panel.queue_status.cluster_label.text() == line
    assert not panel.queue_status.stop_button.isVisibleTo(panel)
    assert sent_here == [] and window.queue.is_idle()  # not analysed here instead
    qtbot.waitUntil(lambda: len(panel.video_list.videos) == 2, timeout=REPLY_MS)
    assert {os.path.basename(v.path): v.status for v in panel.video_list.videos} == {"one.mp4": "new",
                                                                                    "two.mp4": "new"}
    set_cluster_address("")


def test_the_panel_shows_where_each_video_is_analysed(qtbot, window):
    cataloguing, status = window.library_panel.cataloguing, window.library_panel.queue_status
    cataloguing.clusterStarted.emit()
    assert status.cluster_label.text() == "Sending to the cluster…" and status.stop_button.isVisibleTo(status)
    for payload in [("added", "/v/a.mp4"), ("cluster", "queued", "/v/a.mp4", ""),
                    ("cluster", "queued", "/v/b.mp4", ""), ("cluster", "running", "/v/a.mp4", "gpu-1 (10.0.0.2)"),
                    ("cluster", "running", "/v/b.mp4", "gpu-2 (10.0.0.3)"),
                    ("cluster", "retrying", "/v/b.mp4", "lost on gpu-2 (10.0.0.3) (ActorDiedError)")]:
        cataloguing._on_add_progress(payload)
    rows = [status.cluster_list.item(n).text() for n in range(status.cluster_list.count())]
    assert rows == ["a.mp4 — running on gpu-1 (10.0.0.2)",
                    "b.mp4 — queued again: lost on gpu-2 (10.0.0.3) (ActorDiedError)"]
    assert status.cluster_label.text() == "On the cluster: 1 running, 1 queued, 0 indexed, 0 failed"
    cataloguing._on_add_progress(("cluster", "indexed", "/v/a.mp4", "4.2 s on gpu-1 (10.0.0.2)"))
    cataloguing._on_add_progress(("cluster", "failed", "/v/b.mp4", "/v/b.mp4: cannot be read on gpu-3"))
    assert [status.cluster_list.item(n).text() for n in range(2)] == [
        "a.mp4 — indexed (4.2 s on gpu-1 (10.0.0.2))", "b.mp4 — failed: /v/b.mp4: cannot be read on gpu-3"]
    cataloguing._on_cluster_done({"wanted": ["/v/a.mp4", "/v/b.mp4"], "unchanged": 3, "indexed": ["/v/a.mp4"],
                                  "failed": [("/v/b.mp4", "/v/b.mp4: cannot be read on gpu-3")], "skipped": [],
                                  "problem": None, "stopped": False})
    assert status.cluster_label.text() == "On the cluster: 1 indexed, 1 failed, 3 already indexed"
    assert status.cluster_list.isVisibleTo(status) and not status.stop_button.isVisibleTo(status)
    cataloguing.clusterStarted.emit()  # the next run starts with its own rows
    assert status.cluster_list.count() == 0
    cataloguing._on_cluster_error("the library process stopped unexpectedly (exit code 1)")
    assert status.cluster_label.text() == "the library process stopped unexpectedly (exit code 1)"


# -- the service's action, without the window ------------------------------------------------

def test_the_service_action_catalogues_first_and_says_why_the_cluster_cannot_be_used(fresh_home, clips):
    service = LibraryService(cluster=add_on_cluster)
    progress = []
    try:
        result = service.add_on_cluster([str(clips)], UNREACHABLE, {"boundaries": "none"}, progress.append)
        assert result["problem"].startswith(f"cannot reach the Ray cluster at {UNREACHABLE} (Connection refused)")
        assert sorted(os.path.basename(p) for p in result["wanted"]) == ["one.mp4", "two.mp4"]
        assert result["indexed"] == [] and result["failed"] == [] and not result["stopped"]
        assert sorted((what, os.path.basename(path)) for what, path in progress) == [("added", "one.mp4"),
                                                                                     ("added", "two.mp4")]
    finally:
        service.close()
    with Catalog() as catalog:
        assert sorted((os.path.basename(v.path), v.status) for v in catalog.videos()) == [("one.mp4", "new"),
                                                                                          ("two.mp4", "new")]
    with pytest.raises(Exception, match="started without the cluster's driver"):
        LibraryService().add_on_cluster([str(clips)], UNREACHABLE, None, progress.append)


def test_the_window_stop_cancels_a_run_on_the_cluster(fresh_home, clips):
    """The stop reaches the driver's cancel token (a stand-in for the driver: the real one's
    loop checks the same token between its looks at the cluster)."""
    seen = {}

    def driver(paths, address, engines, *, catalog, embedder, frames, report, cancel):
        seen.update(paths=paths, address=address, engines=engines)
        report(paths[0], "queued", "")
        report(paths[0], "running", "node-a")
        while True:
            cancel.check()
            time.sleep(0.01)

    service = LibraryService(cluster=driver)
    progress, result = [], {}
    running = threading.Event()

    def on_progress(payload):
        progress.append(payload)
        if payload[1] == "running":
            running.set()

    run = threading.Thread(target=lambda: result.update(service.add_on_cluster([str(clips)], "auto", {"x": "y"},
                                                                               on_progress)))
    run.start()
    try:
        assert running.wait(30)
        service.stop()  # what serve's watcher does when the window's stop is pressed
        run.join(10)
        assert not run.is_alive() and result["stopped"] and result["problem"] is None
    finally:
        service.cancel.cancel()
        run.join(10)
        service.close()
    assert seen["address"] == "auto" and seen["engines"] == {"x": "y"} and len(seen["paths"]) == 2
    assert [p for p in progress if p[0] == "cluster"] == [("cluster", "queued", seen["paths"][0], ""),
                                                          ("cluster", "running", seen["paths"][0], "node-a")]


# -- the real action on a loopback cluster (slow) ----------------------------------------------

@pytest.mark.slow
@pytest.mark.skipif(not can_unshare(), reason="needs root to make a loopback-only network namespace")
def test_the_service_action_analyses_two_clips_on_a_loopback_cluster(clips, tmp_path):
    """The window's path to a cluster (the library process's action with the real driver)
    against a head started with ``ray start`` in a namespace that has only ``lo``."""
    proc = subprocess.run(["unshare", "--net", sys.executable, __file__, str(clips), str(tmp_path)],
                          capture_output=True, text=True, timeout=420)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads((tmp_path / "report.json").read_text())
    result = report["result"]
    assert result["problem"] is None and result["failed"] == [] and not result["stopped"], result
    names = sorted(os.path.basename(p) for p in result["indexed"])
    assert names == ["one.mp4", "two.mp4"]
    for path in result["indexed"]:
        states = [(what, detail) for _, what, p, detail in report["progress"] if p == path]
        assert [what for what, _ in states] == ["queued", "running", "indexed"], states
        node = states[1][1]
        assert "127.0.0.1" in node and states[2][1].endswith(f" on {node}")  # where it ran, said twice
    assert sorted((os.path.basename(path), status) for path, status in report["videos"]) == [("one.mp4", "done"),
                                                                                            ("two.mp4", "done")]


def _helper(clips: str, folder: str) -> None:
    """In the namespace: a one-node cluster (two CPUs: two actors), the action, the catalog."""
    from videoreview.cluster.local import LocalCluster

    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    folder = Path(folder)
    cluster = LocalCluster(folder / "cluster", workers=0, cpus=2, homes=[folder / "node"],
                           token_path=folder / "cluster" / "token")
    try:
        cluster.start()
        os.environ.update(cluster.environment())
        os.environ["VIDEOREVIEW_HOME"] = str(folder / "home")
        service = LibraryService(cluster=add_on_cluster)
        progress: list = []
        try:
            result = service.add_on_cluster([clips], cluster.address, {"boundaries": "builtin"}, progress.append)
            videos = [(v.path, v.status) for v in service.videos()]
        finally:
            service.close()
    finally:
        cluster.stop()
    (folder / "report.json").write_text(json.dumps({"result": result, "videos": videos,
                                                    "progress": [p for p in progress if p[0] == "cluster"]}))


if __name__ == "__main__":
    _helper(*sys.argv[1:3])
