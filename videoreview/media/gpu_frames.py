"""Frames decoded on NVDEC turned into small RGB frames on the GPU, many at a time.

Where the analysis runs on CUDA, PyAV decodes on NVDEC and leaves each frame on the GPU
(``HWAccel(is_hw_owned=True)``); its two NV12 planes go to torch through DLPack, and a
group of frames is converted to RGB and scaled there to every size a stage wants, so only
the small frames cross to the CPU. Measured on an H200 machine (16 slow cores), a 150 s
720p H.264 clip to 160x90 RGB: 950 frames/s this way, against 171 (slice threads) and 261
(frame threads) for PyAV decoding and scaling on its CPU, and 179 for NVDEC with each
frame copied back and scaled on the CPU (benchmarks/bench_decode.py).

The conversion is swscale's, as PyAV's ``reformat`` does it by default: BT.709 for frames
tagged so, else BT.601; full range for JPEG-range frames, else limited. Scaling is
bicubic with antialiasing, as swscale's bicubic filter widens when it shrinks. At full size
the frames differ from software decoding's by under a level on average; scaled down, the
filters differ at sharp edges: 3-5 levels on average on generated test pictures
(tests/test_gpu_frames.py), which neither TransNetV2 nor the features notice.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

GROUP = 64  # frames converted together


def hardware_planes(frame):
    """The luma and interleaved-chroma planes of an NVDEC frame as torch uint8 tensors
    [H, pitch] and [H/2, pitch], copied (the decoder reuses its surfaces)."""
    import torch

    # PyAV lends the planes without a CUDA stream to order them by: ask for none.
    planes = (torch.from_dlpack(plane.__dlpack__(stream=None)).clone() for plane in frame.planes[:2])
    return tuple(plane.reshape(plane.shape[0], -1) for plane in planes)


def software_planes(frame, device: str = "cpu"):
    """The same planes from a frame decoded in software (yuv420p or yuvj420p): what NVDEC
    gives for the frame, for the tests and for a frame NVDEC left to FFmpeg's decoder."""
    import torch

    y, u, v = (np.frombuffer(plane, np.uint8).reshape(plane.height, plane.line_size)[:, :plane.width]
               for plane in frame.planes[:3])
    chroma = np.stack([u, v], -1).reshape(u.shape[0], -1)
    return torch.from_numpy(y.copy()).to(device), torch.from_numpy(chroma).to(device)


def stacked_planes(frames, device: str = "cuda"):
    """The NV12 planes of ``frames`` stacked: uint8 [B, H, pitch] and [B, H/2, pitch] on
    ``device``. NVDEC's frames lend theirs; a frame FFmpeg decoded in software (a codec
    NVDEC does not have) is converted."""
    import torch
    import torch.nn.functional as F

    planes = [hardware_planes(f) if f.format.name == "cuda" else software_planes(f, device) for f in frames]
    pitch = max(luma.shape[1] for luma, _ in planes)
    return (torch.stack([F.pad(y, (0, pitch - y.shape[1])) for y, _ in planes]),
            torch.stack([F.pad(uv, (0, pitch - uv.shape[1])) for _, uv in planes]))


PIXELS = GROUP * 1280 * 720  # converted at once: about 350 MB as float32 with the chroma (4K frames go 7 at a time)


def to_rgb(luma, chroma, width: int, height: int, sizes: Sequence[tuple[int, int]], full_range: bool,
           bt709: bool, rotation: int = 0) -> dict[tuple[int, int], np.ndarray]:
    """NV12 planes of a group of frames (uint8 [B, H, >=W] and [B, H/2, >=W]) as RGB uint8
    [B, h, w, 3] at each display ``size`` (w, h), turned by ``rotation`` degrees clockwise;
    at most PIXELS at a time, so that a group of large frames needs no more GPU memory."""
    step = max(1, PIXELS // (width * height))
    parts = [_to_rgb(luma[k:k + step], chroma[k:k + step], width, height, sizes, full_range, bt709, rotation)
             for k in range(0, luma.shape[0], step)]
    return {size: np.concatenate([part[size] for part in parts]) for size in parts[0]}


def _to_rgb(luma, chroma, width: int, height: int, sizes: Sequence[tuple[int, int]], full_range: bool,
            bt709: bool, rotation: int) -> dict[tuple[int, int], np.ndarray]:
    import torch
    import torch.nn.functional as F

    count = luma.shape[0]
    half_w, half_h = (width + 1) // 2, (height + 1) // 2  # chroma's size, odd sides rounded up
    y = luma[:, :height, :width].float()[:, None]
    uv = chroma[:, :half_h, :2 * half_w].reshape(count, half_h, half_w, 2).permute(0, 3, 1, 2).float()
    kr, kb = (0.2126, 0.0722) if bt709 else (0.299, 0.114)
    kg = 1 - kr - kb
    out = {}
    for size in sizes:
        w, h = (size[1], size[0]) if rotation in (90, 270) else size  # scale the stored frame, then turn it
        sy = F.interpolate(y, size=(h, w), mode="bicubic", antialias=True, align_corners=False)[:, 0]
        # Chroma: spread over its pixels when enlarged (as swscale does), else bilinear: the
        # closest to swscale's output of the filters torch has (tests/test_gpu_frames.py).
        if w >= half_w:
            scaled_uv = F.interpolate(uv, size=(h, w), mode="area")
        else:
            scaled_uv = F.interpolate(uv, size=(h, w), mode="bilinear", antialias=True, align_corners=False)
        u, v = (scaled_uv - 128).unbind(1)
        if not full_range:
            sy, u, v = (sy - 16) * (255 / 219), u * (255 / 224), v * (255 / 224)
        rgb = torch.stack([sy + 2 * (1 - kr) * v,
                           sy - (2 * kb * (1 - kb) / kg) * u - (2 * kr * (1 - kr) / kg) * v,
                           sy + 2 * (1 - kb) * u], -1)
        rgb = rgb.round().clamp(0, 255).to(torch.uint8)
        if rotation:
            rgb = torch.rot90(rgb, k=-(rotation // 90), dims=(1, 2))
        out[tuple(size)] = rgb.cpu().numpy()
    return out


def colour(frame) -> tuple[bool, bool]:
    """(full range, BT.709) of a decoded frame, as swscale reads them."""
    return frame.color_range == 2 or frame.format.name.startswith("yuvj"), frame.colorspace == 1
