"""Decoding a video to the small RGB frames analysis reads (160 px on the long side, as
the boundary stage asks for), frames per second:
  - PyAV on the CPU with slice threads (as media/_pyav.py decodes),
  - PyAV on the CPU with frame threads (every core),
  - PyAV on NVDEC (FFmpeg's CUDA hardware decoder; frames copied back to the CPU, then
    scaled there), where PyAV's FFmpeg and the machine have it,
  - PyAV on NVDEC with the frames left on the GPU: each frame's NV12 planes handed to
    torch through DLPack, turned to RGB and scaled there 64 at a time, only the small
    frames copied back (BT.601 limited range, as swscale converts by default).
Each GPU way also says how far its first 50 frames are from software decoding's.

    python benchmarks/bench_decode.py CLIP [--long-side 160]
"""

from __future__ import annotations

import argparse
import os
import time

import av
import numpy as np
from av.codec.hwaccel import HWAccel, hwdevices_available


def small_size(stream, long_side: int) -> tuple[int, int]:
    """(width, height) with ``long_side`` px on the long side, even."""
    width, height = stream.codec_context.width, stream.codec_context.height
    scale = long_side / max(width, height)
    return round(width * scale) // 2 * 2, round(height * scale) // 2 * 2


def decode(path: str, long_side: int, threads: str, hwaccel: HWAccel | None = None, keep: int = 0):
    """(frames, seconds) decoding ``path`` to RGB at ``long_side`` px; with ``keep``, the
    first ``keep`` frames instead."""
    start = time.perf_counter()
    kept, count = [], 0
    with av.open(path, hwaccel=hwaccel) as container:
        stream = container.streams.video[0]
        stream.thread_type = threads
        stream.thread_count = os.cpu_count() if threads != "SLICE" else min(os.cpu_count() or 2, 8)
        width, height = small_size(stream, long_side)
        for frame in container.decode(stream):
            rgb = frame.reformat(width=width, height=height, format="rgb24").to_ndarray()
            count += 1
            if len(kept) < keep:
                kept.append(rgb)
            elif keep:
                break
    return np.stack(kept).astype(np.int16) if keep else (count, time.perf_counter() - start)


def nv12_to_rgb(luma, chroma, size: tuple[int, int]):
    """NV12 planes (uint8 [B, H, W] and [B, H/2, W] of interleaved U, V) as RGB uint8
    [B, h, w, 3] at ``size`` (w, h), scaled by area averaging, BT.601 limited range."""
    import torch
    import torch.nn.functional as F

    count, height, width = luma.shape
    target = (size[1], size[0])
    y = (F.interpolate(luma[:, None].float(), size=target, mode="area")[:, 0] - 16) * (255 / 219)
    chroma = chroma.reshape(count, height // 2, width // 2, 2).permute(0, 3, 1, 2).float()
    u, v = ((F.interpolate(chroma, size=target, mode="area") - 128) * (255 / 224)).unbind(1)
    rgb = torch.stack([y + 1.402 * v, y - 0.344136 * u - 0.714136 * v, y + 1.772 * u], -1)
    return rgb.round().clamp(0, 255).to(torch.uint8)


def decode_on_gpu(path: str, long_side: int, batch: int = 64, keep: int = 0):
    """As ``decode``, the frames decoded on NVDEC and converted and scaled by torch on the GPU."""
    import torch

    start = time.perf_counter()
    kept, count, planes = [], 0, []
    with av.open(path, hwaccel=HWAccel("cuda", allow_software_fallback=False, is_hw_owned=True)) as container:
        stream = container.streams.video[0]
        width, height = stream.codec_context.width, stream.codec_context.height
        size = small_size(stream, long_side)

        def flush() -> None:
            luma = torch.stack([y for y, _ in planes])[:, :height, :width]
            chroma = torch.stack([uv for _, uv in planes])[:, :height // 2, :width]
            small = nv12_to_rgb(luma, chroma, size).cpu().numpy()
            kept.extend(small[:max(0, keep - len(kept))])
            planes.clear()

        for frame in container.decode(stream):
            # The decoder reuses its surfaces: copy the planes (PyAV hands them over without a stream).
            y, uv = (torch.from_dlpack(plane.__dlpack__(stream=None)).clone() for plane in frame.planes[:2])
            planes.append((y.reshape(y.shape[0], -1), uv.reshape(uv.shape[0], -1)))
            count += 1
            if len(planes) == batch:
                flush()
                if keep and len(kept) >= keep:
                    break
        if planes:
            flush()
    return np.stack(kept).astype(np.int16) if keep else (count, time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clip")
    parser.add_argument("--long-side", type=int, default=160)
    args = parser.parse_args()
    ways = {"PyAV, CPU, slice threads": lambda **kw: decode(args.clip, args.long_side, "SLICE", **kw),
            "PyAV, CPU, frame threads": lambda **kw: decode(args.clip, args.long_side, "AUTO", **kw)}
    if "cuda" in hwdevices_available():
        nvdec = HWAccel("cuda", allow_software_fallback=False)
        ways["PyAV, NVDEC"] = lambda **kw: decode(args.clip, args.long_side, "SLICE", nvdec, **kw)
        ways["PyAV, NVDEC, frames converted and scaled by torch on the GPU"] = \
            lambda **kw: decode_on_gpu(args.clip, args.long_side, **kw)
    else:
        print("NVDEC: not measured (PyAV's FFmpeg has no CUDA device type)")
    software = None
    for name, way in ways.items():
        try:
            frames, seconds = min((way() for _ in range(2)), key=lambda r: r[1])
            print(f"{name}: {frames} frames in {seconds:.2f} s, {frames / seconds:.0f} frames/s")
            first = way(keep=50)
        except Exception as exc:  # no GPU, a driver without NVDEC
            print(f"{name}: failed ({type(exc).__name__}: {exc})")
            continue
        if software is None:
            software = first
        else:
            print(f"{name}: its first 50 frames differ from the first way's by "
                  f"{abs(first - software).mean():.3f} levels on average")


if __name__ == "__main__":
    main()
