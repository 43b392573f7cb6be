"""The whole default pipeline: start-up, realtime factor, peak memory, and FFmpeg's decode floor.

    .venv/bin/python benchmarks/bench_pipeline.py [--seconds 150] [--long-minutes 2 20] [--keep DIR]

Generates a 720p 25 fps H.264 clip (tests/videos.py) and a 10-frame one, then measures,
each in a fresh process:
  - start-up: ``videoreview --version``, and ``videoreview analyze --no-cache`` of the
    10-frame clip (launch to exit, and launch to the first frame analysed); and the
    window's analysis process (``pipeline.child.run_analysis``, spawned as the window
    does) on 10-, 11- and 12-frame clips never analysed before: spawn to first frame;
  - the pipeline with the default engines on the clip, no cache: analysis time (after
    the imports), realtime factor, and peak RSS; with --long-minutes also on longer clips,
    to show whether memory stays flat with length;
  - ``ffmpeg -i CLIP -f null -``: decoding alone, the floor any analysis stands on.
The ONNX exports are made before the timings (once per machine, not per run).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # the checkout's videoreview and test-video makers

from memory import peak_rss_mb  # noqa: E402  (benchmarks/memory.py)

VIDEOREVIEW = [sys.executable, "-m", "videoreview"]


def worker(path: str) -> dict:
    """Analyse ``path`` with the default engines, no cache; launch time in argv[-1]."""
    launched = float(sys.argv[-1])
    from videoreview.pipeline import StageCache, analyze

    first: list[float] = []

    def progress(stage: str, fraction: float, message: str) -> None:
        if stage != "probe" and fraction > 0 and not first:
            first.append(time.time())

    with tempfile.TemporaryDirectory() as root:
        start = time.perf_counter()
        analysis = analyze(path, cache=StageCache(Path(root)), use_cache=False, progress=progress)
        elapsed = time.perf_counter() - start
    return {"seconds": elapsed, "duration": analysis.video.duration, "peak_rss_mb": peak_rss_mb(),
            "first_frame_after_launch": first[0] - launched if first else None}


def run_worker(path: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--worker", str(path), str(time.time())],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@contextlib.contextmanager
def fresh_home():
    """An empty VIDEOREVIEW_HOME (no cached results), with this machine's ONNX exports."""
    from videoreview.paths import data_dir

    exports = data_dir() / "onnx"
    old = os.environ.get("VIDEOREVIEW_HOME")
    with tempfile.TemporaryDirectory() as home:
        (Path(home) / "onnx").symlink_to(exports, target_is_directory=True)
        os.environ["VIDEOREVIEW_HOME"] = home
        try:
            yield
        finally:
            if old is None:
                del os.environ["VIDEOREVIEW_HOME"]
            else:
                os.environ["VIDEOREVIEW_HOME"] = old


def child_first_frame(path: Path) -> float:
    """Seconds from spawning the window's analysis process on ``path`` to its first
    progress report of a frame analysed."""
    import multiprocessing

    from videoreview.pipeline.child import run_analysis

    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    cancel = context.Event()
    start = time.perf_counter()
    child = context.Process(target=run_analysis, args=(str(path), None, None, send, cancel))
    child.start()
    send.close()
    first = None
    while True:
        kind, payload = receive.recv()
        if kind == "progress" and first is None and payload[0] != "probe" and payload[1] > 0:
            first = time.perf_counter() - start
        if kind in ("done", "failed", "cancelled"):
            break
    child.join()
    return first


def wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def median_wall(command: list[str], runs: int = 3) -> float:
    return sorted(wall(command) for _ in range(runs))[runs // 2]


def ffmpeg_decode(path: Path) -> float:
    return median_wall(["ffmpeg", "-v", "error", "-i", str(path), "-f", "null", "-"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=150.0)
    parser.add_argument("--long-minutes", type=float, nargs="*", default=[])
    parser.add_argument("--keep", help="keep the generated clips in this folder")
    parser.add_argument("--worker", nargs=2, metavar=("PATH", "LAUNCHED"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker[0])))
        return

    from videos import make_long_video

    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-pipeline-"))
    folder.mkdir(parents=True, exist_ok=True)
    tiny = folder / "ten-frames-720p.mp4"
    make_long_video(tiny, 10 / 25)
    clip = folder / f"clip-{int(args.seconds)}s-720p25.mp4"
    make_long_video(clip, args.seconds)
    run_worker(tiny)  # makes the ONNX exports if this machine has none yet

    version = median_wall(VIDEOREVIEW + ["--version"])
    with tempfile.TemporaryDirectory() as out:
        small = median_wall(VIDEOREVIEW + ["analyze", "-q", "--no-cache", "-o", f"{out}/a.json", str(tiny)])
    first = run_worker(tiny)["first_frame_after_launch"]
    fresh = []
    with fresh_home():
        for frames in (10, 11, 12):
            make_long_video(folder / f"fresh-{frames}.mp4", frames / 25)
            fresh.append(child_first_frame(folder / f"fresh-{frames}.mp4"))
    print(f"start-up: --version {version:.2f} s; analyze of a 10-frame 720p clip {small:.2f} s "
          f"(launch to first frame analysed {first:.2f} s); the window's analysis process, "
          f"spawn to first frame analysed: {', '.join(f'{t:.2f}' for t in fresh)} s")

    print(f"{'clip':<28} {'analysis':>9} {'realtime':>9} {'peak RSS':>9} {'ffmpeg decode':>14} {'ratio':>6}")
    for path, seconds in [(clip, args.seconds)] + [
            (folder / f"clip-{m:g}min-720p25.mp4", m * 60) for m in args.long_minutes]:
        if not path.exists():
            make_long_video(path, seconds)
        result = run_worker(path)
        floor = ffmpeg_decode(path)
        print(f"{path.name:<28} {result['seconds']:8.1f}s {result['duration'] / result['seconds']:8.1f}x "
              f"{result['peak_rss_mb']:6.0f} MB {floor:13.2f}s {result['seconds'] / floor:5.1f}x")


if __name__ == "__main__":
    main()
