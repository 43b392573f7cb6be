"""Seconds per shot on this machine's CPU for the per-shot caption plan (issue 53): the
published architectures of SmolVLM2 256M / 500M and Qwen3.5 0.8B through the real engine,
and SigLIP 2 (base, 256 px) through the real image-text encoder.

    .venv/bin/python benchmarks/bench_vlm_shot.py                          # all four
    .venv/bin/python benchmarks/bench_vlm_shot.py --arch smolvlm2-256m --repeats 3 --json
    .venv/bin/python benchmarks/bench_vlm_shot.py --arch siglip2-base-256 --video CLIP

No weights can be downloaded here, so each model is built at its published size with random
weights (the compute does not depend on the values): the VLMs as bench_vlm_batching.py
builds them (ARCHITECTURES, their parameter counts checked against the catalog by
tests/test_bench_architectures.py), with the test suite's small tokenizer and the family's
real image processor; SigLIP 2 from its published config (SIGLIP2_BASE_256, checked the same
way) with a tokenizer like its own (tests/tiny_siglip.py).

What the plan asks of a VLM on a CPU, each request timed on its own, ``--repeats`` times
after one untimed warm-up, median printed:
  * a shot: one caption window of 6 frames, TOKENS_PER_FRAME new tokens a frame (192);
  * a smaller window: 2 frames, 64 new tokens;
  * a boundary: 5 frames (2 before, 1 at, 2 after) and the subject / before / after
    question, BOUNDARY_TOKENS new tokens.
A model with random weights never stops, and a trained one may stop early: every request
here generates exactly its cap (min_new_tokens = max_new_tokens, and the reply's length is
checked), so a figure is for that many tokens. Requests go through VisionLanguageModel's
``generate`` (the engine's batching, chat template, frame scaling, float32 on the CPU), with
the prompts the engine's caption and boundary protocols send. Frames are decoded once,
untimed, at the family's input size (FRAME_LONG_SIDE) from a real clip: by default the first
corpus clip of 1280x720 or more that scripts/fetch-real-clips has fetched, else a generated
720p clip. The load time is the engine loading the model folder (processor and weights).

SigLIP 2: the 6 frames of a shot at 256 x 256 through ``embed_images``, and ``--texts`` short
texts (a vocabulary's names, padded to 64 tokens as the encoder always does) through
``embed_texts`` in calls of ``--text-batch``. The first load exports both towers to ONNX
(once per model); the timed run then loads the exported model as every later run does.

Each model is built in a process of its own and measured in another, so the peak RSS
(benchmarks/memory.py) is that of loading and running the one model. torch and ONNX
Runtime use their default threads (one per core).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

from memory import peak_rss_mb  # noqa: E402  (benchmarks/memory.py)

VLMS = ("smolvlm2-256m", "smolvlm2-500m", "qwen3.5-0.8b")  # keys of bench_vlm_batching.ARCHITECTURES
SIGLIP = "siglip2-base-256"
SHOT_FRAMES = 6  # one caption window per shot, up to 6 frames spread over it
TOKENS_PER_FRAME = 32  # the per-shot plan's cap on new tokens a frame (TOKENS_PER_FRAME_SHOT)
BOUNDARY_FRAMES = (2, 2)  # frames before and after the one at the boundary
BOUNDARY_TOKENS = 64  # the per-shot plan's cap on a boundary's subject / before / after reply
# google/siglip2-base-patch16-256: SigLIP's architecture (model_type "siglip"), ViT-B/16 towers,
# Gemma's 256k vocabulary, 64-token texts; 375,234,050 parameters as the catalog records.
SIGLIP2_BASE_256 = {
    "text_config": dict(vocab_size=256000, hidden_size=768, intermediate_size=3072, num_hidden_layers=12,
                        num_attention_heads=12, max_position_embeddings=64),
    "vision_config": dict(hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12,
                          patch_size=16, image_size=256),
}
ADJECTIVES = ["white", "black", "red", "blue", "green", "yellow", "small", "large", "old", "young", "wooden",
              "metal", "wet", "snowy", "busy", "empty", "bright", "dark", "striped", "spotted", "flying",
              "running", "sleeping", "broken", "open", "closed", "tall", "round", "crowded", "quiet", "shiny",
              "dusty", "painted", "frozen", "burning", "floating", "rusty", "colourful", "distant", "wild"]
NOUNS = ["parrot", "car", "dog", "cat", "horse", "bicycle", "boat", "bus", "train", "aeroplane", "person",
         "child", "crowd", "tree", "flower", "house", "bridge", "road", "beach", "mountain", "river", "kitchen",
         "office", "street", "forest"]


def default_video(tmp: Path) -> tuple[Path, str]:
    """The first fetched corpus clip of 1280x720 or more, else a generated 720p clip."""
    from real_corpus import corpus

    for clip in corpus():
        if clip.source.get("width", 0) >= 1280 and clip.source.get("height", 0) >= 720 and clip.path.exists():
            return clip.path, f"corpus clip {clip.name}"
    from videos import make_long_video

    return make_long_video(tmp / "clip.mp4", seconds=12).path, "a generated 720p clip (no corpus clip here)"


def shot_frames(video: Path, long_side: int | None, square: int | None = None):
    """SHOT_FRAMES frames spread evenly over the clip, decoded at ``long_side`` (aspect kept)
    or as ``square`` x ``square`` squares."""
    import numpy as np

    from videoreview.media import open_video, scaled_size

    with open_video(video) as source:
        info = source.info
        size = (square, square) if square else scaled_size(info.width, info.height, long_side)
        indices = np.linspace(0, info.frame_count - 1, SHOT_FRAMES + 2).round().astype(int)[1:-1]
        return list(source.frames_at_indices(indices, size=size).frames)


def timed(function) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process, all threads) of ``function()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    function()
    return time.perf_counter() - wall, time.process_time() - cpu


def rss_mb() -> float:
    """This process's resident memory now, in MiB (Linux; 0 elsewhere)."""
    try:
        with open("/proc/self/status") as status:
            return int(status.read().split("VmRSS:")[1].split()[0]) / 1024
    except OSError:
        return 0.0


def in_child(function, *args):
    """``function(*args)`` in a fresh process: its peak RSS is its own, not the builder's."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(function, *args).result()


# -- VLMs ----------------------------------------------------------------------------------
def build_vlm(name: str, folder: Path) -> dict:
    import bench_vlm_batching

    started = time.perf_counter()
    bench_vlm_batching.build(name, folder)
    return {"build_s": round(time.perf_counter() - started, 1), "build_peak_rss_mib": round(peak_rss_mb())}


def measure_vlm(name: str, folder: Path, video: Path, repeats: int, threads: int | None) -> dict:
    import torch

    if threads:
        torch.set_num_threads(threads)

    from videoreview.engines.captions.prompts import boundary_prompt, caption_prompt
    from videoreview.engines.captions.vlm import FRAME_LONG_SIDE, Request, VLMEngine

    engine = VLMEngine(folder / name, device="cpu")
    frames = shot_frames(video, FRAME_LONG_SIDE[engine.family])
    started = time.perf_counter()
    model = engine.model
    load_s = time.perf_counter() - started
    loaded_rss = rss_mb()

    produced: list[tuple[int, int]] = []  # (prompt tokens, new tokens) of each generate call
    generate = model.model.generate

    def exactly_the_cap(**kwargs):
        """The engine's generate call, made to generate exactly max_new_tokens."""
        out = generate(**kwargs, min_new_tokens=kwargs["max_new_tokens"])
        prompt = kwargs["input_ids"].shape[1]
        produced.append((prompt, out.shape[1] - prompt))
        return out

    model.model.generate = exactly_the_cap
    before, after = BOUNDARY_FRAMES
    requests = {
        "shot": Request(frames, caption_prompt(SHOT_FRAMES), TOKENS_PER_FRAME * SHOT_FRAMES),
        "window2": Request([frames[0], frames[-1]], caption_prompt(2), TOKENS_PER_FRAME * 2),
        "boundary": Request(frames[:before + 1 + after], boundary_prompt(before, after), BOUNDARY_TOKENS),
    }
    started = time.perf_counter()
    model.generate([requests["window2"]])  # warm-up
    warmup_s = time.perf_counter() - started
    seconds: dict[str, list[float]] = {kind: [] for kind in requests}
    cpu: dict[str, list[float]] = {kind: [] for kind in requests}
    shapes: dict[str, dict] = {}
    for _ in range(repeats):
        for kind, request in requests.items():
            wall, used = timed(lambda: model.generate([request]))  # noqa: B023  (called at once)
            seconds[kind].append(wall)
            cpu[kind].append(used)
            prompt, new = produced[-1]
            if new != request.max_new_tokens:
                raise RuntimeError(f"{name} {kind}: {new} new tokens, not {request.max_new_tokens}")
            shapes[kind] = {"frames": len(request.images), "prompt_tokens": prompt, "new_tokens": new}
    return {"arch": name, "family": engine.family, "parameters": sum(p.numel() for p in model.model.parameters()),
            "frame_size": list(frames[0].shape[1::-1]), "threads": torch.get_num_threads(), "repeats": repeats,
            "load_s": round(load_s, 2), "warmup_s": round(warmup_s, 2),
            **{f"{kind}_s": round(statistics.median(times), 2) for kind, times in seconds.items()},
            "all_s": {kind: [round(t, 2) for t in times] for kind, times in seconds.items()},
            "cpu_s": {kind: round(statistics.median(times), 2) for kind, times in cpu.items()},
            "requests": shapes, "rss_after_load_mib": round(loaded_rss), "peak_rss_mib": round(peak_rss_mb())}


# -- SigLIP 2 --------------------------------------------------------------------------------
def build_siglip(folder: Path) -> dict:
    """SigLIP 2 base 256 with random weights in Hugging Face layout, over tiny_siglip's
    tokenizer (like SigLIP 2's Gemma one: texts are padded to 64 tokens whatever they say)."""
    import torch
    import transformers

    import tiny_siglip

    started = time.perf_counter()
    tiny_siglip.build(folder, gemma=True)  # tokenizer; its tiny model is replaced below
    transformers.SiglipImageProcessor(size={"height": 256, "width": 256}).save_pretrained(folder)
    torch.manual_seed(0)
    model = transformers.SiglipModel(transformers.SiglipConfig(**SIGLIP2_BASE_256))
    model.save_pretrained(folder)
    parameters = sum(p.numel() for p in model.parameters())
    return {"build_s": round(time.perf_counter() - started, 1), "parameters": parameters}


def export_siglip(folder: Path, home: Path) -> dict:
    """The first load: both towers exported to ONNX (once per model), then opened."""
    os.environ["VIDEOREVIEW_HOME"] = str(home)  # the export goes here, not into the user's data
    from videoreview.engines.embeddings.image_text import ImageTextEncoder

    started = time.perf_counter()
    ImageTextEncoder(folder)
    return {"first_load_s": round(time.perf_counter() - started, 1), "export_peak_rss_mib": round(peak_rss_mb())}


def vocabulary(count: int) -> list[str]:
    """``count`` short names of things ("a white parrot", ...)."""
    names = [f"a {adjective} {noun}" for noun in NOUNS for adjective in ADJECTIVES]
    return [names[i % len(names)] + ("" if i < len(names) else f" {i // len(names)}") for i in range(count)]


def measure_siglip(folder: Path, home: Path, video: Path, repeats: int, texts: int, text_batch: int) -> dict:
    os.environ["VIDEOREVIEW_HOME"] = str(home)
    from videoreview.engines.embeddings.image_text import ImageTextEncoder

    started = time.perf_counter()
    encoder = ImageTextEncoder(folder)
    load_s = time.perf_counter() - started
    loaded_rss = rss_mb()
    frames = shot_frames(video, None, square=encoder.size)
    encoder.embed_images(frames)  # warm-up
    shot = [timed(lambda: encoder.embed_images(frames)) for _ in range(repeats)]
    names = vocabulary(texts)
    encoder.embed_texts(names[:text_batch])  # warm-up
    texts_s, texts_cpu = timed(lambda: [encoder.embed_texts(names[first:first + text_batch])
                                        for first in range(0, len(names), text_batch)])
    return {"arch": SIGLIP, "frame_size": [encoder.size, encoder.size], "device": encoder.device,
            "load_s": round(load_s, 2), "repeats": repeats,
            "shot_s": round(statistics.median(wall for wall, _ in shot), 2),
            "all_shot_s": [round(wall, 2) for wall, _ in shot],
            "shot_cpu_s": round(statistics.median(cpu for _, cpu in shot), 2),
            "texts": texts, "text_batch": text_batch, "texts_s": round(texts_s, 1), "texts_cpu_s": round(texts_cpu, 1),
            "per_1000_texts_s": round(texts_s * 1000 / texts, 1), "rss_after_load_mib": round(loaded_rss),
            "peak_rss_mib": round(peak_rss_mb())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--arch", action="append", choices=[*VLMS, SIGLIP], help="default: all four")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each request (median printed)")
    parser.add_argument("--video", type=Path, help="clip to take a shot's frames from (default: see above)")
    parser.add_argument("--texts", type=int, default=1000, help="SigLIP 2: texts to embed")
    parser.add_argument("--text-batch", type=int, default=250, help="SigLIP 2: texts per embed_texts call")
    parser.add_argument("--threads", type=int, help="torch threads for the VLMs (default: torch's, one per core)")
    parser.add_argument("--json", action="store_true", help="one JSON object per model")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        video, what = (args.video, str(args.video)) if args.video else default_video(tmp)
        if not args.json:
            print(f"frames from {what}; {os.cpu_count()} cores; {args.repeats} timed runs each, medians")
        for name in args.arch or [*VLMS, SIGLIP]:
            load_before = [round(x, 1) for x in os.getloadavg()]  # other work on the machine skews the times
            if name == SIGLIP:
                folder, home = tmp / name, tmp / "home"
                result = {**in_child(build_siglip, folder), **in_child(export_siglip, folder, home),
                          **in_child(measure_siglip, folder, home, video, args.repeats, args.texts, args.text_batch)}
            else:
                result = {**in_child(build_vlm, name, tmp),
                          **in_child(measure_vlm, name, tmp, video, args.repeats, args.threads)}
            shutil.rmtree(tmp / name, ignore_errors=True)
            shutil.rmtree(tmp / "home", ignore_errors=True)
            result["load_average_after"] = [round(x, 1) for x in os.getloadavg()]
            result["load_average_before"] = load_before
            result["video"] = what
            if args.json:
                print(json.dumps(result), flush=True)
            elif name == SIGLIP:
                print(f"{name}: {result['parameters'] / 1e6:.1f} M parameters, {result['device']}; first load (ONNX "
                      f"export) {result['first_load_s']} s, load {result['load_s']} s; a shot's "
                      f"{SHOT_FRAMES} frames {result['shot_s']} s; {result['texts']} texts {result['texts_s']} s "
                      f"({result['per_1000_texts_s']} s per 1000); peak RSS {result['peak_rss_mib']} MiB", flush=True)
            else:
                print(f"{name}: {result['parameters'] / 1e6:.1f} M parameters, frames {result['frame_size'][0]}x"
                      f"{result['frame_size'][1]}, {result['threads']} torch threads; load {result['load_s']} s; "
                      f"shot ({SHOT_FRAMES} frames, {TOKENS_PER_FRAME * SHOT_FRAMES} tokens) {result['shot_s']} s; "
                      f"2 frames ({TOKENS_PER_FRAME * 2} tokens) {result['window2_s']} s; boundary "
                      f"({sum(BOUNDARY_FRAMES) + 1} frames, {BOUNDARY_TOKENS} tokens) {result['boundary_s']} s; "
                      f"peak RSS {result['peak_rss_mib']} MiB", flush=True)


if __name__ == "__main__":
    main()
