"""Twelve clips added to a library locally and on a two-node Ray cluster on this machine, in
the same run: wall time of each, the cluster path's overhead per video, and the speed-up.

    .venv/bin/python benchmarks/bench_cluster.py [--clips 12] [--keep DIR]

Each clip is 4 s, 320x180, two shots of the test faces with a sentence spoken under it
(tests/faces.py, tests/speech.py); engines: builtin boundaries and captions, BlazeFace,
Whisper tiny.en (the others off). Both runs start cold: a new library, empty stage
caches, the models loaded inside the time.

- local: ``videoreview library add FOLDER`` in one process;
- cluster: a head and a second node (``ray start``, one CPU each, bound to 127.0.0.1)
  and ``videoreview library add FOLDER --cluster ADDRESS``; the cluster's start is timed
  apart. The overhead per video is the time from "running" to "indexed" on the asking
  side less the analysis time the worker measured: sending, the Analysis coming back,
  saving and indexing it (the indexing a local run pays too).

As root, the cluster half runs in a network namespace that has only ``lo`` (``unshare
--net``), so none of its traffic can leave the machine; otherwise it refuses to run.
On a 2-core machine two one-CPU nodes share the cores a local run uses: expect no speed-up.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

ENGINES = ("boundaries=builtin,faces=blazeface,speech=whisper-tiny.en,screen-text=none,objects=none,poses=none,"
           "captions=builtin")
SENTENCES = ["The tide comes in at noon.", "Bring the red box to the kitchen.", "Please close the door.",
             "Open the window please.", "The garden is full of roses.", "We found the keys in the car."]


def make_clips(folder: Path, count: int) -> list[Path]:
    """``count`` different clips in ``folder``/clips."""
    from faces import SCENE, SECOND_CLIP, make_face_video
    from speech import Line, speech_clip

    work = folder / "raw"
    work.mkdir(parents=True, exist_ok=True)
    (folder / "clips").mkdir(exist_ok=True)
    shots = [SECOND_CLIP, SCENE[:2], SCENE[1:3], SCENE[2:], [SCENE[3], SCENE[0]], [SECOND_CLIP[1], SCENE[1]]]
    clips = []
    for n in range(count):
        make_face_video(work / f"{n}.mp4", shots[n % len(shots)], size=(320, 180))
        voice = "ab"[(n // len(shots)) % 2]  # the second six: the other voice, so every clip differs
        clip, _ = speech_clip(work, f"clip {n:02d}.mp4", work / f"{n}.mp4",
                              [Line(0.5, SENTENCES[n % len(SENTENCES)], voice)], 4.0)
        clips.append(clip.rename(folder / "clips" / clip.name))
    return clips


def add(folder: Path, home: Path, env: dict, cluster: str | None = None) -> dict:
    """Run ``library add`` and time it; the progress lines with the time each was read."""
    args = [sys.executable, "-m", "videoreview", "library", "add", str(folder), "--engines", ENGINES]
    if cluster:
        args += ["--cluster", cluster]
    started = time.monotonic()
    proc = subprocess.Popen(args, env={**env, "VIDEOREVIEW_HOME": str(home)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    lines = [(time.monotonic() - started, line.rstrip("\n")) for line in proc.stderr]
    out = proc.stdout.read()
    proc.wait()
    if proc.returncode != 0:
        sys.exit(f"library add failed ({proc.returncode}): {out}\n" + "\n".join(text for _, text in lines[-20:]))
    return {"seconds": time.monotonic() - started, "stdout": out.strip(), "lines": lines}


def overheads(lines: list[tuple[float, str]]) -> list[float]:
    """Per video: running -> indexed on the asking side, less the worker's own analysis time."""
    sent, out = {}, []
    for at, text in lines:
        what, _, rest = text.strip().partition("  ")
        path, _, detail = rest.strip().partition("  (")
        if what == "running":
            sent[path] = at
        elif what == "indexed" and path in sent:
            analysis = float(detail.split(" s on ", 1)[0])
            out.append(at - sent.pop(path) - analysis)
    return out


def writer_cost(home: Path, folder: Path) -> tuple[float, float, int]:
    """The catalog's single writer: every saved Analysis of ``home`` indexed again into a new
    catalog, as the asking side does for each video that comes back. Returns (seconds of
    the text embedding, seconds of the rest: units and one SQLite transaction, units)."""
    from videoreview.library.catalog import Catalog
    from videoreview.library.indexer import text_embedder
    from videoreview.library.units import units_of
    from videoreview.records import Analysis

    embedder = text_embedder()
    embedder.embed(["warm up"])
    analyses = [Analysis.load(p) for p in sorted((home / "analyses").glob("*.analysis.json"))]
    embed = write = 0.0
    units = 0
    with Catalog(folder / "writer.sqlite3") as catalog:
        for analysis in analyses:
            video_id, _ = catalog.add_video(analysis.video.path, analysis.content_hash)
            texts = [u.text for u in units_of(analysis)]
            started = time.perf_counter()
            vectors = embedder.embed(texts)
            embed += time.perf_counter() - started
            started = time.perf_counter()
            units += catalog.index_analysis(video_id, analysis, lambda _texts: vectors)
            write += time.perf_counter() - started
    return embed, write, units


def inside(folder: Path) -> None:
    """The cluster half, in the namespace: start the cluster, add, stop it (by pid)."""
    from videoreview.cluster.local import LocalCluster

    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    cluster = LocalCluster(folder / "cluster", workers=1, cpus=1, homes=[folder / "node0", folder / "node1"],
                           token_path=folder / "cluster" / "token")
    started = time.monotonic()
    try:
        cluster.start()
        start = time.monotonic() - started
        run = add(folder / "clips", folder / "cluster home", cluster.environment(), cluster.address)
    finally:
        cluster.stop()
    (folder / "cluster.json").write_text(json.dumps({"start": start, **run}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", type=int, default=12)
    parser.add_argument("--keep", metavar="DIR", help="work in DIR and keep it")
    parser.add_argument("--inside", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        inside(Path(args.inside))
        return
    if subprocess.run(["unshare", "--net", "true"], capture_output=True).returncode != 0:
        sys.exit("bench_cluster: needs root for a loopback-only network namespace (unshare --net)")
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    folder.mkdir(parents=True, exist_ok=True)
    made = time.monotonic()
    make_clips(folder, args.clips)
    print(f"{args.clips} clips made in {time.monotonic() - made:.1f} s ({folder / 'clips'})")

    local = add(folder / "clips", folder / "local home", dict(os.environ))
    print(f"local:   {local['seconds']:6.1f} s  ({local['stdout']})")
    subprocess.run(["unshare", "--net", sys.executable, __file__, "--inside", str(folder)], check=True)
    cluster = json.loads((folder / "cluster.json").read_text())
    print(f"cluster: {cluster['seconds']:6.1f} s  ({cluster['stdout']}); the cluster started in "
          f"{cluster['start']:.1f} s before that")
    per_video = overheads(cluster["lines"])
    first = next(at for at, text in cluster["lines"] if text.strip().startswith("running"))
    analysis = [float(t.split("  (", 1)[1].split(" s on ", 1)[0]) for _, t in cluster["lines"]
                if t.strip().startswith("indexed")]
    print(f"  until the first video was sent (connect, catalogue, actors ready): {first:.1f} s")
    print(f"  analysis on the workers: {sum(analysis):.1f} s in all, median {statistics.median(analysis):.2f} s "
          f"a video (the first on each actor loads the models)")
    print(f"  overhead per video (sent -> indexed, less the analysis): median {statistics.median(per_video):.3f} s, "
          f"max {max(per_video):.3f} s")
    print(f"speed-up: {local['seconds'] / cluster['seconds']:.2f}x (cluster start not counted), "
          f"{local['seconds'] / (cluster['seconds'] + cluster['start']):.2f}x with it")
    embed, write, units = writer_cost(folder / "cluster home", folder)
    count = len(list((folder / "cluster home" / "analyses").glob("*.analysis.json")))
    print(f"the catalog's writer, per video ({units / count:.0f} units): text embedding {1000 * embed / count:.1f} ms, "
          f"units and the transaction {1000 * write / count:.1f} ms ({1000 * (embed + write) / units:.2f} ms a unit)")
    if not args.keep:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
