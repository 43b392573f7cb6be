"""The whole analysis of a real corpus clip with a small VLM or SigLIP 2 chosen, on this
machine's CPU (issue 53's figure): `videoreview analyze` as a whole process, every default
stage on, no stage cache, once per choice.

    .venv/bin/python benchmarks/bench_vlm_clip.py                                # the 180 s animation
    .venv/bin/python benchmarks/bench_vlm_clip.py --clip transnetv2_music_video.mp4 --runs builtin smolvlm2-256m
    .venv/bin/python benchmarks/bench_vlm_clip.py --models /tmp/vlm-models --json

No weights can be downloaded here: each VLM is its published architecture with random
weights (bench_vlm_batching.ARCHITECTURES, built once into ``--models``), SigLIP 2 base 256
the same way (bench_vlm_shot.build_siglip). A model with random weights never stops, so
each request generates its cap: the per-shot plan's TOKENS_PER_FRAME_SHOT a frame and
BOUNDARY_TOKENS_SHOT a boundary, the length its prompts ask for. What the captions say means
nothing; the time is what the plan spends.

Runs (``--runs``): ``builtin`` (no VLM, no image-text model: the baseline), each VLM chosen for
captions, and ``siglip2`` (the builtin captions with SigLIP 2 naming what each shot shows).
Before the timed runs, SigLIP 2 is loaded once in this process so that its ONNX export and
its vocabulary's embeddings, made once per model (at `videoreview models pull`), are on disk
as a user's would be; a VLM folder loads in the timed run, as it does for a user.

Prints per run: the wall seconds, the ratio to the clip's length, and the plan the Analysis
records (windows, frames, boundaries, seconds estimated and spent).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

VLMS = ("smolvlm2-256m", "smolvlm2-500m", "qwen3.5-0.8b")
RUNS = ("builtin", *VLMS, "siglip2")


def models_folder(name: str, models: Path) -> Path:
    """The random-weight folder of ``name``, built on first use."""
    folder = models / name
    if not (folder / "config.json").exists():
        import bench_vlm_batching
        import bench_vlm_shot

        if name == "siglip2":
            bench_vlm_shot.build_siglip(folder)
        else:
            bench_vlm_batching.build(name, models)
    return folder


def prepare_siglip(folder: Path) -> None:
    """The ONNX export and the vocabulary's embeddings, as `models pull` leaves them; in a
    process of its own, so that no thread of it runs beside the timed analyses."""
    code = ("import sys; from videoreview.engines.embeddings.image_text import ImageTextEncoder; "
            "from videoreview.engines.embeddings.naming import ShotNamer; "
            "ShotNamer(ImageTextEncoder(sys.argv[1])).text_embeddings()")
    subprocess.run([sys.executable, "-c", code, str(folder)], check=True, cwd=ROOT)


def in_child(function, *args):
    """``function(*args)`` in a fresh process: nothing of its model stays in this one."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(function, *args).result()


def analyse(video: Path, engines: str, out: Path) -> float:
    command = [sys.executable, "-m", "videoreview", "analyze", str(video), "--no-cache", "-q", "-o", str(out)]
    if engines:
        command += ["--engines", engines]
    started = time.perf_counter()
    subprocess.run(command, check=True, cwd=ROOT)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clip", default="openboard-wannaworktogether.mp4", help="a corpus clip's name")
    parser.add_argument("--runs", nargs="+", choices=RUNS, default=list(RUNS))
    parser.add_argument("--models", help="where the random-weight models are built (default: a temporary folder)")
    parser.add_argument("--json", action="store_true", help="one JSON object per run")
    args = parser.parse_args()

    from real_corpus import corpus

    clip = next((c for c in corpus() if c.name == args.clip), None)
    if clip is None or not clip.path.exists():
        sys.exit(f"{args.clip}: not a fetched corpus clip (scripts/fetch-real-clips)")
    with tempfile.TemporaryDirectory() as tmp:
        models = Path(args.models) if args.models else Path(tmp) / "models"
        os.environ["VIDEOREVIEW_HOME"] = str(models / "home")  # exports and caches: not the user's
        from videoreview.media import probe

        duration = probe(clip.path).duration
        if "siglip2" in args.runs:  # built and prepared in processes of their own
            prepare_siglip(in_child(models_folder, "siglip2", models))
        for name in (run for run in args.runs if run in VLMS):
            in_child(models_folder, name, models)
        for run in args.runs:
            if run == "builtin":
                engines = ""
            elif run == "siglip2":
                engines = f"image-text={models_folder('siglip2', models)}"
            else:
                engines = f"captions=vlm:{models_folder(run, models)}"
            out = Path(tmp) / f"{run}.analysis.json"
            seconds = analyse(clip.path, engines, out)
            plan = json.loads(out.read_text()).get("caption_plan") or {}
            row = {"run": run, "clip": clip.name, "clip_s": round(duration, 1), "wall_s": round(seconds, 1),
                   "ratio": round(seconds / duration, 2), "windows": len(plan.get("windows", ())),
                   "frames_seen": len(plan.get("frames", ())), "boundaries": len(plan.get("boundaries", ())),
                   "estimated_s": plan.get("estimated"), "spent_s": plan.get("spent"),
                   "load_average": [round(x, 1) for x in os.getloadavg()]}
            if args.json:
                print(json.dumps(row), flush=True)
            else:
                print(f"{run:>14}: {seconds:6.1f} s for {duration:.1f} s of video ({row['ratio']:.2f}x its length); "
                      f"VLM windows {row['windows']}, frames {row['frames_seen']}, boundaries {row['boundaries']}, "
                      f"spent {row['spent_s']} s", flush=True)


if __name__ == "__main__":
    main()
