"""Caption throughput of our batched VLM path against a one-window-at-a-time fp16 loop (as
ProgressCaptioner's own inference script runs), in the same run, with peak GPU memory.

    .venv/bin/python benchmarks/bench_vlm_batching.py                 # CUDA: the five published architectures
    .venv/bin/python benchmarks/bench_vlm_batching.py --arch qwen2-vl-2b --windows 64 --batch 16

The compute does not depend on the weight values, so each architecture is built from its
published config (the sizes below, copied from the models' config.json files as public code
quotes them, and SmolVLM2 2.2B's from the SmolVLM paper's description: SigLIP SO400M at
384 px, SmolLM2 1.7B with RoPE base 273k, pixel shuffle by 3; none checked against the hub
from this machine) with random weights, the test suite's small tokenizer
(tests/tiny_vlm.py) and the family's real image processor, and every window generates
exactly ``--tokens`` new tokens (min = max), so both paths do the same work.

Both paths caption the same 2-frame windows (frames decoded once, untimed, at the family's
input size), through the same processor and model:
  * batched: ours. The device's dtype (bf16 on CUDA where supported), SDPA attention, ``--batch``
    windows per generate call, left padding.
  * one at a time: fp16 on CUDA (fp32 on a CPU, which has no fast fp16), batch 1.
Without CUDA the script builds tiny models instead and says so: its figures test the
plumbing, not a real model's speed.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # the checkout's videoreview, tiny_vlm and videos

from memory import peak_rss_mb  # noqa: E402  (benchmarks/memory.py)

SIGLIP_SO400M = dict(hidden_size=1152, intermediate_size=4304, num_hidden_layers=26, num_attention_heads=16,
                     patch_size=14)  # LLaVA-OneVision's vision tower (the last layer dropped), 384 px input
SIGLIP_BASE_512 = dict(hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12,
                       patch_size=16)  # SmolVLM2 256M's and 500M's vision tower (SigLIP base, 16-px patches, 512 px)
ARCHITECTURES = {
    "llava-onevision-0.5b": ("llava_onevision", {
        "text": dict(hidden_size=896, intermediate_size=4864, num_hidden_layers=24, num_attention_heads=14,
                     num_key_value_heads=2, vocab_size=151936, max_position_embeddings=32768, rope_theta=1e6,
                     tie_word_embeddings=True),
        "vision": SIGLIP_SO400M, "image": 384}),
    "llava-onevision-7b": ("llava_onevision", {
        "text": dict(hidden_size=3584, intermediate_size=18944, num_hidden_layers=28, num_attention_heads=28,
                     num_key_value_heads=4, vocab_size=152064, max_position_embeddings=32768, rope_theta=1e6,
                     tie_word_embeddings=False),
        "vision": SIGLIP_SO400M, "image": 384}),
    "qwen2-vl-2b": ("qwen2_vl", {
        "text": dict(hidden_size=1536, intermediate_size=8960, num_hidden_layers=28, num_attention_heads=12,
                     num_key_value_heads=2, vocab_size=151936, max_position_embeddings=32768, rope_theta=1e6,
                     tie_word_embeddings=True,
                     rope_scaling={"type": "mrope", "mrope_section": [16, 24, 24]}),
        "vision": dict(depth=32, embed_dim=1280, hidden_size=1536, num_heads=16, mlp_ratio=4, patch_size=14,
                       spatial_merge_size=2, temporal_patch_size=2),
        "max_pixels": 28 * 28 * 1280}),
    "qwen3-vl-4b": ("qwen3_vl", {
        "text": dict(hidden_size=2560, intermediate_size=9728, num_hidden_layers=36, num_attention_heads=32,
                     num_key_value_heads=8, head_dim=128, vocab_size=151936, max_position_embeddings=262144,
                     tie_word_embeddings=True),  # mrope_section [24, 20, 20]: tiny_vlm sets it for head_dim 128
        "vision": dict(depth=24, hidden_size=1024, intermediate_size=4096, num_heads=16, patch_size=16,
                       spatial_merge_size=2, temporal_patch_size=2, out_hidden_size=2560,
                       num_position_embeddings=2304, deepstack_visual_indexes=[5, 11, 17]),
        "max_pixels": 32 * 32 * 1024}),
    "smolvlm2-2.2b": ("smolvlm", {
        "text": dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=24, num_attention_heads=32,
                     num_key_value_heads=32, vocab_size=49280, max_position_embeddings=16384, rope_theta=273768),
        "vision": dict(SIGLIP_SO400M, num_hidden_layers=27), "image": 384, "scale": 3}),
    # SmolVLM2 256M and 500M: fine-tunes of SmolVLM 256M / 500M (SmolLM2 135M / 360M, their own
    # output matrix, not tied), one 512-px tile a frame shuffled by 4: 64 tokens
    "smolvlm2-256m": ("smolvlm", {
        "text": dict(hidden_size=576, intermediate_size=1536, num_hidden_layers=30, num_attention_heads=9,
                     num_key_value_heads=3, vocab_size=49280, max_position_embeddings=8192, rope_theta=100000,
                     tie_word_embeddings=False),
        "vision": SIGLIP_BASE_512, "image": 512, "scale": 4}),
    "smolvlm2-500m": ("smolvlm", {
        "text": dict(hidden_size=960, intermediate_size=2560, num_hidden_layers=32, num_attention_heads=15,
                     num_key_value_heads=5, vocab_size=49280, max_position_embeddings=8192, rope_theta=100000,
                     tie_word_embeddings=False),
        "vision": SIGLIP_BASE_512, "image": 512, "scale": 4}),
    # Qwen3.5 0.8B: 18 Gated DeltaNet and 6 attention layers (tiny_vlm lays them out 3:1, mrope
    # sections [11, 11, 10] for head_dim 256), a 12-layer vision tower; transformers builds no
    # multi-token-prediction head (the catalog's count includes it: see the architectures test)
    "qwen3.5-0.8b": ("qwen3_5", {
        "text": dict(hidden_size=1024, intermediate_size=3584, num_hidden_layers=24, num_attention_heads=8,
                     num_key_value_heads=2, head_dim=256, vocab_size=248320, max_position_embeddings=262144,
                     tie_word_embeddings=True, linear_num_key_heads=16, linear_num_value_heads=16,
                     linear_key_head_dim=128, linear_value_head_dim=128, linear_conv_kernel_dim=4),
        "vision": dict(depth=12, hidden_size=768, intermediate_size=3072, num_heads=12, patch_size=16,
                       num_position_embeddings=2304),
        "max_pixels": 32 * 32 * 1024}),
    "tiny-llava-onevision": ("llava_onevision", {}),
    "tiny-qwen2-vl": ("qwen2_vl", {}),
    "tiny-qwen3-vl": ("qwen3_vl", {}),
    "tiny-smolvlm": ("smolvlm", {}),
}
FULL = ["llava-onevision-0.5b", "llava-onevision-7b", "qwen2-vl-2b", "qwen3-vl-4b", "smolvlm2-2.2b"]
TINY = ["tiny-llava-onevision", "tiny-qwen2-vl", "tiny-qwen3-vl", "tiny-smolvlm"]


def build(name: str, folder: Path) -> Path:
    import tiny_vlm

    family, sizes = ARCHITECTURES[name]
    sys.stdout.flush()  # the tokenizer trainer prints progress on fd 1: send it to stderr
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        return tiny_vlm.build(family, folder / name, sizes=sizes)
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def windows_of(frames, count: int):
    """``count`` 2-frame windows (t-1, t) over the frames, as the pipeline makes them in a shot."""
    return [[frames[max(0, i - 1) % len(frames)], frames[i % len(frames)]] for i in range(count)]


def run(model, windows, batch: int, tokens: int) -> float:
    """Seconds to caption every window, ``batch`` windows per generate call."""
    import torch

    from videoreview.engines.captions.prompts import caption_prompt

    prompt = model.chat(2, caption_prompt(2))
    cuda = model.device.startswith("cuda")
    if cuda:
        torch.cuda.synchronize()
    start = time.perf_counter()
    for first in range(0, len(windows), batch):
        chunk = windows[first:first + batch]
        inputs = model.inputs([prompt] * len(chunk), chunk)
        with torch.inference_mode():
            model.model.generate(**inputs, min_new_tokens=tokens, max_new_tokens=tokens, do_sample=False,
                                 pad_token_id=model.processor.tokenizer.pad_token_id)
    if cuda:
        torch.cuda.synchronize()
    return time.perf_counter() - start


def measure(name: str, folder: Path, frames, args) -> dict:
    import torch

    from videoreview.engines.captions.vlm import VisionLanguageModel

    windows = windows_of(frames, args.windows)
    result: dict = {"arch": name, "windows": len(windows), "tokens": args.tokens}
    for path, batch in (("batched", args.batch), ("one_at_a_time", 1)):
        model = VisionLanguageModel(folder, device=args.device, batch_size=batch)
        if path == "one_at_a_time" and model.device.startswith("cuda"):
            model.model.to(torch.float16)
            model.dtype = torch.float16
        cuda = model.device.startswith("cuda")
        result["parameters"] = sum(p.numel() for p in model.model.parameters())
        run(model, windows[:batch], batch, args.tokens)  # warm-up, untimed
        if cuda:
            torch.cuda.reset_peak_memory_stats()
        seconds = run(model, windows, batch, args.tokens)
        result[path] = {"batch": batch, "dtype": str(model.dtype).replace("torch.", ""), "device": model.device,
                        "seconds": round(seconds, 3), "frames_per_s": round(len(windows) / seconds, 3),
                        "peak_gpu_mib": round(torch.cuda.max_memory_allocated() / 2**20) if cuda else None}
        del model
        gc.collect()
        if cuda:
            torch.cuda.empty_cache()
    result["speedup"] = round(result["batched"]["frames_per_s"] / result["one_at_a_time"]["frames_per_s"], 2)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--arch", action="append", choices=sorted(ARCHITECTURES),
                        help="architectures to run (default: the three published ones on CUDA, tiny ones otherwise)")
    parser.add_argument("--windows", type=int, help="2-frame windows to caption (default: 64 on CUDA, 16 on a CPU)")
    parser.add_argument("--batch", type=int, help="windows per batch on our path (default: 16 on CUDA, 4 on a CPU)")
    parser.add_argument("--tokens", type=int, default=32, help="new tokens generated per window")
    parser.add_argument("--device", choices=["cuda", "cpu", "mps"], help="default: automatic")
    parser.add_argument("--json", action="store_true", help="one JSON object per architecture")
    args = parser.parse_args()

    import torch

    from videoreview.engines.captions.vlm import FRAME_LONG_SIDE
    from videoreview.media import open_video, scaled_size
    from videos import make_long_video

    cuda = (args.device or ("cuda" if torch.cuda.is_available() else "cpu")).startswith("cuda")
    names = args.arch or (FULL if cuda else TINY)
    args.windows = args.windows or (64 if cuda else 16)
    args.batch = args.batch or (16 if cuda else 4)
    tiny = [n for n in names if n.startswith("tiny")]
    if tiny and not args.json:
        print(f"NOTE: {', '.join(tiny)}: TINY RANDOM-WEIGHT models (no CUDA here): the figures test the "
              f"plumbing, not a real model's speed")
    with tempfile.TemporaryDirectory() as tmp:
        video = make_long_video(Path(tmp) / "clip.mp4", seconds=17).path  # 720p, 25 fps
        for name in names:
            family = ARCHITECTURES[name][0]
            with open_video(video) as source:
                size = scaled_size(source.info.width, source.info.height, FRAME_LONG_SIDE[family])
                frames = list(source.frames_at_indices(source.sample_indices(1.0)[:16], size=size).frames)
            folder = build(name, Path(tmp))
            result = measure(name, folder, frames, args)
            result["peak_rss_mib"] = round(peak_rss_mb())
            if args.json:
                print(json.dumps(result))
                continue
            print(f"{name}: {result['parameters'] / 1e6:,.1f} M parameters, {result['windows']} windows of 2 frames "
                  f"at {size[0]}x{size[1]}, {args.tokens} new tokens each")
            for path in ("batched", "one_at_a_time"):
                r = result[path]
                memory = f", peak GPU {r['peak_gpu_mib']} MiB" if r["peak_gpu_mib"] is not None else ""
                print(f"  {path:<14} batch {r['batch']:>3}  {r['dtype']:<8} {r['device']:<5} "
                      f"{r['frames_per_s']:8.2f} frames/s ({r['seconds']:.1f} s){memory}")
            print(f"  batched / one at a time: {result['speedup']:.2f}x")
            import shutil

            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
