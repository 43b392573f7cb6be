"""The on-screen text stage's gate (pipeline/stages/text_gate.py): what it keeps from PP-OCR
and what it would lose, on the real-footage corpus and on ocr_recall.py's frames.

    .venv/bin/python benchmarks/bench_text_gate.py [--part tuning|held-out|both] [--keep DIR]
        [--clips NAME ...] [--no-synthetic]
    .venv/bin/python benchmarks/bench_text_gate.py --time CLIP ... [--runs 3]

Per corpus clip (benchmarks/corpus/, fetched by scripts/fetch-real-clips), one decoding
pass at the stage's samples (2 a second, at its reading size):
- every sample is read with the screen-text engine (once: the readings are kept in
  --keep, default a folder of the user's cache), and the gate's verdict taken (its CPU
  time measured). A sample where a line of 3 or more letters or digits is read is one the
  gate must let through; the others are the ones it may keep from PP-OCR. Printed: how
  many of each it lets through, and every text sample it stops, with what was read;
- the stage's own reader runs twice on the same frames, without the gate (as before it)
  and with it, its engine wrapped to count the PP-OCR calls (reads, from the readings
  kept, and coarse detections, run); the words of the corpus truth's ``text`` found in
  each run's spans (the WER normaliser's words) are printed beside the calls.

With ``--time CLIP ...``: only the stage's own time on each clip, in fresh processes, with
and without the gate in turn (``--runs`` times each): seconds from making the engine to
the stage's result (its model loads on first use, so a clip never read never loads it),
and the PP-OCR calls.

Then (unless --no-synthetic) ocr_recall.py's frames (24 lines on a flat card, a gradient
and a photograph, Hershey and Noto Sans, capitals 8 to 60 pixels high): the words PP-OCR
reads, and those of them on lines the gate sees no text-like line on (the words that
would be lost where such a line appears alone in a changed part of the picture).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from real_corpus import clips_dir, corpus, present  # noqa: E402


def alnum(text: str) -> int:
    return sum(ch.isalnum() for ch in text)


class Counting:
    """The engine, counted; reads come from ``readings`` (the same frames read by the same
    engine) where given."""

    def __init__(self, engine, readings: dict | None) -> None:
        self.engine, self.readings = engine, readings
        self.long_side = engine.long_side
        self.reads = self.finds = 0

    def read(self, frame):
        self.reads += 1
        return self.engine.read(frame) if self.readings is None else self.readings[_digest(frame)]

    def find(self, image, frame_shape=None):
        self.finds += 1
        return self.engine.find(image, frame_shape)


def _digest(frame: np.ndarray) -> str:
    return hashlib.md5(np.ascontiguousarray(frame).tobytes()).hexdigest()


def measure_clip(clip, engine, keep: Path) -> dict:
    from videoreview.engines.screen_text.protocol import TextBox
    from videoreview.media import open_video
    from videoreview.metrics.speech import normalise
    from videoreview.pipeline.stages.screen_text import ScreenTextStage, TextReader, merge_spans
    from videoreview.pipeline.stages.text_gate import text_like

    kept_file = keep / f"{clip.name}.{engine.name}-{engine.version}.json"  # readings are the engine's
    kept = json.loads(kept_file.read_text()) if kept_file.exists() else {}
    readings: dict = {}
    runs = {}
    gate_seconds, samples = 0.0, []
    with open_video(clip.path) as source:
        stages = {"without": ScreenTextStage(None), "with": ScreenTextStage(None)}
        stages["without"].gate = None
        engines = {name: Counting(engine, readings) for name in stages}
        for name, stage in stages.items():
            stage.engine = engines[name]
            runs[name] = TextReader(stage, source)
        reader = runs["with"]
        for _number, batch in source.batches_for([(reader.indices, reader.size, reader.batch)]):
            for index, when, frame in zip(batch.indices, batch.times, batch.frames):
                key = str(int(index))
                if key not in kept:
                    kept[key] = [{"text": b.text, "box": list(b.box), "score": b.score} for b in engine.read(frame)]
                readings[_digest(frame)] = [TextBox(r["text"], tuple(r["box"]), r["score"]) for r in kept[key]]
                start = time.process_time()
                found = bool(text_like(frame))
                gate_seconds += time.process_time() - start
                texts = [r["text"] for r in kept[key] if alnum(r["text"]) >= 3]
                samples.append({"time": float(when), "texts": texts, "gate": found})
            for run in runs.values():
                run.take(batch)
    keep.mkdir(parents=True, exist_ok=True)
    kept_file.write_text(json.dumps(kept))
    truth = {w for line in clip.truth.get("text", []) for w in normalise(line)}
    out = {"samples": samples, "gate_ms": 1000 * gate_seconds / max(1, len(samples)), "truth": sorted(truth)}
    for name, run in runs.items():
        result = run.result()
        spans = merge_spans(result.samples, "", result.sample_rate)
        words = {w for span in spans for w in normalise(span.text)}
        out[name] = {"reads": engines[name].reads, "finds": engines[name].finds, "found": sorted(truth & words)}
    return out


def report(rows: list[tuple]) -> None:
    print(f"{'clip':36} {'part':8} {'text samples':>13} {'others':>13}   {'without gate':>24}   {'with gate':>24}")
    totals: dict[str, Counter] = {}
    for clip, r in rows:
        text = [s for s in r["samples"] if s["texts"]]
        other = [s for s in r["samples"] if not s["texts"]]
        t = totals.setdefault(clip.part, Counter())
        t.update(text=len(text), text_kept=sum(s["gate"] for s in text), other=len(other),
                 other_stopped=sum(not s["gate"] for s in other), truth=len(r["truth"]), samples=len(r["samples"]),
                 gate_ms=r["gate_ms"] * len(r["samples"]))
        line = (f"{clip.name:36} {clip.part:8} {sum(s['gate'] for s in text):5} of {len(text):<5}"
                f"{sum(not s['gate'] for s in other):5} of {len(other):<5}")
        for name in ("without", "with"):
            run = r[name]
            t.update({f"{name}_reads": run["reads"], f"{name}_finds": run["finds"], f"{name}_found": len(run["found"])})
            line += f"   {run['reads']:4} reads {run['finds']:4} finds {len(run['found']):3}/{len(r['truth']):<3}"
        print(line)
        for s in text:
            if not s["gate"]:
                print(f"    stopped at {s['time']:.2f} s: {s['texts']}")
        lost = sorted(set(r["without"]["found"]) - set(r["with"]["found"]))
        if lost:
            print(f"    truth words found without the gate only: {lost}")
    for part, t in totals.items():
        calls = t["without_reads"] + t["without_finds"], t["with_reads"] + t["with_finds"]
        print(f"{part}: text samples let through {t['text_kept']} of {t['text']}; others stopped {t['other_stopped']} "
              f"of {t['other']}; gate {t['gate_ms'] / max(1, t['samples']):.1f} ms CPU a sample")
        print(f"{part}: PP-OCR calls without the gate {calls[0]} ({t['without_reads']} reads, {t['without_finds']} "
              f"coarse detections), with it {calls[1]} ({t['with_reads']} reads, {t['with_finds']} coarse detections), "
              f"{calls[0] - calls[1]} saved; truth words found {t['without_found']} and {t['with_found']} of "
              f"{t['truth']}")


def synthetic(engine) -> None:
    import cv2

    import ocr_recall
    from videoreview.media import scaled_size
    from videoreview.metrics.speech import normalise
    from videoreview.pipeline.stages.text_gate import text_like

    size = scaled_size(1280, 720, engine.long_side)
    scale = size[1] / 720
    print(f"ocr_recall.py's frames, read at {size[0]}x{size[1]}: words read by PP-OCR, and those of them on "
          "lines the gate sees nothing text-like on")
    print(f"{'cap height':>10} {'font':>8} {'read':>6} {'on lines not seen':>18}")
    for cap in ocr_recall.CAP_HEIGHTS:
        for font in ("hershey", "noto"):
            read = lost = 0
            for n in range(0, len(ocr_recall.LINES), 3):
                for background in ocr_recall.backgrounds():
                    frame, spans = background.copy(), []
                    for k, text in enumerate(ocr_recall.LINES[n:n + 3]):
                        y = 120 + k * max(3 * cap, 60)
                        if font == "hershey":
                            ocr_recall.hershey(frame, text, y, cap)
                        else:
                            frame = ocr_recall.noto(frame, text, y, cap)
                        spans.append((text, (y - cap) * scale, (y + cap / 3) * scale))
                    small = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
                    said = normalise(" ".join(box.text for box in engine.read(small)))
                    boxes = text_like(small)
                    for text, top, bottom in spans:
                        words = [w for w in normalise(text) if w in said]
                        read += len(words)
                        if not any(y <= bottom and y + h >= top for _x, y, _w, h in boxes):
                            lost += len(words)
            print(f"{cap:>10} {font:>8} {read:>6} {lost:>18}")


def timed(path: str, gate: bool) -> dict:
    """The stage alone on ``path`` (run in a process of its own)."""
    from videoreview.engines import registry
    from videoreview.media import open_video
    from videoreview.pipeline.cancel import CancelToken
    from videoreview.pipeline.stages import DEFAULT_ENGINES
    from videoreview.pipeline.stages.screen_text import ScreenTextStage

    start = time.perf_counter()
    counting = Counting(registry.create("screen-text", DEFAULT_ENGINES["screen-text"], "cpu"), None)
    stage = ScreenTextStage(counting)
    if not gate:
        stage.gate = None
    with open_video(path) as source:
        result = stage.compute(source, lambda *a: None, CancelToken())
    return {"seconds": time.perf_counter() - start, "reads": counting.reads, "finds": counting.finds,
            "samples": len(result.samples)}


def time_clips(paths: list[str], runs: int) -> None:
    import statistics
    import subprocess

    for path in paths:
        seconds: dict[bool, list[float]] = {True: [], False: []}
        calls = {}
        for _ in range(runs):
            for gate in (False, True):
                code = (f"import sys, json; sys.path[:0] = {[str(ROOT), str(ROOT / 'benchmarks')]}; "
                        f"import bench_text_gate as b; print(json.dumps(b.timed({path!r}, {gate})))")
                out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
                row = json.loads(out.stdout.strip().splitlines()[-1])
                seconds[gate].append(row["seconds"])
                calls[gate] = f"{row['reads']} reads, {row['finds']} coarse detections of {row['samples']} samples"
        for gate in (False, True):
            each = ", ".join(f"{v:.2f}" for v in seconds[gate])
            print(f"{Path(path).name}: {'with' if gate else 'without'} the gate "
                  f"{statistics.median(seconds[gate]):.2f} s (median of {runs}: {each}); {calls[gate]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("tuning", "held-out", "both"), default="both")
    parser.add_argument("--keep", type=Path, default=clips_dir().parent / "text-gate-readings")
    parser.add_argument("--clips", nargs="*", default=[])
    parser.add_argument("--no-synthetic", action="store_true")
    parser.add_argument("--time", nargs="+", metavar="CLIP", help="time the stage alone on these files")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if args.time:
        time_clips(args.time, args.runs)
        return
    from videoreview.engines import registry
    from videoreview.pipeline.stages import DEFAULT_ENGINES

    engine = registry.create("screen-text", DEFAULT_ENGINES["screen-text"], "cpu")
    clips = [c for c in present(corpus()) if (args.part == "both" or c.part == args.part)
             and (not args.clips or c.name in args.clips)]
    rows = []
    for clip in clips:
        rows.append((clip, measure_clip(clip, engine, args.keep)))
        print(f"  {clip.name} measured", file=sys.stderr, flush=True)
    report(rows)
    if not args.no_synthetic:
        synthetic(engine)


if __name__ == "__main__":
    main()
