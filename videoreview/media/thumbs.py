"""Still frames for the GUI and reports."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..records import write_atomic
from .source import open_video


def thumbnail(path: str | os.PathLike, time: float, width: int = 320) -> np.ndarray:
    """RGB frame shown at ``time`` seconds, ``width`` pixels wide, aspect ratio kept."""
    width = int(width)
    if width <= 0:
        raise ValueError(f"width must be positive, not {width}")
    # One frame: PyAV seeks straight to it; decord would first index the whole file.
    with open_video(path, backend="pyav") as src:
        info = src.info
        height = max(1, round(width * info.height / info.width))
        return src.frames_at_times([time], size=(width, height)).frames[0]


def save_thumbnail(path: str | os.PathLike, time: float, out_path: str | os.PathLike, width: int = 320) -> None:
    """Write the thumbnail as JPEG (.jpg/.jpeg) or PNG (.png), atomically."""
    import cv2

    out = Path(out_path)
    ext = out.suffix.lower()
    if ext in (".jpg", ".jpeg"):
        params = [cv2.IMWRITE_JPEG_QUALITY, 90]
    elif ext == ".png":
        params = [cv2.IMWRITE_PNG_COMPRESSION, 3]
    else:
        raise ValueError(f"thumbnail must be .jpg, .jpeg or .png, not {out.name!r}")
    rgb = thumbnail(path, time, width)
    ok, data = cv2.imencode(ext, np.ascontiguousarray(rgb[..., ::-1]), params)  # OpenCV wants BGR
    if not ok:
        raise ValueError(f"could not encode {out.name}")
    write_atomic(out, data.tobytes())
