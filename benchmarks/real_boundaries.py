"""Shot boundaries on real footage: ours against PySceneDetect, both scored against the
corpus's hand-written cuts, per class of footage.

    .venv/bin/python benchmarks/real_boundaries.py [--keep DIR] [--tolerance 0.5]
    .venv/bin/python benchmarks/real_boundaries.py --speed [-v] [--before CHECKOUT] [CLIP ...]

Clips: the real-footage corpus (benchmarks/corpus/, fetched by scripts/fetch-real-clips).
Ours: the shot changes (cuts, and gradual transitions at their middle) of the analysis with
the default engines, from the stage cache that benchmarks/real_labels.py fills (the same
--keep). PySceneDetect 0.7: ContentDetector with its defaults, the starts of its scenes after
the first. Truth: each clip's ``cuts`` and the middles of its ``gradual`` transitions. A
boundary is matched one-to-one within the tolerance (as GEBD scores it). Prints per class,
for the tuning and the held-out parts apart: true boundaries, each side's predictions,
precision, recall and F1.

With --speed, the boundaries stage alone is run afresh (no cache, builtin engine, each clip
in a new process as bench_boundaries.py does) beside PySceneDetect's ContentDetector, and it
prints per class the seconds each took (the detector's own time, the interpreter's start-up
and imports apart), their ratio, our TransNetV2 windows and both F1s; with -v, each clip's
line too. Each is timed twice in its process: the first run ("cold": our models load in it)
and a second on the same file with the models loaded ("warm", the issue's "after model
loading"; PySceneDetect runs a second time too). The ONNX exports are made before any clip
is timed. With --before CHECKOUT, that checkout's worker (its own videoreview) is timed on
each clip too, the two in turn first, so that a change is measured under the same load.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from bench_boundaries import worker_scenedetect  # noqa: E402
from real_corpus import CLASSES, clips_dir, corpus, present  # noqa: E402
from real_labels import analysed  # noqa: E402


def truth_cuts(truth: dict) -> list[float]:
    return sorted([*truth.get("cuts", []), *((a + b) / 2 for a, b in truth.get("gradual", []))])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, default=clips_dir().parent / "real-analyses")
    parser.add_argument("--tolerance", type=float, default=0.5, help="seconds (default 0.5)")
    parser.add_argument("--speed", action="store_true", help="time the boundaries stage against PySceneDetect")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--before", type=Path, metavar="CHECKOUT",
                        help="with --speed: also time another checkout of videoreview on each clip")
    parser.add_argument("clips", nargs="*", help="with --speed: only these clips (file names)")
    parser.add_argument("--worker", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        import json

        print(json.dumps(worker(*args.worker)))
        return
    os.environ.setdefault("VIDEOREVIEW_HOME", tempfile.mkdtemp(prefix="bench-real-cuts-"))
    if args.speed:
        speed(args)
        return
    from videoreview.metrics.boundaries import match_count

    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])  # true, ours, hit, psd, hit
    for clip, analysis in analysed(present(corpus()), args.keep, []):
        truth = truth_cuts(clip.truth)
        ours = analysis.shot_changes()
        theirs = worker_scenedetect(str(clip.path), "content")["cuts"]
        for key in ((clip.part, clip.kind), (clip.part, "all")):
            c = counts[key]
            c[0] += len(truth)
            c[1] += len(ours)
            c[2] += match_count(ours, truth, args.tolerance)
            c[3] += len(theirs)
            c[4] += match_count(theirs, truth, args.tolerance)
    for part in ("tuning", "held-out"):
        print(f"\n### {part} part, within {args.tolerance:g} s\n")
        print("| class | true cuts | ours: said | P | R | F1 | PySceneDetect: said | P | R | F1 |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for kind in [*CLASSES, "all"]:
            if (part, kind) in counts:
                true, ours, hit, theirs, their_hit = counts[(part, kind)]
                print(f"| {kind} | {true} | {ours} | {prf(hit, ours, true)} | {theirs} | "
                      f"{prf(their_hit, theirs, true)} |")


def worker(kind: str, path: str) -> dict:
    """One detector on one file, twice: (cold, warm) seconds, the first run's cuts, and for
    ours the TransNetV2 windows and Lite0 frames of the first run."""
    import time

    if kind != "ours":
        first = worker_scenedetect(path, kind)
        start = time.perf_counter()
        worker_scenedetect(path, kind)
        return {**first, "warm": time.perf_counter() - start}
    from videoreview.engines.boundaries import builtin
    from videoreview.pipeline import StageCache, analyze
    from videoreview.pipeline.stages import build_stages

    readers = []
    made = builtin.BoundaryReader.__init__

    def keep(self, *a, **k):
        made(self, *a, **k)
        readers.append(self)

    builtin.BoundaryReader.__init__ = keep
    stages = build_stages({"boundaries": "builtin"})  # one engine for both runs: its models stay loaded
    runs = []
    for _ in range(2):
        with tempfile.TemporaryDirectory() as cache_root:
            start = time.perf_counter()
            analysis = analyze(path, stages=stages, cache=StageCache(Path(cache_root)), use_cache=False)
            runs.append(time.perf_counter() - start)
    reader = readers[0]
    windows = reader.stream.windows + (reader.half.windows - reader.half.skipped if reader.half else 0)
    return {"seconds": runs[0], "warm": runs[1], "duration": analysis.video.duration,
            "cuts": [b.time for b in analysis.boundaries if b.kind in ("cut", "gradual")],
            "windows": windows, "lite0": reader.samples.computed, "samples": len(reader.samples._rows)}


def run_worker(kind: str, path: Path, script: Path = Path(__file__)) -> dict:
    """One worker process (``script``: this file, or another checkout's)."""
    import json
    import subprocess

    out = subprocess.run([sys.executable, str(script), "--worker", kind, str(path)], check=True, capture_output=True,
                         text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def speed(args) -> None:
    from videoreview.metrics.boundaries import match_count

    clips = [c for c in present(corpus()) if not args.clips or c.name in args.clips]
    scripts = {"ours": Path(__file__)}
    if args.before:
        scripts = {"before": args.before / "benchmarks" / "real_boundaries.py", **scripts}
    for script in scripts.values() if clips else ():  # the ONNX exports, made here, not inside a clip's time
        run_worker("ours", clips[0].path, script)
    sums: dict[tuple[str, str], dict] = defaultdict(lambda: defaultdict(float))
    for n, clip in enumerate(clips):
        truth = truth_cuts(clip.truth)
        order = list(scripts) if n % 2 == 0 else list(scripts)[::-1]  # each goes first in turn: the load drifts
        results = {name: run_worker("ours", clip.path, scripts[name]) for name in order}
        results["PySceneDetect"] = run_worker("content", clip.path)
        hits = {name: match_count(r["cuts"], truth, args.tolerance) for name, r in results.items()}
        if args.verbose:
            print(f"{clip.kind:<10} {clip.name:<42} " + "; ".join(
                f"{name} {r['seconds']:.2f} s (warm {r['warm']:.2f}), cuts {len(r['cuts'])}/{hits[name]} hit"
                + (f", TransNetV2 windows {r['windows']}, Lite0 {r['lite0']} of {r['samples']}" if "lite0" in r else "")
                for name, r in results.items()) + f"; true cuts {len(truth)}", flush=True)
        for key in ((clip.part, clip.kind), (clip.part, "all"), ("both", "all")):
            sums[key]["video"] += results["ours"]["duration"]
            sums[key]["true"] += len(truth)
            for name, r in results.items():
                for field, value in (("cold", r["seconds"]), ("warm", r["warm"]), ("said", len(r["cuts"])),
                                     ("hit", hits[name]), ("windows", r.get("windows", 0))):
                    sums[key][name, field] += value
    names = [*scripts]
    for part in ("tuning", "held-out", "both"):
        print(f"\n### {part}, boundaries stage alone, within {args.tolerance:g} s; seconds warm (cold)\n")
        print("| class | video s | PySceneDetect s | " + " | ".join(
            f"{name}: TransNetV2 windows | {name}: s | {name}: ratio | {name}: F1" for name in names)
            + " | PySceneDetect F1 |")
        print("|" + " --- |" * (3 + 4 * len(names) + 1))
        for kind in [*CLASSES, "all"]:
            if (part, kind) not in sums:
                continue
            s = sums[(part, kind)]
            psd = s["PySceneDetect", "warm"], s["PySceneDetect", "cold"]

            def f1(name: str) -> float:
                return scores(s[name, "hit"], s[name, "said"], s["true"])[2]

            cells = [kind, f"{s['video']:.0f}", f"{psd[0]:.2f} ({psd[1]:.2f})"]
            for name in names:
                warm, cold = s[name, "warm"], s[name, "cold"]
                cells += [f"{s[name, 'windows']:.0f}", f"{warm:.1f} ({cold:.1f})",
                          f"{warm / psd[0]:.1f}x ({cold / psd[1]:.1f}x)", f"{f1(name):.2f}"]
            print("| " + " | ".join(cells) + f" | {f1('PySceneDetect'):.2f} |")


def scores(hit: float, said: float, true: float) -> tuple[float, float, float]:
    """Precision, recall and F1 (1 where there was nothing to say or find)."""
    p = hit / said if said else 1.0
    r = hit / true if true else 1.0
    return p, r, 2 * p * r / (p + r) if p + r else 0.0


def prf(hit: int, said: int, true: int) -> str:
    return " | ".join(f"{x:.2f}" for x in scores(hit, said, true))


if __name__ == "__main__":
    main()
