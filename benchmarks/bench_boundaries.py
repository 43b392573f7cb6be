"""Boundary analysis: speed, memory and cut F1 against PySceneDetect on the same files.

    .venv/bin/python benchmarks/bench_boundaries.py [--seconds 150] [--low-seconds 180]
                                                    [--long-minutes 20] [--keep DIR]

Generates two H.264 clips with cuts at known times (tests/videos.py): 720p 25 fps with a
cut every 10 s, and 480x352 25 fps with many short shots (1.5-5 s). On each it runs,
every one in a fresh subprocess so peak memory is its own:
  - ours: the builtin boundary engine through the pipeline (boundaries only, no cache);
  - PySceneDetect's ContentDetector and AdaptiveDetector with their defaults;
  - ``ffmpeg -i CLIP -f null -``: decoding alone, the floor.
Prints realtime factor (video seconds per analysis second), peak RSS, cut F1 at 0.5 s
(and the GEB+ average), and our time / each detector's time. With --long-minutes it also
runs ours on a longer 720p clip to show peak memory does not grow with video length.
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
        analysis = analyze(path, {"boundaries": "builtin"}, cache=StageCache(Path(cache_root)), use_cache=False)
        elapsed = time.perf_counter() - start
    return {
        "seconds": elapsed,
        "peak_rss_mb": peak_rss_mb(),
        "duration": analysis.video.duration,
        "cuts": [b.time for b in analysis.boundaries if b.kind in ("cut", "gradual")],
        "events": [b.time for b in analysis.boundaries if b.kind == "event"],
    }


def worker_scenedetect(path: str, kind: str) -> dict:
    from scenedetect import AdaptiveDetector, ContentDetector, detect

    start = time.perf_counter()
    scenes = detect(path, ContentDetector() if kind == "content" else AdaptiveDetector())
    elapsed = time.perf_counter() - start
    # A scene list's start times after the first are the cuts.
    cuts = [start.get_seconds() for start, _ in scenes[1:]]
    return {"seconds": elapsed, "peak_rss_mb": peak_rss_mb(), "cuts": cuts, "events": []}


def run_worker(kind: str, path: Path) -> dict:
    """The worker's result, with the whole process's wall time (start-up included) as "process"."""
    start = time.perf_counter()
    out = subprocess.run([sys.executable, __file__, "--worker", kind, str(path)],
                         check=True, capture_output=True, text=True)
    return {**json.loads(out.stdout.strip().splitlines()[-1]), "process": time.perf_counter() - start}


def ffmpeg_decode(path: Path) -> float:
    """Median of 3 wall times of FFmpeg decoding the file and discarding the frames."""
    times = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-f", "null", "-"], check=True)
        times.append(time.perf_counter() - start)
    return sorted(times)[1]


def report(name: str, result: dict, truth: list[float], duration: float) -> None:
    from videoreview.metrics.boundaries import boundary_f1, f1_at

    f05 = f1_at(result["cuts"], truth, 0.5)
    _, avg = boundary_f1(result["cuts"], truth)
    print(f"{name:<22} {result['seconds']:8.1f} s  (process {result['process']:5.1f} s)  "
          f"{duration / result['seconds']:6.1f}x realtime  "
          f"peak {result['peak_rss_mb']:7.0f} MB  cuts {len(result['cuts']):3d}/{len(truth):3d}  "
          f"F1@0.5s {f05.f1:.3f} (P {f05.precision:.3f} R {f05.recall:.3f})  GEB+ avg F1 {avg:.3f}"
          + (f"  events {len(result['events'])}" if result["events"] else ""))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=150.0)
    parser.add_argument("--low-seconds", type=float, default=180.0)
    parser.add_argument("--long-minutes", type=float, default=0.0)
    parser.add_argument("--keep", help="keep the generated clips in this folder")
    parser.add_argument("--worker", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        kind, path = args.worker
        result = worker_ours(path) if kind == "ours" else worker_scenedetect(path, kind)
        print(json.dumps(result))
        return

    from videos import make_long_video

    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-boundaries-"))
    folder.mkdir(parents=True, exist_ok=True)
    clips = [(folder / f"clip-{int(args.seconds)}s-720p25.mp4", args.seconds, (1280, 720), 10.0),
             (folder / f"clip-{int(args.low_seconds)}s-480x352-short-shots.mp4", args.low_seconds, (480, 352),
              (2.0, 3.5, 1.5, 5.0, 2.5, 3.0))]
    ours = None
    for clip, seconds, size, cut_every in clips:
        truth = list(make_long_video(clip, seconds, size=size, cut_every=cut_every).cut_times)
        print(f"\nclip: {clip.name} ({seconds:.0f} s, {size[0]}x{size[1]}, 25 fps, H.264, {len(truth)} cuts); "
              f"ffmpeg decodes it in {ffmpeg_decode(clip):.2f} s")
        results = {kind: run_worker(kind, clip) for kind in ("ours", "content", "adaptive")}
        print(f"{'detector':<22} {'time':>10}  {'':>17}  {'speed':>15}  {'memory':>12}")
        for kind, name in (("ours", "videoreview"), ("content", "PySceneDetect content"),
                           ("adaptive", "PySceneDetect adaptive")):
            report(name, results[kind], truth, seconds)
        for kind, name in (("content", "ContentDetector"), ("adaptive", "AdaptiveDetector")):
            print(f"ours / {name} time: {results['ours']['seconds'] / results[kind]['seconds']:.2f} in the "
                  f"detector, {results['ours']['process'] / results[kind]['process']:.2f} as whole processes")
        ours = ours or results["ours"]

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
