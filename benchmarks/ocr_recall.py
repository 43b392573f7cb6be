"""How many of the words on a frame the on-screen text engine reads, by text size and font.

    .venv/bin/python benchmarks/ocr_recall.py

Draws 24 short lines (titles, signs, numbers, names; 96 words) on 1280x720 frames, three
lines a frame, over a flat card, a gradient and a photograph (scikit-image's astronaut,
scaled), in OpenCV's Hershey font and in Noto Sans (Pillow), at cap heights from 8 to 60
pixels, and reads each frame with the engine as the stage does (736 px long side). Prints
word recall (words read exactly, after the WER normaliser) per size and font, and the
time per frame.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

LINES = ["Chapter 3: The Station", "Quarterly results 2026", "Exit on the left", "Platform 9 closed",
         "Interview with Dr Grace Hopper", "Next train 12:04 to Leeds", "Tickets and fares", "Press start to begin",
         "Warning: wet floor", "Meeting room B at 3 pm", "Total revenue 4.2 million", "Open 24 hours",
         "Welcome to Springfield", "Do not enter", "Breaking news tonight", "Season 2 Episode 7",
         "Lot 47 sold for 1200", "Call 0800 555 0199", "Gate 14 boarding now", "Slide 12 of 30",
         "Version 3.1 release notes", "Stop", "Order number 58213", "Thank you for watching"]
CAP_HEIGHTS = (8, 10, 12, 16, 24, 36, 60)


def backgrounds() -> list[np.ndarray]:
    import skimage.data

    flat = np.full((720, 1280, 3), (30, 40, 60), np.uint8)
    gradient = flat.copy()
    gradient[:, :, 1] = np.linspace(20, 200, 1280).astype(np.uint8)
    photo = cv2.resize(skimage.data.astronaut(), (1280, 720), interpolation=cv2.INTER_AREA)
    return [flat, gradient, photo]


def hershey(frame: np.ndarray, text: str, y: int, cap: int) -> None:
    scale = cap / 22  # FONT_HERSHEY_SIMPLEX capitals are about 22 px at scale 1
    thickness = max(1, round(scale * 2))
    cv2.putText(frame, text, (40, y), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), thickness + 2, cv2.LINE_AA)
    cv2.putText(frame, text, (40, y), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), thickness, cv2.LINE_AA)


def noto(frame: np.ndarray, text: str, y: int, cap: int) -> np.ndarray:
    from PIL import Image, ImageDraw, ImageFont

    from videoreview.paths import package_dir
    from videoreview.summary.export.fonts import NOTO_FILE, NOTO_PACKAGE

    path = package_dir(NOTO_PACKAGE) / "files" / NOTO_FILE
    font = ImageFont.truetype(str(path), size=round(cap / 0.714))  # Noto Sans's capitals are 0.714 em high
    image = Image.fromarray(frame)
    ImageDraw.Draw(image).text((40, y - cap), text, font=font, fill=(255, 255, 255), stroke_width=max(1, cap // 12),
                               stroke_fill=(0, 0, 0))
    return np.asarray(image).copy()


def main() -> None:
    from videoreview.engines.screen_text.rapid import RapidTextEngine
    from videoreview.media import scaled_size
    from videoreview.metrics.speech import normalise

    engine = RapidTextEngine()
    size = scaled_size(1280, 720, engine.long_side)
    print(f"word recall, {len(LINES)} lines ({sum(len(normalise(t)) for t in LINES)} words) on 3 backgrounds, "
          f"read at {size[0]}x{size[1]}")
    print(f"{'cap height (px at 720p)':>24} {'Hershey':>8} {'Noto Sans':>10}")
    seconds, frames = 0.0, 0
    for cap in CAP_HEIGHTS:
        recall = {}
        for font in ("hershey", "noto"):
            wanted = found = 0
            for n in range(0, len(LINES), 3):
                for background in backgrounds():
                    frame = background.copy()
                    lines = LINES[n:n + 3]
                    for k, text in enumerate(lines):
                        y = 120 + k * max(3 * cap, 60)
                        if font == "hershey":
                            hershey(frame, text, y, cap)
                        else:
                            frame = noto(frame, text, y, cap)
                    small = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
                    start = time.perf_counter()
                    read = normalise(" ".join(box.text for box in engine.read(small)))
                    seconds, frames = seconds + time.perf_counter() - start, frames + 1
                    for text in lines:
                        words = normalise(text)
                        wanted += len(words)
                        found += sum(1 for w in words if w in read)
            recall[font] = found / wanted
        print(f"{cap:>24} {recall['hershey']:>8.3f} {recall['noto']:>10.3f}")
    print(f"{seconds / frames:.3f} s a frame ({frames} frames)")


if __name__ == "__main__":
    main()
