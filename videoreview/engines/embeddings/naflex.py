"""SigLIP 2 NaFlex input geometry, without torch: a frame keeps its aspect ratio and is
cut into at most ``max_patches`` square patches, and the model's square table of
position embeddings is resized to the patch grid.

The model does that resize inside its forward pass, with a size that depends on each
image: an ONNX graph cannot hold it, so the export takes the resized positions as an
input and they are made here, once per grid (a video's frames share one). The resize is
antialiased bilinear as ``F.interpolate(..., antialias=True)`` computes it (the same
triangle filter as Pillow's), written as two small weight matrices.
"""

from __future__ import annotations

import math

import numpy as np


def grid_for(width: int, height: int, patch: int, max_patches: int) -> tuple[int, int]:
    """The patch grid (rows, columns) of a ``width`` x ``height`` frame: the largest scale
    whose patches fit ``max_patches``, each side rounded up to whole patches. The same
    search as transformers' Siglip2ImageProcessor, so frames are cut as in training."""

    def side(scale: float, size: int) -> int:
        return max(1, math.ceil(size * scale / patch))

    low, high = 1e-6, 100.0
    while high - low >= 1e-5:
        scale = (low + high) / 2
        if side(scale, height) * side(scale, width) <= max_patches:
            low = scale
        else:
            high = scale
    return side(low, height), side(low, width)


def patches(pixels: np.ndarray, patch: int) -> np.ndarray:
    """Normalised frames (N, H, W, C) as rows of patches (N, H/p * W/p, p * p * C), in the
    processor's order: patch rows, then patch columns; inside one, pixel rows, columns, channels."""
    n, h, w, c = pixels.shape
    grid = pixels.reshape(n, h // patch, patch, w // patch, patch, c).transpose(0, 1, 3, 2, 4, 5)
    return np.ascontiguousarray(grid.reshape(n, (h // patch) * (w // patch), patch * patch * c))


def resized_positions(table: np.ndarray, rows: int, columns: int) -> np.ndarray:
    """The (side, side, dim) position table resized to (rows * columns, dim)."""
    down = _weights(rows, table.shape[0])
    across = _weights(columns, table.shape[1])
    resized = np.einsum("rh,hwd,cw->rcd", down, table.astype(np.float64), across)
    return resized.reshape(rows * columns, -1).astype(np.float32)


def _weights(out_size: int, in_size: int) -> np.ndarray:
    """(out, in) weights of antialiased bilinear resampling (align_corners False): a
    triangle filter widened by the scale when shrinking, each row summing to one."""
    scale = in_size / out_size
    support = scale if scale >= 1 else 1.0
    stretch = 1 / scale if scale >= 1 else 1.0
    weights = np.zeros((out_size, in_size))
    for i in range(out_size):
        centre = scale * (i + 0.5)
        first = max(int(centre - support + 0.5), 0)
        last = min(int(centre + support + 0.5), in_size)
        taps = np.arange(first, last)
        row = np.clip(1 - np.abs((taps - centre + 0.5) * stretch), 0, None)
        weights[i, first:last] = row / row.sum()
    return weights
