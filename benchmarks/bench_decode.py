"""Decoding a video to the small RGB frames analysis reads (160 px on the long side, as
the boundary stage asks for), three ways, frames per second:
  - PyAV on the CPU with slice threads (as media/_pyav.py decodes),
  - PyAV on the CPU with frame threads (every core),
  - PyAV on NVDEC (FFmpeg's CUDA hardware decoder; frames copied back to the CPU), where
    PyAV's FFmpeg and the machine have it.

    python benchmarks/bench_decode.py CLIP [--long-side 160]
"""

from __future__ import annotations

import argparse
import os
import time

import av
from av.codec.hwaccel import HWAccel, hwdevices_available


def decode(path: str, long_side: int, threads: str, hwaccel: HWAccel | None = None) -> tuple[int, float]:
    """(frames, seconds) decoding ``path`` to RGB at ``long_side`` px."""
    start = time.perf_counter()
    with av.open(path, hwaccel=hwaccel) as container:
        stream = container.streams.video[0]
        stream.thread_type = threads
        stream.thread_count = os.cpu_count() if threads != "SLICE" else min(os.cpu_count() or 2, 8)
        scale = long_side / max(stream.codec_context.width, stream.codec_context.height)
        size = (round(stream.codec_context.width * scale) // 2 * 2, round(stream.codec_context.height * scale) // 2 * 2)
        count = 0
        for frame in container.decode(stream):
            frame.reformat(width=size[0], height=size[1], format="rgb24").to_ndarray()
            count += 1
    return count, time.perf_counter() - start


def first_frames(path: str, long_side: int, hwaccel: HWAccel | None, count: int = 50):
    import numpy as np

    with av.open(path, hwaccel=hwaccel) as container:
        stream = container.streams.video[0]
        frames = []
        for frame in container.decode(stream):
            frames.append(frame.reformat(width=long_side, height=long_side * 9 // 16, format="rgb24").to_ndarray())
            if len(frames) == count:
                break
    return np.stack(frames).astype(np.int16)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clip")
    parser.add_argument("--long-side", type=int, default=160)
    args = parser.parse_args()
    ways = {"PyAV, CPU, slice threads": ("SLICE", None), "PyAV, CPU, frame threads": ("AUTO", None)}
    if "cuda" in hwdevices_available():
        ways["PyAV, NVDEC"] = ("SLICE", HWAccel("cuda", allow_software_fallback=False))
    else:
        print("NVDEC: not measured (PyAV's FFmpeg has no CUDA device type)")
    for name, (threads, hwaccel) in ways.items():
        try:
            frames, seconds = min((decode(args.clip, args.long_side, threads, hwaccel) for _ in range(2)),
                                  key=lambda r: r[1])
        except Exception as exc:  # no GPU, a driver without NVDEC
            print(f"{name}: failed ({type(exc).__name__}: {exc})")
            continue
        print(f"{name}: {frames} frames in {seconds:.2f} s, {frames / seconds:.0f} frames/s")
        if hwaccel is not None:
            difference = abs(first_frames(args.clip, args.long_side, hwaccel) - first_frames(args.clip, args.long_side,
                                                                                            None)).mean()
            print(f"{name}: the first 50 frames differ from software decoding by {difference:.3f} levels on average")


if __name__ == "__main__":
    main()
