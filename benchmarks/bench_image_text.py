"""Frame search's cost per frame: the image towers of SigLIP base (224 px squares), SigLIP 2
base at 256 px (squares) and SigLIP 2 base NaFlex (256 patches at the video's aspect
ratio) through our ONNX export, on frames of a 16:9 720p clip, in one run.

    .venv/bin/python benchmarks/bench_image_text.py [--frames 64] [--portrait]

No weights can be downloaded here, so each architecture is built at its published size
(ViT-B/16: 768 wide, 12 layers, 12 heads; the transformers defaults are these
checkpoints') with random weights: speed does not depend on the values. The text towers
get a small vocabulary (queries are not timed). Timed: decoding the frames at the model's
input size and embedding them, after one untimed warm-up batch; the ONNX export is timed
apart (it happens once per model).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from memory import peak_rss_mb  # noqa: E402

BASE = dict(hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12, patch_size=16)
TEXT = dict(vocab_size=64, hidden_size=768, intermediate_size=3072, num_hidden_layers=12, num_attention_heads=12,
            max_position_embeddings=64)


def build(arch: str, folder: Path) -> Path:
    import torch
    import transformers

    import tiny_siglip

    torch.manual_seed(0)
    if arch == "siglip2-naflex":
        tiny_siglip.build_naflex(folder)  # its tokenizer and preprocessor, then the full-size model over it
        pre = folder / "preprocessor_config.json"
        pre.write_text(pre.read_text().replace('"patch_size": 8', '"patch_size": 16')
                       .replace('"max_num_patches": 16', '"max_num_patches": 256'))
        text = dict(TEXT, vocab_size=len(tiny_siglip.CHARACTERS) + 5)
        config = transformers.Siglip2Config(text_config=text, vision_config=dict(BASE, num_patches=256))
        transformers.Siglip2Model(config).save_pretrained(folder)
    else:
        side = 224 if arch == "siglip-224" else 256
        tiny_siglip.build(folder, gemma=arch != "siglip-224")
        transformers.SiglipImageProcessor(size={"height": side, "width": side}).save_pretrained(folder)
        config = transformers.SiglipConfig(text_config=dict(TEXT, vocab_size=tiny_siglip.VOCAB),
                                           vision_config=dict(BASE, image_size=side))
        transformers.SiglipModel(config).save_pretrained(folder)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=64)
    parser.add_argument("--portrait", action="store_true", help="a 9:16 phone video instead of 16:9")
    args = parser.parse_args()

    from videoreview.engines.embeddings.image_text import ImageTextEncoder
    from videoreview.media import open_video
    from videos import make_long_video

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["VIDEOREVIEW_HOME"] = tmp  # the exports go here, not into the user's data
        size = (720, 1280) if args.portrait else (1280, 720)
        video = make_long_video(Path(tmp) / "clip.mp4", seconds=args.frames / 2 + 1, size=size).path
        print(f"{args.frames} frames of a {size[0]}x{size[1]} clip, {os.cpu_count()} cores")
        for arch in ("siglip-224", "siglip2-256", "siglip2-naflex"):
            folder = build(arch, Path(tmp) / arch)
            started = time.perf_counter()
            encoder = ImageTextEncoder(folder)
            exported = time.perf_counter() - started
            width, height = encoder.input_size(*size)
            with open_video(video) as source:
                indices = source.sample_indices(2.0)[:args.frames]
                encoder.embed_images(list(source.frames_at_indices(indices[:8], size=(width, height)).frames))
                started = time.perf_counter()
                frames = list(source.frames_at_indices(indices, size=(width, height)).frames)
                encoder.embed_images(frames)
                seconds = time.perf_counter() - started
            patches = (width // 16) * (height // 16)
            print(f"  {arch:<15} input {width}x{height} ({patches} patches): {len(frames) / seconds:6.1f} frames/s "
                  f"({seconds:.2f} s), export {exported:.1f} s, peak RSS so far {peak_rss_mb():.0f} MiB")


if __name__ == "__main__":
    main()
