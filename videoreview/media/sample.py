"""The sample clip of the welcome view: drawn and encoded on the spot (numpy, OpenCV and
PyAV), so that a first run needs no download.

Twelve seconds at 640x360, 25 fps, H.264, in three shots: a square slides into a still
scene and stops (an event inside a shot); a hard cut at 4 s to a ball bouncing over a
bar that fills; a one-second dissolve from 8 s to a shape turning on a field. So the
timeline shows a cut, a gradual transition, an event and three shots' captions.
"""

from __future__ import annotations

import os
from fractions import Fraction
from pathlib import Path

import numpy as np

FPS = 25
SIZE = (640, 360)
SECONDS = 12
CUT_AT, DISSOLVE_FROM, DISSOLVE_TO = 4.0, 8.0, 9.0
NAME = "videoreview-sample-v1.mp4"  # a new drawing gets a new name, so an old file is not reused


def _background(seed: int, tint: tuple[int, int, int]) -> np.ndarray:
    import cv2

    w, h = SIZE
    rng = np.random.default_rng(seed)
    noise = rng.integers(0, 255, (h // 16 + 1, w // 16 + 1, 3), dtype=np.uint8)
    img = cv2.GaussianBlur(cv2.resize(noise, (w, h), interpolation=cv2.INTER_CUBIC), (0, 0), 8)
    return (img.astype(np.float32) * 0.3 + np.array(tint, np.float32) * 0.7).astype(np.uint8)


def _slide_in(t: float, bg: np.ndarray) -> np.ndarray:
    import cv2

    w, h = SIZE
    img = bg.copy()
    cv2.rectangle(img, (60, 50), (180, 130), (90, 140, 90), -1)
    side, stop = h // 4, 2.5
    x = int(-side + (w // 2 - side // 2 + side) * min(1.0, max(0.0, (t - 0.5) / (stop - 0.5))))
    cv2.rectangle(img, (x, h // 2 - side // 2), (x + side, h // 2 + side // 2), (255, 140, 0), -1)
    return img


def _bounce(t: float, bg: np.ndarray) -> np.ndarray:
    import cv2

    w, h = SIZE
    img = bg.copy()
    fill = (t - CUT_AT) / (DISSOLVE_TO - CUT_AT)
    cv2.rectangle(img, (40, h - 40), (w - 40, h - 20), (40, 40, 40), -1)
    cv2.rectangle(img, (40, h - 40), (40 + int((w - 80) * fill), h - 20), (60, 200, 90), -1)
    x = int(80 + (w - 160) * ((t - CUT_AT) / 5.0))
    y = int(h - 90 - abs(np.sin(t * np.pi * 1.2)) * (h - 180))
    cv2.circle(img, (x, y), 36, (230, 60, 60), -1)
    return img


def _turn(t: float, bg: np.ndarray) -> np.ndarray:
    import cv2

    w, h = SIZE
    img = bg.copy()
    angle = t * 40.0
    box = cv2.boxPoints(((w / 2, h / 2), (150, 90), angle)).astype(np.int32)
    cv2.fillPoly(img, [box], (250, 220, 60))
    return img


def frames():
    """The clip's RGB frames, in order."""
    backgrounds = (_background(1, (70, 90, 120)), _background(2, (150, 110, 80)), _background(3, (60, 130, 70)))
    for i in range(SECONDS * FPS):
        t = i / FPS
        if t < CUT_AT:
            yield _slide_in(t, backgrounds[0])
        elif t < DISSOLVE_FROM:
            yield _bounce(t, backgrounds[1])
        elif t < DISSOLVE_TO:
            a = (t - DISSOLVE_FROM) / (DISSOLVE_TO - DISSOLVE_FROM)
            mixed = (1 - a) * _bounce(t, backgrounds[1]) + a * _turn(t, backgrounds[2])
            yield mixed.astype(np.uint8)
        else:
            yield _turn(t, backgrounds[2])


def write_sample(folder: Path) -> Path:
    """The sample clip in ``folder``, made once (written to a temporary name, then moved,
    so an interrupted write never leaves a broken clip to reuse)."""
    import av

    path = Path(folder) / NAME
    if path.exists():
        return path
    folder.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial.mp4")
    with av.open(os.fspath(partial), "w") as out:
        stream = out.add_stream("libx264", rate=FPS, options={"crf": "20", "preset": "veryfast"})
        stream.width, stream.height, stream.pix_fmt = *SIZE, "yuv420p"
        stream.codec_context.time_base = Fraction(1, FPS)
        for n, rgb in enumerate(frames()):
            frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(rgb), format="rgb24")
            frame.pts, frame.time_base = n, Fraction(1, FPS)
            out.mux(stream.encode(frame))
        out.mux(stream.encode(None))
    partial.replace(path)
    return path
