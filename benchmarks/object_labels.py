"""The objects stage as the app runs it, scored against hand-written labels, each label
counted once per shot.

    .venv/bin/python benchmarks/object_labels.py [--real DIR] [--engine nanodet] [--keep DIR]
        [--rate R] [--look R] [--sweep SURE:MIN_DETECTIONS ...]

Clips: the caption evaluation set (tests/caption_set.py: photographs filmed by a virtual
camera; a shot's subject words that are COCO labels are its wanted labels, its other words
also right), the pose clips (tests/pose_clips.py: a drawn figure over a photograph; the
figure is a "person", the caption set's labels of the photograph also right) and, with ``--real DIR``,
the real footage of scripts/fetch-real-clips (REAL: labels written by looking at the frames).
Each is analysed with boundaries and objects (a stage cache in a temporary home); a shot
is a span of the hand labels.

Per shot: the labels of the object tracks the Analysis keeps that overlap the shot (each
once), marked * when false. Precision: right labels over labels said; recall: wanted labels
said over wanted labels. The issue's target: precision >= 0.9, recall >= 0.7.

``--rate`` and ``--look`` set the stage's samples a second and its rate while looking
closer (pipeline/stages/objects.py: SAMPLE_RATE, LOOK_RATE; ``--look 0``: never). ``--sweep``
scores other values of the stage's thresholds (SURE, the mean score a track needs, and
MIN_DETECTIONS) on the same detections, totals only.

On the real-footage corpus (benchmarks/corpus/: 61 clips, per class, with a held-out part),
precision and recall per COCO label: benchmarks/real_labels.py.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

# clip file -> [(start, end, wanted labels, other right labels)]; times in seconds. Wanted:
# what a reviewer would name in the shot; right: also there (small, partly seen, or in the
# background), not wrong to say.
REAL = {
    "vtest.avi": [(0, 80, ("person",), ("car", "truck"))],  # a fixed camera over a path, people walking
    "bikes.mp4": [(0, 1.2, (), ("car", "person")), (1.2, 3.04, ("person", "car"), ("bicycle",)),
                  (3.04, 5.48, ("car", "person", "bicycle"), ("motorcycle",)),
                  (5.48, 7.48, ("car",), ("bicycle", "person")), (7.48, 9.68, ("bicycle", "person"), ()),
                  (9.68, 10.1, (), ("bicycle", "person"))],
    "Megamind.avi": [(0.04, 4.09, ("person", "wine glass"), ("dining table",)),
                     (4.09, 6.42, ("person",), ("dining table", "wine glass")),
                     (6.42, 8.34, ("person", "wine glass"), ("dining table",)), (8.34, 11.3, ("person",), ())],
    "box.mp4": [(0, 15.2, (), ("person", "dining table", "chair", "couch"))],  # a hand turns a box
    "cup.mp4": [(0, 8.2, (), ("person", "bottle", "cup"))],  # a hand turns a black tumbler
    "carphone_pristine.mp4": [(0, 4.1, ("person", "tie"), ("car",))],
    "bigbuckbunny.mp4": [(0, 5.3, (), ())],  # a cartoon rabbit: no COCO class
    "tree.avi": [(0, 30, (), ())],
}
def caption_set_clips(folder: Path):
    from caption_set import CLIPS, make_clip
    from videoreview.engines.objects.decode import COCO_LABELS

    for name in CLIPS:
        path, labels_path = make_clip(folder, name)
        shots = json.loads(labels_path.read_text())["shots"]
        yield name, path, [(s["start"], s["end"], tuple(c for c in COCO_LABELS if c in s["subject"]),
                            tuple(c for c in COCO_LABELS if c in s["also"] and c not in s["subject"])) for s in shots]


def pose_clips(folder: Path):
    """The pose clips: the figure is the wanted "person"; what the caption set says is in the
    photograph behind it is also right."""
    from caption_set import CLIPS as CAPTION_CLIPS
    from pose_clips import CLIPS, PHOTOS
    from videoreview.engines.objects.decode import COCO_LABELS

    for name, make in CLIPS.items():
        clip = make(folder)
        behind = next(s for shots in CAPTION_CLIPS.values() for s in shots if s.photo == PHOTOS[name])
        right = tuple(c for c in COCO_LABELS if c in behind.subject + behind.also and c != "person")
        yield f"pose {name}", clip.path, [(0.0, clip.duration + 0.1, ("person",), right)]


def real_clips(folder: Path):
    for name, shots in REAL.items():
        if (folder / name).exists():
            yield name, folder / name, shots


def said_per_shot(tracks, shots) -> list[set[str]]:
    return [{t.label for t in tracks if t.start < end and t.end > start} for start, end, _, _ in shots]


def counts(said: list[set[str]], shots) -> tuple[int, int, int, int]:
    right = sum(len(s & (set(w) | set(r))) for s, (_, _, w, r) in zip(said, shots))
    found = sum(len(s & set(w)) for s, (_, _, w, _) in zip(said, shots))
    return right, sum(map(len, said)), found, sum(len(w) for _, _, w, _ in shots)


def share(a: int, b: int) -> str:
    return f"{a}/{b} = {a / b:.0%}" if b else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", type=Path, help="the folder of scripts/fetch-real-clips")
    parser.add_argument("--engine", default="nanodet", help="the objects engine (default nanodet)")
    parser.add_argument("--rate", type=float, help="samples a second (default: the stage's); with --look, use a "
                        "--keep folder of its own: the stage cache does not tell rates apart")
    parser.add_argument("--look", type=float, help="samples a second while looking closer (0: never)")
    parser.add_argument("--keep", type=Path, help="make the clips and the stage cache here and keep them")
    parser.add_argument("--sweep", nargs="*", default=[], metavar="SURE:MIN",
                        help="thresholds to score besides the stage's, e.g. 0.5:2 0.45:3")
    args = parser.parse_args()
    os.environ.setdefault("VIDEOREVIEW_HOME", tempfile.mkdtemp(prefix="bench-objects-"))
    from videoreview.pipeline import StageCache, analyze
    from videoreview.pipeline.stages import build_stages
    from videoreview.pipeline.stages import objects as stage
    from videoreview.tracking import cut_frames

    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-objects-clips-"))
    folder.mkdir(parents=True, exist_ok=True)
    cache = StageCache(folder / "cache")
    clips = [*caption_set_clips(folder), *pose_clips(folder), *(real_clips(args.real) if args.real else [])]
    kept: list[tuple[list, dict, list, float]] = []  # shots, the stage's result, cuts, duration
    totals = [0, 0, 0, 0]
    print("| clip | shot | wanted | said (* false) |\n| --- | --- | --- | --- |")
    for name, path, shots in clips:
        stages = build_stages({"boundaries": "builtin", "objects": args.engine})
        for s in (s for s in stages if s.name == "objects"):
            s.sample_rate = args.rate or s.sample_rate
            s.look_rate = s.look_rate if args.look is None else args.look
        analysis = analyze(path, stages=stages, cache=cache)
        said = said_per_shot(analysis.object_tracks, shots)
        for s, (start, end, wanted, right) in zip(said, shots):
            marked = [label + ("" if label in wanted or label in right else "*") for label in sorted(s)]
            print(f"| {name} | {start:.1f}-{end:.1f} | {', '.join(wanted) or '-'} | {', '.join(marked) or '-'} |")
        totals = [a + b for a, b in zip(totals, counts(said, shots))]
        key = (analysis.content_hash, "objects", *analysis.engines["objects"].split("@", 1))
        kept.append((shots, cache.get(*key), cut_frames(analysis.boundaries), analysis.video.duration))
    print(f"\n{args.engine}, SURE {stage.SURE}, MIN_DETECTIONS {stage.MIN_DETECTIONS}: "
          f"precision {share(totals[0], totals[1])}, recall {share(totals[2], totals[3])}")
    frames, seconds = sum(len(result["samples"]) for _, result, _, _ in kept), sum(d for *_, d in kept)
    print(f"the detector saw {frames} frames of {seconds:.0f} s of video: {frames / seconds:.2f} a second")
    for item in args.sweep:
        sure, least, person = (item.split(":") + [""])[:3]
        stage.SURE, stage.MIN_DETECTIONS = float(sure), int(least)
        stage.SURE_PERSON = float(person or sure)
        totals = [0, 0, 0, 0]
        for shots, result, cuts, duration in kept:
            _, tracks = stage.object_tracks(result["samples"], cuts, 1.0 / result["sample_rate"], duration)
            totals = [a + b for a, b in zip(totals, counts(said_per_shot(tracks, shots), shots))]
        print(f"SURE {sure} MIN_DETECTIONS {least} SURE_PERSON {stage.SURE_PERSON}: "
              f"precision {share(totals[0], totals[1])}, "
              f"recall {share(totals[2], totals[3])}")


if __name__ == "__main__":
    main()
