"""Contact sheets of a clip, for writing its truth by hand (benchmarks/corpus/truth.toml).

    .venv/bin/python benchmarks/contact_sheet.py CLIP ... --out DIR

For each clip, two PNGs in DIR:
- ``NAME.png``: 16 frames evenly across the clip, each with its time;
- ``NAME-cuts-N.png``: for every candidate cut (a frame much unlike the one before, by the
  mean difference of small grey frames against its neighbourhood's), the frame before and
  the frame after, with the time and the jump. A person looks at each pair and writes the
  true cuts; the candidates only say where to look.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SMALL = 64  # width of the frames the candidates are found on
SHOWN = 256  # width of the frames shown
JUMP = 4.0  # a frame this many times its neighbourhood's median difference (and >= FLOOR) is a candidate
FLOOR = 8.0  # on 0..255 grey levels
PAIRS = 20  # candidate cuts a page


def frames(path: Path, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Every frame of ``path`` at ``width`` px wide, decoded as the app decodes, and their times."""
    from videoreview.media import open_video

    with open_video(path) as source:
        height = max(2, round(source.info.height * width / source.info.width / 2) * 2)
        batches = list(source.iter_batches(size=(width, height)))
    return np.concatenate([b.frames for b in batches]), np.concatenate([b.times for b in batches])


def candidates(small: np.ndarray) -> list[tuple[int, float]]:
    """(frame index, jump) of the frames much unlike the frame before."""
    grey = small.astype(np.float32).mean(axis=3)
    diff = np.abs(np.diff(grey, axis=0)).mean(axis=(1, 2))
    out = []
    for i, d in enumerate(diff):
        around = np.concatenate([diff[max(0, i - 12):i], diff[i + 1:i + 13]])
        base = float(np.median(around)) if len(around) else 0.0
        if d >= FLOOR and d >= JUMP * max(base, 0.5):
            out.append((i + 1, float(d)))
    return out


def label(image: Image.Image, text: str) -> Image.Image:
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, 0, 7 * len(text) + 6, 14], fill=(0, 0, 0))
    draw.text((3, 1), text, fill=(255, 255, 0))
    return image


def grid(tiles: list[Image.Image], columns: int) -> Image.Image:
    w, h = tiles[0].size
    rows = (len(tiles) + columns - 1) // columns
    sheet = Image.new("RGB", (columns * w, rows * h), (40, 40, 40))
    for n, tile in enumerate(tiles):
        sheet.paste(tile, ((n % columns) * w, (n // columns) * h))
    return sheet


def sheets(path: Path, out: Path) -> None:
    shown, times = frames(path, SHOWN)
    small = np.stack([np.asarray(Image.fromarray(f).resize((SMALL, max(2, SMALL * f.shape[0] // f.shape[1]))))
                      for f in shown])
    n = len(shown)
    picks = np.linspace(0, n - 1, min(16, n)).round().astype(int)
    tiles = [label(Image.fromarray(shown[i]), f"{times[i]:.2f} s") for i in picks]
    grid(tiles, 4).save(out / f"{path.stem}.png")
    found = candidates(small)
    print(f"{path.name}: {n} frames, {times[-1]:.1f} s, {len(found)} candidate cuts")
    for page in range(0, len(found), PAIRS):
        pairs = []
        for i, jump in found[page:page + PAIRS]:
            pairs += [label(Image.fromarray(shown[i - 1]), f"{times[i - 1]:.2f}"),
                      label(Image.fromarray(shown[i]), f"{times[i]:.2f} s j{jump:.0f}")]
        grid(pairs, 4).save(out / f"{path.stem}-cuts-{page // PAIRS + 1}.png")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clips", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for path in args.clips:
        sheets(path, args.out)


if __name__ == "__main__":
    main()
