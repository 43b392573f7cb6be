"""Shot boundaries on real footage: ours against PySceneDetect, both scored against the
corpus's hand-written cuts, per class of footage.

    .venv/bin/python benchmarks/real_boundaries.py [--keep DIR] [--tolerance 0.5]

Clips: the real-footage corpus (benchmarks/corpus/, fetched by scripts/fetch-real-clips).
Ours: the shot changes (cuts, and gradual transitions at their middle) of the analysis with
the default engines, from the stage cache that benchmarks/real_labels.py fills (the same
--keep). PySceneDetect 0.7: ContentDetector with its defaults, the starts of its scenes after
the first. Truth: each clip's ``cuts`` and the middles of its ``gradual`` transitions. A
boundary is matched one-to-one within the tolerance (as GEBD scores it). Prints per class,
for the tuning and the held-out parts apart: true boundaries, each side's predictions,
precision, recall and F1.
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
    args = parser.parse_args()
    os.environ.setdefault("VIDEOREVIEW_HOME", tempfile.mkdtemp(prefix="bench-real-cuts-"))
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


def prf(hit: int, said: int, true: int) -> str:
    p = hit / said if said else 1.0
    r = hit / true if true else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return f"{p:.2f} | {r:.2f} | {f:.2f}"


if __name__ == "__main__":
    main()
