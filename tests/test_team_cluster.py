"""`library add --cluster` into a team library: a loopback Ray cluster and a PostgreSQL,
both started in a network namespace that has only ``lo``; the workers index what they
analyse into the server themselves, and the asking machine indexes nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from helpers import can_unshare
from tiny_vlm import colour_clip


@pytest.mark.slow
@pytest.mark.skipif(not can_unshare(), reason="needs root to make a loopback-only network namespace")
def test_the_clusters_workers_index_into_the_team_library(tmp_path):
    clips = tmp_path / "clips"
    clips.mkdir()
    colour_clip(clips / "one.mp4", seconds=1)
    colour_clip(clips / "two.mp4", seconds=2)
    proc = subprocess.run(["unshare", "--net", sys.executable, __file__, str(clips), str(tmp_path)],
                          capture_output=True, text=True, timeout=420)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads((tmp_path / "report.json").read_text())
    assert sorted(os.path.basename(p) for p in report["indexed"]) == ["one.mp4", "two.mp4"], report
    assert report["failed"] == [] and all(line.endswith(", by it") for line in report["indexed_lines"]), report
    assert sorted((os.path.basename(p), status, units > 0) for p, status, units in report["videos"]) == [
        ("one.mp4", "done", True), ("two.mp4", "done", True)]
    assert not (tmp_path / "home" / "analyses").exists()  # nothing came back to be saved and indexed here


def _helper(clips: str, folder: str) -> None:
    """In the namespace: a PostgreSQL, a one-node cluster, the add, what the server holds."""
    from videoreview.cluster.driver import add_on_cluster
    from videoreview.cluster.local import LocalCluster
    from videoreview.library.team import server
    from videoreview.library.team.catalog import TeamCatalog

    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    folder = Path(folder)
    database = tempfile.mkdtemp(prefix="videoreview-pg-cluster-")
    url = server.start(database)
    cluster = LocalCluster(folder / "cluster", workers=0, cpus=2, homes=[folder / "node"],
                           token_path=folder / "cluster" / "token")
    lines: list[str] = []
    try:
        cluster.start()
        os.environ.update(cluster.environment())
        os.environ["VIDEOREVIEW_HOME"] = str(folder / "home")
        os.environ["VIDEOREVIEW_LIBRARY"] = url
        result = add_on_cluster([clips], cluster.address, {"boundaries": "builtin"},
                                report=lambda path, what, detail: lines.append(f"{what} {detail}")
                                if what == "indexed" else None)
        with TeamCatalog(url) as catalog:
            videos = [(v.path, v.status, len(catalog.units(v.id))) for v in catalog.videos()]
    finally:
        cluster.stop()
        server.stop(database)
        shutil.rmtree(database, ignore_errors=True)
    (folder / "report.json").write_text(json.dumps({"indexed": result.indexed, "failed": result.failed,
                                                    "videos": videos, "indexed_lines": lines}))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    _helper(*sys.argv[1:3])
