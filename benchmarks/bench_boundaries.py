"""Boundary analysis: speed, memory and cut F1 against PySceneDetect on the same file.

    .venv/bin/python benchmarks/bench_boundaries.py [--seconds 150] [--long-minutes 20] [--keep DIR]

Generates a 720p 25 fps H.264 clip with cuts at known times (tests/videos.py), then runs,
each in a fresh subprocess so peak memory is its own:
  - ours: the builtin boundary engine through the pipeline (no cache);
  - PySceneDetect's ContentDetector with its defaults.
Prints realtime factor (video seconds per analysis second), peak RSS, cut F1 at 0.5 s
(and the GEB+ average), and our time / its time. With --long-minutes it also runs ours on
a longer clip to show peak memory does not grow with video length.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # the checkout's videoreview and test-video makers


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def worker_ours(path: str) -> dict:
    from videoreview.pipeline import StageCache, analyze

    with tempfile.TemporaryDirectory() as cache_root:
        start = time.perf_counter()
        analysis = analyze(path, cache=StageCache(Path(cache_root)), use_cache=False)
        elapsed = time.perf_counter() - start
    return {
        "seconds": elapsed,
        "peak_rss_mb": peak_rss_mb(),
        "duration": analysis.video.duration,
        "cuts": [b.time for b in analysis.boundaries if b.kind in ("cut", "gradual")],
        "events": [b.time for b in analysis.boundaries if b.kind == "event"],
    }


def worker_scenedetect(path: str) -> dict:
    from scenedetect import ContentDetector, detect

    start = time.perf_counter()
    scenes = detect(path, ContentDetector())
    elapsed = time.perf_counter() - start
    # A scene list's start times after the first are the cuts.
    cuts = [start.get_seconds() for start, _ in scenes[1:]]
    return {"seconds": elapsed, "peak_rss_mb": peak_rss_mb(), "cuts": cuts, "events": []}


def run_worker(kind: str, path: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--worker", kind, str(path)],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def report(name: str, result: dict, truth: list[float], duration: float) -> None:
    from videoreview.metrics.boundaries import boundary_f1, f1_at

    f05 = f1_at(result["cuts"], truth, 0.5)
    _, avg = boundary_f1(result["cuts"], truth)
    print(f"{name:<14} {result['seconds']:8.1f} s  {duration / result['seconds']:6.1f}x realtime  "
          f"peak {result['peak_rss_mb']:7.0f} MB  cuts {len(result['cuts']):3d}/{len(truth):3d}  "
          f"F1@0.5s {f05.f1:.3f} (P {f05.precision:.3f} R {f05.recall:.3f})  GEB+ avg F1 {avg:.3f}"
          + (f"  events {len(result['events'])}" if result["events"] else ""))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=150.0)
    parser.add_argument("--long-minutes", type=float, default=0.0)
    parser.add_argument("--keep", help="keep the generated clips in this folder")
    parser.add_argument("--worker", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        kind, path = args.worker
        result = worker_ours(path) if kind == "ours" else worker_scenedetect(path)
        print(json.dumps(result))
        return

    from videos import make_long_video

    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-boundaries-"))
    folder.mkdir(parents=True, exist_ok=True)
    clip = folder / f"clip-{int(args.seconds)}s-720p25.mp4"
    start = time.perf_counter()
    truth = list(make_long_video(clip, args.seconds).cut_times)
    print(f"clip: {clip} ({args.seconds:.0f} s, 1280x720, 25 fps, H.264, {len(truth)} cuts), "
          f"generated in {time.perf_counter() - start:.0f} s")

    ours = run_worker("ours", clip)
    theirs = run_worker("scenedetect", clip)
    print(f"{'detector':<14} {'time':>10}  {'speed':>15}  {'memory':>12}")
    report("videoreview", ours, truth, args.seconds)
    report("PySceneDetect", theirs, truth, args.seconds)
    print(f"ours / PySceneDetect time: {ours['seconds'] / theirs['seconds']:.2f}")

    if args.long_minutes:
        long_clip = folder / f"clip-{int(args.long_minutes)}min-720p25.mp4"
        long_truth = list(make_long_video(long_clip, args.long_minutes * 60).cut_times)
        long_result = run_worker("ours", long_clip)
        print(f"long clip: {args.long_minutes:.0f} min")
        report("videoreview", long_result, long_truth, args.long_minutes * 60)
        print(f"peak memory {args.seconds:.0f} s clip: {ours['peak_rss_mb']:.0f} MB, "
              f"{args.long_minutes:.0f} min clip: {long_result['peak_rss_mb']:.0f} MB")


if __name__ == "__main__":
    main()
