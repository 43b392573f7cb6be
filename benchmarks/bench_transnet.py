"""Frames per second of TransNetV2 through TransNetStream on random 48x27 frames, on ONNX
Runtime (as analysis runs it) and in torch, windows of 200, best of two runs.

    .venv/bin/python benchmarks/bench_transnet.py [--frames 750] [--window 200]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from videoreview.engines.boundaries.transnet import OnnxTransNet, TorchTransNet, TransNetStream, load_transnet


def benchmark(window: int = 200, frames: int = 750, repeats: int = 2) -> dict[str, float]:
    rng = np.random.default_rng(0)
    pushed = rng.integers(0, 256, (frames, 27, 48, 3), dtype=np.uint8)
    result = {}
    for name, model in (("onnxruntime", OnnxTransNet(window=window)), ("torch", TorchTransNet(load_transnet()))):
        TransNetStream(model, window=window).push(pushed[:window])  # warm up
        best = float("inf")
        for _ in range(repeats):
            stream = TransNetStream(model, window=window)
            start = time.perf_counter()
            stream.push(pushed)
            stream.finish()
            best = min(best, time.perf_counter() - start)
        result[name] = len(pushed) / best
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=750)
    parser.add_argument("--window", type=int, default=200)
    args = parser.parse_args()
    for name, fps in benchmark(args.window, args.frames).items():
        print(f"TransNetV2 on {name}, windows of {args.window}: {fps:.0f} frames/s")
