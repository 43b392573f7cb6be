"""The objects detectors side by side: CenterNet (centernet-coco) and NanoDet-g (nanodet-coco).

    .venv/bin/python benchmarks/bench_objects.py [--repeats 20] [--rate 1.0] [--clips NAME ...]
        [--centernet-min-score 0.3] [--nanodet-min-score 0.4]

On the six test photographs (tests/caption_set.py's ``photo``: astronaut, chelsea, coffee,
rocket, motorcycle, grace) and on the frames of the caption evaluation clips
(tests/caption_set.py's ``make_clip``: 640x360 H.264, read back as the objects stage reads
them: sampled ``--rate`` times a second, at most 512 px on the long side), each detector as
the app runs it (its engine's ``detect``: letterbox, ONNX Runtime on the CPU, decoding,
at the engine's own threshold unless told another: CenterNet 0.3, NanoDet 0.4) prints, per photograph or shot:

* the labels it found, each once, with its best score and in how many samples;
* precision: the share of those labels that are right, a COCO label being right when it
  is one of the shot's hand-written subject words or ``also`` words (tests/caption_set.py);
* recall: the share of the shot's subject words that are COCO labels ("cat", "cup",
  "person", ...) that it found;
* the same two after the objects stage's tracking (videoreview/pipeline/stages/objects.py:
  ``object_tracks``, which drops a detection seen once below 0.5): what the app keeps;
* the time of one ``detect`` on the shot's first sample (the photograph itself), the median
  of ``--repeats`` runs, the two detectors timed in turn so that both see the same load.

A photograph's hand labels are those of the first shot that films it. Clips whose
subjects are no COCO class (rocket, coins, moon, galaxies, palace, flower) are listed
after the others: every label found there is false unless an ``also`` word; they count
in the totals' precision only.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from caption_set import CLIPS, Shot, make_clip, photo  # noqa: E402  (tests/caption_set.py)
from videoreview.engines.objects.decode import COCO_LABELS  # noqa: E402

PHOTOS = ("astronaut", "chelsea", "coffee", "rocket", "motorcycle", "grace")
LONG_SIDE = 512  # the objects stage reads frames no larger (pipeline/stages/objects.py)


def detectors(centernet_min_score: float, nanodet_min_score: float) -> dict:
    from videoreview.engines.objects.centernet import CenterNetEngine
    from videoreview.engines.objects.nanodet import NanoDetEngine

    return {"centernet": CenterNetEngine(min_score=centernet_min_score),
            "nanodet": NanoDetEngine(min_score=nanodet_min_score)}


@dataclass
class Row:
    """One photograph or shot, one detector."""

    item: str
    subject: str
    detector: str
    labels: dict[str, tuple[float, int]]  # label -> best score, samples it was in
    samples: int
    tracked: set[str]
    words: set[str]
    wanted: set[str]  # the subject's COCO labels
    ms: float = 0.0
    notes: list[str] = field(default_factory=list)

    def precision(self, labels) -> tuple[int, int]:
        return sum(label in self.words for label in labels), len(labels)

    def recall(self, labels) -> tuple[int, int]:
        return len(self.wanted & set(labels)), len(self.wanted)


def hand_labels(shot: Shot) -> tuple[set[str], set[str]]:
    """(the words a right label may be, the subject's COCO labels)."""
    return set(shot.subject) | set(shot.also), {label for label in COCO_LABELS if label in shot.subject}


def timed(engines: dict, frame, repeats: int) -> dict[str, float]:
    """Median milliseconds of one ``detect`` per engine, the engines run in turn."""
    for engine in engines.values():
        engine.detect(frame)  # loads the model, warms it
    times: dict[str, list[float]] = {name: [] for name in engines}
    for _ in range(repeats):
        for name, engine in engines.items():
            start = time.perf_counter()
            engine.detect(frame)
            times[name].append(1000 * (time.perf_counter() - start))
    return {name: statistics.median(t) for name, t in times.items()}


def collect(found_per_sample: list[list]) -> dict[str, tuple[float, int]]:
    labels: dict[str, tuple[float, int]] = {}
    for found in found_per_sample:
        for label in {d[0] for d in found}:
            best = max(d[1] for d in found if d[0] == label)
            score, count = labels.get(label, (0.0, 0))
            labels[label] = (max(score, best), count + 1)
    return labels


def photographs(engines: dict, repeats: int) -> list[Row]:
    first_shot = {}
    for shots in CLIPS.values():
        for shot in shots:
            first_shot.setdefault(shot.photo, shot)
    rows = []
    for name in PHOTOS:
        image = photo(name)
        shot = first_shot[name]
        words, wanted = hand_labels(shot)
        ms = timed(engines, image, repeats)
        for det, engine in engines.items():
            found = engine.detect(image)
            labels = collect([found])
            tracked = {label for label, (score, _) in labels.items() if score >= 0.5}  # a track seen once
            rows.append(Row(name, shot.subject[0], det, labels, 1, tracked, words, wanted, ms[det]))
    return rows


def clip_rows(engines: dict, name: str, folder: Path, repeats: int, rate: float) -> list[Row]:
    from videoreview.media import open_video, scaled_size
    from videoreview.pipeline.stages.objects import object_tracks

    path, labels_path = make_clip(folder, name)
    shots = json.loads(labels_path.read_text())["shots"]
    with open_video(path) as source:
        info = source.info
        size = scaled_size(info.width, info.height, min(LONG_SIDE, max(info.width, info.height)))
        scale = info.width / size[0]
        batches = list(source.sample(rate, size=size))
        fps, duration = info.fps, info.duration
    frames = [(int(i), float(t), f) for b in batches for i, t, f in zip(b.indices, b.times, b.frames)]
    cuts = [round(shot["start"] * fps) for shot in shots[1:]]
    rows = []
    per_detector = {}
    for det, engine in engines.items():
        samples = []
        for index, t, frame in frames:
            found = engine.detect(frame)
            samples.append({"time": round(t, 6), "frame": index, "objects": [
                [label, round(score, 3), *(round(v * scale, 1) for v in box)] for label, score, box in found]})
        _, tracks = object_tracks(samples, cuts, 1.0 / rate, duration, det)
        per_detector[det] = (samples, tracks)
    for k, shot in enumerate(shots):
        inside = [j for j, (_, t, _) in enumerate(frames) if shot["start"] <= t < shot["end"]]
        ms = timed(engines, frames[inside[0]][2], repeats)
        spec = CLIPS[name][k]
        words, wanted = hand_labels(spec)
        for det in engines:
            samples, tracks = per_detector[det]
            labels = collect([samples[j]["objects"] for j in inside])
            tracked = {tr.label for tr in tracks if shot["start"] <= tr.start < shot["end"]}
            item = name if len(shots) == 1 else f"{name} #{k + 1}"
            rows.append(Row(item, spec.subject[0], det, labels, len(inside), tracked, words, wanted, ms[det]))
    return rows


def fraction(pair: tuple[int, int]) -> str:
    right, total = pair
    return f"{right}/{total}" if total else "-"


def table(rows: list[Row]) -> None:
    print(f"| {'photograph / shot':24} | subject | detector | labels found (best score, samples) | "
          f"P | R | P tracked | R tracked | ms/frame |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        found = ", ".join(f"{label}{'' if label in r.words else '*'} {score:.2f} ({n}/{r.samples})"
                          for label, (score, n) in sorted(r.labels.items(), key=lambda kv: -kv[1][0])) or "-"
        print(f"| {r.item:24} | {r.subject} | {r.detector} | {found} | {fraction(r.precision(r.labels))} | "
              f"{fraction(r.recall(r.labels))} | {fraction(r.precision(r.tracked))} | "
              f"{fraction(r.recall(r.tracked))} | {r.ms:.1f} |")
    print("(* a label that is neither the subject nor an also word: a false one)")


def totals(title: str, rows: list[Row], detector_names) -> None:
    print(f"\n{title}")
    for det in detector_names:
        mine = [r for r in rows if r.detector == det]

        def summed(pairs):
            right, total = sum(p[0] for p in pairs), sum(p[1] for p in pairs)
            return f"{right}/{total} = {100 * right / total:.0f} %" if total else "-"

        print(f"  {det:9}: precision {summed([r.precision(r.labels) for r in mine])}, "
              f"recall {summed([r.recall(r.labels) for r in mine])}; after tracking: precision "
              f"{summed([r.precision(r.tracked) for r in mine])}, "
              f"recall {summed([r.recall(r.tracked) for r in mine])}; "
              f"ms/frame median {statistics.median(r.ms for r in mine):.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=20, help="runs of detect timed per frame (median)")
    parser.add_argument("--rate", type=float, default=1.0, help="samples a second (the objects stage's 1.0)")
    parser.add_argument("--clips", nargs="*", default=list(CLIPS), help="caption set clips (default: all)")
    parser.add_argument("--centernet-min-score", type=float, default=0.3, help="CenterNet's threshold (its 0.3)")
    parser.add_argument("--nanodet-min-score", type=float, default=0.4, help="NanoDet's threshold (its 0.4)")
    args = parser.parse_args()

    engines = detectors(args.centernet_min_score, args.nanodet_min_score)
    print(f"Thresholds: centernet {args.centernet_min_score:g}, nanodet {args.nanodet_min_score:g}; ONNX Runtime "
          f"on the CPU; ms/frame: one detect (letterbox, inference, decoding), median of {args.repeats}\n")
    rows = photographs(engines, args.repeats)
    print("Photographs\n")
    table(rows)
    totals("Photographs, totals (labels counted once per photograph):", rows, engines)

    coco, other = [], []
    with tempfile.TemporaryDirectory() as folder:
        for name in args.clips:
            got = clip_rows(engines, name, Path(folder), args.repeats, args.rate)
            (coco if any(r.wanted for r in got) else other).extend(got)
    print(f"\nCaption set clips whose subjects are COCO classes ({args.rate:g} sample/s, 640x360 read at 512x288)\n")
    table(coco)
    totals("Clips with COCO subjects, totals (labels counted once per shot):", coco, engines)
    if other:
        print("\nCaption set clips whose subjects are no COCO class (every label found is false unless an also word)\n")
        table(other)
        totals("Clips without COCO subjects, totals:", other, engines)
        totals("All clips, totals:", coco + other, engines)


if __name__ == "__main__":
    main()
