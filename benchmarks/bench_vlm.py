"""VLM captioning throughput, run the way the pipeline runs it (``--engines captions=vlm:FOLDER``).

    .venv/bin/python benchmarks/bench_vlm.py --model /models/llava-onevision-qwen2-0.5b-ov-hf
    .venv/bin/python benchmarks/bench_vlm.py --model DIR --batch 16 --frames 64 --video CLIP.mp4 --json

On a CUDA machine give ``--model`` a LLaVA-OneVision or Qwen2-VL folder in Hugging Face layout;
the device is picked as the engine picks it (CUDA bf16, else MPS fp16, else CPU fp32) unless
``--device`` says otherwise. Without ``--model`` a tiny random-weight model of ``--family`` is
built (tests/tiny_vlm.py): that checks the plumbing, its speed says nothing about a real model.

Frames are sampled at 1 fps from the video (default: a generated 720p 25 fps clip), decoded at
the family's size (timed on their own), and each is captioned from its sliding 2-frame window,
the pair (t-1, t) (the first frame pairs with the next), ``--batch`` windows per
``engine.caption_windows`` call. Cuts are ignored: every window has two frames, the usual case.
Prints model load time, one warm-up batch (untimed), then frames captioned per second, how many
got a parseable caption, and peak GPU memory during the timed run (CUDA) or the process's peak RSS.
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
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # the checkout's videoreview, tiny_vlm and videos

from memory import peak_rss_mb  # noqa: E402  (benchmarks/memory.py)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", help="model folder in Hugging Face layout (LLaVA-OneVision or Qwen2-VL)")
    parser.add_argument("--family", choices=["qwen2_vl", "llava_onevision"], default="qwen2_vl",
                        help="tiny model's family when no --model is given")
    parser.add_argument("--batch", type=int, help="windows per batch (default: the engine's default)")
    parser.add_argument("--frames", type=int, default=32, help="sampled frames to caption")
    parser.add_argument("--video", help="video to sample (default: a generated 720p 25 fps clip)")
    parser.add_argument("--device", choices=["cuda", "cpu", "mps"], help="default: automatic")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    import torch

    from videoreview.engines.captions.protocol import CaptionContext
    from videoreview.engines.captions.vlm import FRAME_LONG_SIDE, VLMEngine
    from videoreview.media import open_video, scaled_size
    from videoreview.pipeline.stages.vlm_captions import caption_windows

    with tempfile.TemporaryDirectory() as tmp:
        tiny = args.model is None
        if tiny:
            import tiny_vlm

            sys.stdout.flush()  # the tokenizer trainer prints progress on fd 1: send it to stderr
            saved = os.dup(1)
            os.dup2(2, 1)
            try:
                model_dir = tiny_vlm.build(args.family, Path(tmp) / f"tiny-{args.family}")
            finally:
                os.dup2(saved, 1)
                os.close(saved)
        else:
            model_dir = Path(args.model)
        video = args.video
        if video is None:
            from videos import make_long_video

            video = make_long_video(Path(tmp) / "clip.mp4", seconds=args.frames + 1).path

        engine = VLMEngine(model_dir, device=args.device, batch_size=args.batch)
        start = time.perf_counter()
        model = engine.model
        load_s = time.perf_counter() - start
        batch = model.batch_size
        params = sum(p.numel() for p in model.model.parameters())

        start = time.perf_counter()
        with open_video(video) as source:
            idx = source.sample_indices(1.0)[:args.frames]
            size = scaled_size(source.info.width, source.info.height, FRAME_LONG_SIDE[engine.family])
            frames = source.frames_at_indices(idx, size=size).frames
        decode_s = time.perf_counter() - start

        context = CaptionContext(identities=())  # no faces known: the prompt the pipeline sends then
        windows = caption_windows([0] * len(frames))  # one shot: (t-1, t), the first frame with the next
        requests = [([frames[i] for i in members], context) for members, _ in windows]
        cuda = model.device.startswith("cuda")

        engine.caption_windows(requests[:batch])  # warm-up, untimed
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        captions = []
        start = time.perf_counter()
        for first in range(0, len(requests), batch):
            texts = engine.caption_windows(requests[first:first + batch])
            captions += [t[position] for t, (_, position) in zip(texts, windows[first:first + batch])]
        if cuda:
            torch.cuda.synchronize()
        caption_s = time.perf_counter() - start

    result = {
        "model": engine.name, "family": engine.family, "parameters": params,
        "tiny_random_weights": tiny, "device": model.device, "dtype": str(model.dtype).replace("torch.", ""),
        "batch": batch, "frame_size": list(size), "load_s": round(load_s, 3), "decode_s": round(decode_s, 3),
        "frames": len(captions), "caption_s": round(caption_s, 3),
        "frames_per_s": round(len(captions) / caption_s, 3) if caption_s else None,
        "parsed": sum(c is not None for c in captions),
        "peak_gpu_mib": round(torch.cuda.max_memory_allocated() / 2**20, 1) if cuda else None,
        "peak_rss_mib": round(peak_rss_mb(), 1),
    }
    if args.json:
        print(json.dumps(result))
        return
    if tiny:
        print("NOTE: TINY RANDOM-WEIGHT model: figures test the plumbing, not a real model's speed "
              "(its captions are noise)")
    print(f"model    {result['model']} ({result['family']}, {params / 1e6:.2f} M parameters), "
          f"loaded in {load_s:.2f} s")
    print(f"device   {result['device']}, {result['dtype']}; batch {batch} windows of 2 frames "
          f"at {size[0]}x{size[1]}")
    print(f"decode   {len(frames)} frames at 1 fps in {decode_s:.2f} s")
    print(f"caption  {len(captions)} frames in {caption_s:.2f} s = {result['frames_per_s']} frames/s; "
          f"{result['parsed']}/{len(captions)} parseable captions")
    if cuda:
        print(f"memory   peak GPU {result['peak_gpu_mib']:.0f} MiB (timed run); "
              f"peak RSS {result['peak_rss_mib']:.0f} MiB")
    else:
        print(f"memory   peak RSS {result['peak_rss_mib']:.0f} MiB (process); GPU memory n/a on {model.device}")


if __name__ == "__main__":
    main()
