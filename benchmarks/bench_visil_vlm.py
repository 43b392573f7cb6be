"""ViSIL scoring throughput of a local VLM (engines/scoring/vlm.py), run the way a comparison runs it.

    .venv/bin/python benchmarks/bench_visil_vlm.py /models/Qwen2-VL-2B-Instruct
    .venv/bin/python benchmarks/bench_visil_vlm.py DIR --repeats 10 --video-frames 16 --json

Give a LLaVA-OneVision or Qwen2-VL folder in Hugging Face layout; the device is picked as
the engines pick it (CUDA bf16, else MPS fp16, else CPU fp32) unless ``--device`` says
otherwise. Without a folder a tiny random-weight model of ``--family`` is built
(tests/tiny_vlm.py): that checks the plumbing, its figures mean nothing for a real model.

A synthetic clip of random 384x216 frames stands in for the video. One comparison is what
summary.compare does per video: the video source (``--video-frames`` frames), then a text,
a 1-image and a 3-image summary, each scored for the same 20 masked keywords. One
comparison runs untimed (warm-up), then ``--repeats`` are timed. Prints keywords scored per
second, summaries per second, seconds per comparison, each summary's tau, and peak GPU
memory during the timed runs (CUDA) or the process's peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # the checkout's videoreview and tiny_vlm

from memory import peak_rss_mb  # noqa: E402  (benchmarks/memory.py)

SIZE = (384, 216)
REFERENCE = (
    "A woman in a yellow raincoat walks her brown dog along a wet harbour pier at dusk while fishing boats rock "
    "beside wooden posts. She stops near a red lighthouse, throws a tennis ball, and the dog sprints, slips on "
    "the planks, then returns with the ball as seagulls circle above the misty water and a ferry horn sounds.")
SUMMARY = "A woman walks her dog on a harbour pier, throws a ball by the lighthouse, and the dog fetches it."


def build_tiny(family: str, folder: Path) -> Path:
    import tiny_vlm

    sys.stdout.flush()  # the tokenizer trainer prints progress on fd 1: send it to stderr
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        return tiny_vlm.build(family, folder)
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", nargs="?", help="model folder in Hugging Face layout (LLaVA-OneVision or Qwen2-VL)")
    parser.add_argument("--family", choices=["qwen2_vl", "llava_onevision"], default="qwen2_vl",
                        help="tiny model's family when no model folder is given")
    parser.add_argument("--repeats", type=int, default=5, help="timed comparisons")
    parser.add_argument("--video-frames", type=int, default=8, help="frames shown for the video source")
    parser.add_argument("--runs", type=int, default=1, help="the scorer's repeated passes per source")
    parser.add_argument("--device", choices=["cuda", "cpu", "mps"], help="default: automatic")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    import numpy as np
    import torch

    from videoreview.engines.captions.vlm import VisionLanguageModel
    from videoreview.engines.scoring.protocol import Source
    from videoreview.engines.scoring.vlm import VLMScorer
    from videoreview.summary.visil import extract_keywords, mask_caption

    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 256, (SIZE[1], SIZE[0], 3), dtype=np.uint8) for _ in range(args.video_frames)]
    keywords = extract_keywords(REFERENCE)
    masked = mask_caption(REFERENCE, keywords)
    third = args.video_frames // 3
    summaries = {"text": Source("summary", SUMMARY), "1 image": Source("summary", SUMMARY, (third,)),
                 "3 images": Source("summary", SUMMARY, (0, third, 2 * third))}

    with tempfile.TemporaryDirectory() as tmp:
        tiny = args.model is None
        model_dir = build_tiny(args.family, Path(tmp) / f"tiny-{args.family}") if tiny else Path(args.model)
        start = time.perf_counter()
        model = VisionLanguageModel(model_dir, device=args.device)
        load_s = time.perf_counter() - start
    params = sum(p.numel() for p in model.model.parameters())
    scorer = VLMScorer(model, lambda indices: [frames[i] for i in indices], range(args.video_frames), runs=args.runs)
    cuda = model.device.startswith("cuda")

    def comparison() -> tuple[float, float]:
        """(seconds on the video source, seconds on the summaries), as compare() calls them."""
        start = time.perf_counter()
        scorer.keyword_log_probs(keywords, masked, Source("video"))
        if cuda:
            torch.cuda.synchronize()
        video_end = time.perf_counter()
        for source in summaries.values():
            scorer.keyword_log_probs(keywords, masked, source)
            scorer.tokens(source)
        if cuda:
            torch.cuda.synchronize()
        return video_end - start, time.perf_counter() - video_end

    comparison()  # warm-up, untimed
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    timings = [comparison() for _ in range(args.repeats)]
    video_s = sum(t[0] for t in timings)
    summaries_s = sum(t[1] for t in timings)
    total_s = video_s + summaries_s
    sources = args.repeats * (1 + len(summaries))

    result = {
        "model": scorer.name, "family": model.family, "parameters": params, "tiny_random_weights": tiny,
        "device": model.device, "dtype": str(model.dtype).replace("torch.", ""), "load_s": round(load_s, 3),
        "keywords": len(keywords), "video_frames": args.video_frames, "frame_size": list(SIZE), "runs": args.runs,
        "repeats": args.repeats, "keywords_per_s": round(sources * len(keywords) / total_s, 3),
        "summaries_per_s": round(args.repeats * len(summaries) / summaries_s, 3),
        "video_s": round(video_s / args.repeats, 4), "comparison_s": round(total_s / args.repeats, 4),
        "tokens": {label: scorer.tokens(source) for label, source in summaries.items()},
        "video_tokens": scorer.tokens(Source("video")),
        "peak_gpu_mib": round(torch.cuda.max_memory_allocated() / 2**20, 1) if cuda else None,
        "peak_rss_mib": round(peak_rss_mb(), 1),
    }
    if args.json:
        print(json.dumps(result))
        return
    if tiny:
        print(f"NOTE: TINY RANDOM-WEIGHT model on {model.device}: these figures test the plumbing and mean nothing "
              "for a real model")
    print(f"model      {result['model']} ({model.family}, {params / 1e6:.2f} M parameters), loaded in {load_s:.2f} s")
    print(f"device     {model.device}, {result['dtype']}; {args.runs} pass(es) per source")
    print(f"sources    video of {args.video_frames} frames ({result['video_tokens']} tokens) and summaries "
          + ", ".join(f"{label} (tau {n})" for label, n in result["tokens"].items())
          + f" at {SIZE[0]}x{SIZE[1]}; {len(keywords)} keywords")
    print(f"scoring    {result['keywords_per_s']} keywords/s; {result['summaries_per_s']} summaries/s; "
          f"{result['comparison_s']} s per comparison (video + {len(summaries)} summaries, video alone "
          f"{result['video_s']} s), mean of {args.repeats}")
    if cuda:
        print(f"memory     peak GPU {result['peak_gpu_mib']:.0f} MiB (timed runs); "
              f"peak RSS {result['peak_rss_mib']:.0f} MiB")
    else:
        print(f"memory     peak RSS {result['peak_rss_mib']:.0f} MiB (process); GPU memory n/a on {model.device}")


if __name__ == "__main__":
    main()
