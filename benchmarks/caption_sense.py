"""The caption evaluation set scored: does each caption name the shot's subject, how many
distinct object labels does a shot get, how many captions say something that is not there.

    .venv/bin/python benchmarks/caption_sense.py [--engines captions=builtin] [--keep DIR]

Makes the clips of tests/caption_set.py (real photographs filmed by a virtual camera, with
hand-written labels), analyses each with boundaries, faces and captions (the stage cache of
a temporary VIDEOREVIEW_HOME), and prints per clip and overall: captions, subject named
(share of captions in one-subject shots), label churn (distinct object labels per shot:
mean, most), false labels (share of captions with a word outside the shot's labels), and
the first three captions of each clip. The targets (issue: builtin captions a person
would accept): subject named >= 80 %, at most 2 distinct labels per shot, false < 5 %.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", help="make the clips in this folder and keep them")
    parser.add_argument("--examples", type=int, default=3, help="captions shown per clip")
    args = parser.parse_args()
    os.environ.setdefault("VIDEOREVIEW_HOME", tempfile.mkdtemp(prefix="bench-sense-"))
    from caption_set import CLIPS, make_clip

    from videoreview.metrics.caption_sense import ShotLabels, score
    from videoreview.pipeline import analyze
    from videoreview.pipeline.stages import build_stages
    from videoreview.records import read_json

    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-sense-clips-"))
    folder.mkdir(parents=True, exist_ok=True)
    stages = build_stages({"boundaries": "builtin", "faces": "dlib-hog", "captions": "builtin"})
    rows, everything = [], []
    print(f"{'clip':22} {'captions':>8} {'subject':>8} {'churn':>6} {'max':>4} {'false':>6}")
    for name in CLIPS:
        path, labels_path = make_clip(folder, name)
        analysis = analyze(path, stages=stages)
        shots = [ShotLabels(s["start"], s["end"], tuple(s["subject"]), tuple(s["also"]))
                 for s in read_json(labels_path)["shots"]]
        captions = [(c.time, c.text) for c in analysis.captions]
        result = score(captions, shots)
        rows.append(result)
        everything.append((captions, shots))
        named = "-" if result.subject_named is None else f"{result.subject_named:.0%}"
        print(f"{name:22} {result.captions:>8} {named:>8} {result.churn_mean:>6.1f} {result.churn_max:>4} "
              f"{result.false_labels:>6.0%}")
        for time, text in captions[:args.examples]:
            print(f"    {time:5.1f}  {text}")
    total = sum(r.captions for r in rows)
    named = [r.subject_named * r.captions for r in rows if r.subject_named is not None]
    with_subject = sum(r.captions for r in rows if r.subject_named is not None)
    shots = sum(len(s) for _, s in everything)
    churn = sum(r.churn_mean * len(s) for r, (_, s) in zip(rows, everything)) / shots
    print(f"{'overall':22} {total:>8} {sum(named) / with_subject:>8.0%} {churn:>6.1f} "
          f"{max(r.churn_max for r in rows):>4} {sum(r.false_labels * r.captions for r in rows) / total:>6.0%}")


if __name__ == "__main__":
    main()
