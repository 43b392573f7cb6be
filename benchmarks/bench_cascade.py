"""The CPU's boundary cascade against TransNetV2 run on every frame, clip by clip.

    .venv/bin/python benchmarks/bench_cascade.py [CLIP ...] [--hard DIR] [--real DIR] [--quick]
                                                   [--set candidate_ratio=2.5 ...] [--probs DIR]

For each clip: every frame at 48x27 (as the boundary engine makes them), then
  - TransNetV2 everywhere: the original windows of 100 on every frame, threshold 0.5;
  - the cascade (engines/boundaries/cascade.py) as the CPU's engine runs it: clear cuts
    from the cheap score, TransNetV2 only on a window of its own around each group of the
    other candidates (sparse.py) and at half rate where the cascade sees a dissolve.
Prints per clip the transitions TransNetV2 finds everywhere, those the cascade finds of
them (recall against it), those it finds besides (with the ground truth where the clip
has one), the clear cuts, the TransNetV2 windows the cascade ran (full rate + half rate)
against the windows of 100 that cover the clip, and both times. A transition
counts as found when the other has one within 2 frames of its span. With --probs DIR,
TransNetV2's rows everywhere are kept there per clip (by name and size) and read back on
the next run, which then times the cascade only.

Without CLIP arguments it makes the test clips of tests/hard_shots.py, tests/videos.py's
cuts and dissolves and bench_boundaries.py's two long clips (not with --quick) into
--hard DIR, and reads every video in --real DIR (real footage: see docs/benchmarks.md for
where to get some). Where a clip has a ground truth, each frame missed or found besides
is marked * when a true transition lies within a second of it and - when none does.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from videoreview.engines.boundaries.builtin import with_clear_cuts, with_half_rate_dissolves  # noqa: E402
from videoreview.engines.boundaries.cascade import Cascade, Thresholds  # noqa: E402
from videoreview.engines.boundaries.sparse import SMALL, SparseTransNet  # noqa: E402
from videoreview.engines.boundaries.transnet import (  # noqa: E402
    STEP,
    OnnxTransNet,
    TransNetStream,
    resize_frames,
    transitions_from_probs,
)
from videoreview.media import find_videos, open_video, scaled_size  # noqa: E402


def small_frames(path: Path) -> tuple[np.ndarray, np.ndarray]:
    with open_video(path) as source:
        info = source.info
        chunks = [(resize_frames(b.frames), b.times)
                  for b in source.iter_batches(size=scaled_size(info.width, info.height, 160))]
    return np.concatenate([f for f, _ in chunks]), np.concatenate([t for _, t in chunks])


def everywhere(model, frames, times, path: Path, keep: str | None):
    """TransNetV2's transitions on every frame and the seconds it took (0 when read from ``keep``)."""
    stored = Path(keep) / f"{path.name}-{path.stat().st_size}.npy" if keep else None
    if stored is not None and stored.exists():
        return transitions_from_probs(np.load(stored), times), 0.0
    stream = TransNetStream(model)
    start = time.perf_counter()
    probs = np.concatenate([stream.push(frames), stream.finish()])
    elapsed = time.perf_counter() - start
    if stored is not None:
        stored.parent.mkdir(parents=True, exist_ok=True)
        np.save(stored, probs)
    return transitions_from_probs(probs, times), elapsed


def cascaded(models, frames, times, thresholds: Thresholds, chunk: int = 60):
    """What the CPU's engine does with the frames (builtin.BoundaryReader without the
    events): (transitions, seconds, windows run, cascade)."""
    small, large = models
    cascade, stream, half = Cascade(thresholds), SparseTransNet(small, large), TransNetStream(large)
    rows, half_rows, given = [], [], 0
    start = time.perf_counter()

    def push(marked) -> None:
        nonlocal given
        rows.append(stream.push(marked.frames, marked.marks))
        even = (given + np.arange(len(marked.frames))) % 2 == 0
        half_rows.append(half.push(marked.frames[even], marked.dissolves[even]))
        given += len(marked.frames)

    for i in range(0, len(frames), chunk):
        push(cascade.push(frames[i:i + chunk]))
    push(cascade.finish())
    rows.append(stream.finish())
    half_rows.append(half.finish())
    found = transitions_from_probs(np.concatenate(rows), times)
    found = with_clear_cuts(found, cascade.clear_cuts, np.concatenate(stream.covered), times)
    found = with_half_rate_dissolves(found, np.concatenate(half_rows), times)
    return found, time.perf_counter() - start, stream.windows + half.windows - half.skipped, cascade


def near(tr, others) -> bool:
    def inside(a, b) -> bool:
        return b.start - 2 <= a.frame <= max(b.end, b.frame) + 2

    return any(inside(tr, o) or inside(o, tr) for o in others)


def clips(args) -> list[tuple[Path, object]]:
    """(path, ground truth or None) per clip."""
    if args.clips:
        return [(Path(p), None) for p in args.clips]
    from hard_shots import HARD_SHOTS
    from videos import make_crossfade_video, make_cuts_video, make_long_video

    folder = Path(args.hard or tempfile.mkdtemp(prefix="bench-cascade-"))
    folder.mkdir(parents=True, exist_ok=True)
    made = [make(folder) for make in HARD_SHOTS.values()]
    made += [make_cuts_video(folder), make_crossfade_video(folder, fade=0.5, name="dissolve-0.5s.mp4"),
             make_crossfade_video(folder, fade=1.0, name="dissolve-1s.mp4"),
             make_crossfade_video(folder, fade=2.0, name="dissolve-2s.mp4")]
    if not args.quick:  # the clips of bench_boundaries.py
        made += [make_long_video(folder / "clip-150s-720p25.mp4", 150),
                 make_long_video(folder / "clip-180s-480x352-short-shots.mp4", 180, size=(480, 352),
                                 cut_every=(2.0, 3.5, 1.5, 5.0, 2.5, 3.0))]
    out = [(video.path, video) for video in made]
    if args.real:
        out += [(Path(p), None) for p in find_videos([Path(args.real)])[0]]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("clips", nargs="*")
    parser.add_argument("--hard", help="folder for the generated clips (default: a temporary one)")
    parser.add_argument("--real", help="a folder of real footage to read as well")
    parser.add_argument("--quick", action="store_true", help="without the two long clips of bench_boundaries.py")
    parser.add_argument("--set", nargs="*", default=[], metavar="NAME=VALUE",
                        help="cascade thresholds to try instead of the defaults (cascade.Thresholds)")
    parser.add_argument("--probs", help="a folder to keep TransNetV2's rows everywhere in, and read them from")
    args = parser.parse_args()
    thresholds = Thresholds(**{k: float(v) for k, v in (item.split("=") for item in args.set)})
    model = OnnxTransNet()
    models = (OnnxTransNet("cpu", SMALL), model)
    totals = dict(reference=0, found=0, windows=0, run=0, everywhere=0.0, cascade=0.0)
    print(f"{'clip':<34} {'frames':>6} {'ref':>4} {'found':>5} {'missed (frame)':<16} {'besides':<18} "
          f"{'clear':>5} {'windows':>8} {'everywhere':>10} {'cascade':>8}")
    for path, truth in clips(args):
        frames, times = small_frames(path)
        reference, t_all = everywhere(model, frames, times, path, args.probs)
        found, t_cascade, run, cascade = cascaded(models, frames, times, thresholds)
        grid = -(-len(frames) // STEP)  # the windows of 100 that cover the clip
        missed = [tr.frame for tr in reference if not near(tr, found)]
        besides = [tr.frame for tr in found if not near(tr, reference)]
        if truth is not None:  # mark which of the differences are real transitions
            real = set(truth.cut_frames) | {int(round((a + b) / 2 * truth.fps)) for a, b in truth.gradual}

            def marked(frames):
                return [f"{f}{'*' if any(abs(f - r) <= truth.fps for r in real) else '-'}" for f in frames]

            missed, besides = marked(missed), marked(besides)
        totals["reference"] += len(reference)
        totals["found"] += len(reference) - len(missed)
        totals["windows"] += grid
        totals["run"] += run
        totals["everywhere"] += t_all
        totals["cascade"] += t_cascade
        print(f"{path.name[:34]:<34} {len(frames):6d} {len(reference):4d} {len(reference) - len(missed):5d} "
              f"{str(missed):<16} {str(besides):<18} {len(cascade.clear_cuts):5d} "
              f"{f'{run}/{grid}':>8} {t_all:9.2f}s {t_cascade:7.2f}s", flush=True)
    print(f"\nrecall against TransNetV2 everywhere: {totals['found']}/{totals['reference']}; windows run "
          f"{totals['run']} against {totals['windows']} windows of 100 everywhere; "
          f"TransNetV2 everywhere {totals['everywhere']:.1f} s, cascade {totals['cascade']:.1f} s")
    print("(after a frame: * a transition of the clip's ground truth lies within 1 s of it, - none does)")


if __name__ == "__main__":
    main()
