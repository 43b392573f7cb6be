"""People's statuses on the pose test clips: MoveNet's keypoints turned into statuses and status
changes, against the truth the clips were drawn with.

    .venv/bin/python benchmarks/bench_poses.py [--rate 5] [--clips NAME ...] [--keep DIR] [--min-duration 1.0]

The clips are tests/pose_clips.py's (a drawn, articulated figure over a photograph: walking then
running, standing then walking, sitting, lying, raising its arms, bending; 640x360 H.264 at 10
frames a second). Each is read as the app reads it (videoreview.media, ``--rate`` samples a
second), MoveNetEngine finds the people in each sample (the most confident one is the track),
videoreview.engines.poses.status gives a status per sample and the changes lasting
``--min-duration`` seconds. Per clip it prints:

* the truth (status from .. to) and the statuses found (runs of samples), from MoveNet's keypoints
  and from the figure's own (the drawn joints: what the rules make of perfect keypoints);
* the share of samples whose status is the true one;
* the changes found (time, before, after) against the true ones, and the boundary F1 at each of
  the GEB+ tolerances (videoreview/metrics/boundaries.py: 0.1 to 3 s) with their average;
* the median milliseconds of one ``MoveNetEngine.people`` (letterbox to 256x160, ONNX Runtime on
  the CPU, decoding).

At the end: the same F1 over all clips together (changes pooled) and the median time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from pose_clips import CLIPS, read_people, runs, true_keypoints  # noqa: E402
from videoreview.engines.poses.movenet import MoveNetEngine  # noqa: E402
from videoreview.engines.poses.status import status_changes, statuses  # noqa: E402
from videoreview.metrics.boundaries import TOLERANCES, boundary_f1, f1_from_counts, match_count  # noqa: E402


def _runs_text(times, found) -> str:
    return ", ".join(f"{s} {a:.1f}-{b:.1f}" for a, b, s in runs(times, found))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, default=5.0, help="samples a second (default 5)")
    parser.add_argument("--clips", nargs="*", choices=sorted(CLIPS), help="only these clips")
    parser.add_argument("--keep", type=Path, help="write the clips here (default: a temporary folder)")
    parser.add_argument("--min-duration", type=float, default=1.0, help="shortest status kept, s (default 1)")
    args = parser.parse_args(argv)
    engine = MoveNetEngine()
    pooled = {"movenet": [0] * len(TOLERANCES), "drawn": [0] * len(TOLERANCES)}
    n_pred = {"movenet": 0, "drawn": 0}
    n_true, all_ms = 0, []
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for name in args.clips or list(CLIPS):
            clip = CLIPS[name](folder)
            times, keypoints, ms = read_people(engine, clip, args.rate)
            all_ms += ms[1:]  # the first call loads the model
            truth = [t for t, _, _ in clip.changes]
            n_true += len(truth)
            print(f"\n{name}: {clip.duration:.1f} s, figure {clip.height:.0f} px, {len(times)} samples, "
                  f"MoveNet found nobody in {sum(k is None for k in keypoints)}, "
                  f"{statistics.median(ms[1:]):.1f} ms a frame")
            print("  truth:   " + ", ".join(f"{s} {a:.1f}-{b:.1f}" for a, b, s in clip.truth))
            for label, kps in (("movenet", keypoints), ("drawn", true_keypoints(clip, times))):
                found = statuses(times, kps)
                changes = status_changes(times, found, args.min_duration)
                right = sum(s == clip.status_at(t) for t, s in zip(times, found)) / len(times)
                scores, average = boundary_f1([t for t, _, _ in changes], truth)
                for k, tol in enumerate(TOLERANCES):
                    pooled[label][k] += match_count([t for t, _, _ in changes], truth, tol)
                n_pred[label] += len(changes)
                print(f"  {label + ':':8s} {_runs_text(times, found)}")
                print(f"           {right:.0%} of samples right; changes "
                      + (", ".join(f"{t:.1f} {a} -> {b}" for t, a, b in changes) or "none")
                      + "; truth " + ", ".join(f"{t:.1f} {a} -> {b}" for t, a, b in clip.changes))
                print("           F1 " + " ".join(f"{s.tolerance:g}s {s.f1:.2f}" for s in scores)
                      + f"  average {average:.2f}")
    print(f"\nAll clips, {n_true} true changes:")
    for label in ("movenet", "drawn"):
        scores = [f1_from_counts(tol, pooled[label][k], n_pred[label], n_true) for k, tol in enumerate(TOLERANCES)]
        print(f"  {label + ':':8s} {n_pred[label]} found; F1 "
              + " ".join(f"{s.tolerance:g}s {s.f1:.2f}" for s in scores)
              + f"  average {sum(s.f1 for s in scores) / len(scores):.2f}")
    print(f"  MoveNet: median {statistics.median(all_ms):.1f} ms a frame ({len(all_ms)} frames)")


if __name__ == "__main__":
    main()
