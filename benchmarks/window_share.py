"""The picture's share of the window in each layout at the common screen sizes, on the first
run, measured by screenshot mode (each in a fresh process with no settings; the clip's
saved Analysis is reused after the first).

    .venv/bin/python benchmarks/window_share.py [CLIP] [--out DIR] [--at SECONDS]

CLIP defaults to the real-footage corpus's labelstudio_opossum_snow.mp4 (1280x720; its
timeline has thumbnails, notes, shots, captions, speech, on-screen text, objects and
people). Prints one row per window size: the picture's size and share in Review, Library
and Summaries. The issue's target: Review at 1366x768 >= 40 %.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from real_corpus import clips_dir  # noqa: E402

SIZES = ("1366x768", "1440x900", "1920x1080")
LAYOUTS = ("review", "library", "summaries")
SHARE = re.compile(r"picture (\d+x\d+), (\d+)% of the window")


def shot(clip: Path, out: Path, size: str, layout: str, at: float, home: Path) -> str:
    (home / "settings.ini").unlink(missing_ok=True)  # the first run's layout
    env = dict(os.environ, VIDEOREVIEW_HOME=str(home), QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, "-m", "videoreview", "gui", str(clip), "--screenshot", str(out),
                           "--size", size, "--layout", layout, "--at", str(at)],
                          env=env, capture_output=True, text=True, timeout=900)
    found = SHARE.search(done.stderr)
    if done.returncode or not found:
        raise SystemExit(f"{clip}: screenshot at {size} in {layout} failed:\n{done.stderr[-1500:]}")
    return f"{found[1]}, {found[2]} %"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("clip", nargs="?", type=Path, default=clips_dir() / "labelstudio_opossum_snow.mp4")
    parser.add_argument("--out", type=Path, default=None, help="keep the screenshots here")
    parser.add_argument("--at", type=float, default=20.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch)
        out.mkdir(parents=True, exist_ok=True)
        home = Path(scratch) / "home"
        home.mkdir()
        print(f"{args.clip.name}: the picture's size and share of the window, first run")
        print("| window | " + " | ".join(name.capitalize() for name in LAYOUTS) + " |")
        print("| --- |" + " --- |" * len(LAYOUTS))
        for size in SIZES:
            cells = [shot(args.clip, out / f"{layout}-{size}.png", size, layout, args.at, home) for layout in LAYOUTS]
            print(f"| {size} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
