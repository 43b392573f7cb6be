"""Frames per second of TransNetV2 through TransNetStream on random 48x27 frames, windows
of 200, best of two runs: on the CPU on ONNX Runtime (as analysis runs it there) and in
torch; with ``--device cuda`` in torch on the GPU (as analysis runs it there) and, where
onnxruntime has a CUDA provider that starts, on it, each with several windows a batch.

    .venv/bin/python benchmarks/bench_transnet.py [--frames 750] [--window 200]
    python benchmarks/bench_transnet.py --device cuda --frames 6000 --batch-windows 1 4 16 32
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from videoreview.engines.boundaries.transnet import OnnxTransNet, TorchTransNet, TransNetStream, load_transnet
from videoreview.engines.placement import onnx_placement


def models(device: str, window: int) -> dict:
    if device == "cpu":
        return {"onnxruntime": OnnxTransNet(window=window), "torch": TorchTransNet(load_transnet())}
    found = {f"torch on {device}": TorchTransNet(load_transnet(device))}
    place = onnx_placement(device)
    if place.cuda:
        found[f"onnxruntime on {device}"] = OnnxTransNet(device, window)
    else:
        print(f"onnxruntime on {device}: not measured ({place.note})")
    return found


def benchmark(device: str = "cpu", window: int = 200, frames: int = 750, batches=(1,), repeats: int = 2) -> dict:
    rng = np.random.default_rng(0)
    pushed = rng.integers(0, 256, (frames, 27, 48, 3), dtype=np.uint8)
    result = {}
    for name, model in models(device, window).items():
        for batch in batches:
            TransNetStream(model, batch, window=window).push(pushed[:window * batch])  # warm up
            best = float("inf")
            for _ in range(repeats):
                stream = TransNetStream(model, batch, window=window)
                start = time.perf_counter()
                stream.push(pushed)
                stream.finish()
                best = min(best, time.perf_counter() - start)
            result[(name, batch)] = len(pushed) / best
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=750)
    parser.add_argument("--window", type=int, default=200)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--batch-windows", type=int, nargs="+", default=[1])
    parser.add_argument("--cudnn-benchmark", action="store_true", help="let cuDNN time its kernels first")
    args = parser.parse_args()
    if args.cudnn_benchmark:
        import torch

        torch.backends.cudnn.benchmark = True
    for (name, batch), fps in benchmark(args.device, args.window, args.frames, args.batch_windows).items():
        print(f"TransNetV2 on {name}, windows of {args.window}, {batch} a batch: {fps:.0f} frames/s")
