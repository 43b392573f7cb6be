"""The caption evaluation set scored: does each caption name the shot's subject, how many
distinct object labels does a shot get, how many captions say something that is not there.

    .venv/bin/python benchmarks/caption_sense.py [--engines objects=centernet ...] [--keep DIR]

Makes the clips of tests/caption_set.py (real photographs filmed by a virtual camera, with
hand-written labels), analyses each with boundaries, faces and captions (the stage cache of
a temporary VIDEOREVIEW_HOME), and prints per clip and overall: captions, subject named
(share of captions in one-subject shots), label churn (distinct object labels per shot:
mean, most), false labels (share of captions with a word outside the shot's labels), and
the first three captions of each clip. The targets (issue: builtin captions a person
would accept): subject named >= 80 %, at most 2 distinct labels per shot, false < 5 %.

On real footage nobody here made (the corpus of benchmarks/corpus/, per class of footage,
with a held-out part): benchmarks/real_labels.py.
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
    parser.add_argument("--engines", nargs="*", default=[], metavar="KEY=NAME",
                        help="engines besides the set's own (e.g. objects=centernet)")
    parser.add_argument("--poses", action="store_true",
                        help="also the pose clips (tests/pose_clips.py): a person over a photograph")
    parser.add_argument("--examples", type=int, default=3, help="captions shown per clip")
    parser.add_argument("--sweep", type=float, nargs="+", metavar="SURE",
                        help="score each of these values of the category threshold (subjects.SURE), overall only")
    parser.add_argument("--specific", type=float, nargs="+", metavar="SPECIFIC",
                        help="...and of the class threshold (subjects.SPECIFIC), every pair")
    args = parser.parse_args()
    os.environ.setdefault("VIDEOREVIEW_HOME", tempfile.mkdtemp(prefix="bench-sense-"))
    from caption_set import CLIPS, ENGINES, make_clip, scored_captions
    from pose_clips import CLIPS as POSE_CLIPS
    from videoreview.metrics.caption_sense import combine
    from videoreview.pipeline.stages import build_stages

    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-sense-clips-"))
    folder.mkdir(parents=True, exist_ok=True)
    stages = build_stages({**ENGINES, **dict(item.split("=", 1) for item in args.engines)})
    if args.sweep:
        from videoreview.engines.captions import subjects

        clips = [make_clip(folder, name) for name in CLIPS]
        for sure, specific in [(a, b) for a in args.sweep for b in args.specific or [subjects.SPECIFIC]]:
            subjects.SURE, subjects.SPECIFIC = sure, specific
            scored = [scored_captions(path, labels_path, stages)[0] for path, labels_path in clips]
            print(row(f"SURE {sure:.2f} SPEC {specific:.2f}", combine(scored)))
        return
    print(f"{'clip':22} {'captions':>8} {'subject':>8} {'known':>6} {'churn':>6} {'max':>4} {'false':>6}")
    scored = []
    clips = [(name, *make_clip(folder, name)) for name in CLIPS]
    clips += [(f"pose {name}", *pose_clip(folder, name)) for name in (POSE_CLIPS if args.poses else ())]
    for name, path, labels_path in clips:
        result, captions = scored_captions(path, labels_path, stages)
        scored.append(result)
        print(row(name, result))
        for time, text in captions[:args.examples]:
            print(f"    {time:5.1f}  {text}")
    print(row("overall", combine(scored)))


def pose_clip(folder: Path, name: str) -> tuple[Path, Path]:
    """A pose clip and its labels: the figure is the subject ("person"); what the caption set
    says of the photograph behind it is also true."""
    import json

    from caption_set import CLIPS
    from pose_clips import CLIPS as POSES
    from pose_clips import PHOTOS

    clip = POSES[name](folder)
    behind = next(shot for shots in CLIPS.values() for shot in shots if shot.photo == PHOTOS[name])
    labels = {"shots": [{"start": 0.0, "end": clip.duration + 0.1, "subject": ["person", "people", "figure"],
                         "also": [*behind.subject, *behind.also]}]}
    labels_path = folder / f"pose-{name}.labels.json"
    labels_path.write_text(json.dumps(labels))
    return clip.path, labels_path


def row(name: str, result) -> str:
    def share(value):
        return "-" if value is None else f"{value:.0%}"

    return (f"{name:22} {result.captions:>8} {share(result.subject_named):>8} {share(result.known_subject_named):>6} "
            f"{result.churn_mean:>6.1f} {result.churn_max:>4} {result.false_labels:>6.0%}")


if __name__ == "__main__":
    main()
