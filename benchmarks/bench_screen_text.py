"""On-screen text stage speed, and the whole default pipeline with and without the two new
stages (speech, on-screen text).

    .venv/bin/python benchmarks/bench_screen_text.py [--seconds 60] [--runs 3]

Makes a 1280x720 25 fps clip of ``--seconds``: a title or lower third that changes every
3 s over a slowly moving picture, with espeak-ng speech under it. Then, each in a fresh
process (``videoreview analyze --no-cache``), ``--runs`` times in turn: the on-screen
text stage alone, the default pipeline with speech and text switched off (what it was
before them), and the whole default pipeline. Prints median wall times and realtime
factors (seconds of video per second of work), then how many samples the stage read and
how many titles it found with the right text within a sample (0.5 s) of when they show.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

TITLES = ["Chapter 1: Arrival", "Platform 9 closed", "Quarterly results 2026", "Exit on the left",
          "Interview: Dr Grace Hopper", "Next train 12:04", "Chapter 2: The Journey", "Tickets and fares"]


def make_clip(folder: Path, seconds: float) -> Path:
    import cv2
    import numpy as np

    from bench_speech import make_clip as speech_under
    from speech import mux
    from videos import encode_frames

    fps, (w, h) = 25, (1280, 720)
    gradient = np.linspace(40, 120, w).astype(np.uint8)

    def frames():
        for k in range(int(seconds * fps)):
            frame = np.empty((h, w, 3), np.uint8)
            frame[:] = (30, 60, 90)
            frame[:, :, 1] = np.roll(gradient, k)  # the picture drifts slowly
            cv2.circle(frame, (200 + (2 * k) % 800, 400), 60, (220, 150, 60), -1)
            title = TITLES[int(k / fps // 3) % len(TITLES)]
            lower = k / fps % 6 >= 3  # every other title is a lower third
            y = h - 90 if lower else h // 3
            scale = 1.2 if lower else 2.0
            cv2.putText(frame, title, (90, y), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), int(scale * 2),
                        cv2.LINE_AA)
            yield frame

    picture = folder / "titles.mp4"
    encode_frames(picture, frames(), fps)
    spoken, _text = speech_under(Path(tempfile.mkdtemp(prefix="bench-text-speech-")), seconds)
    sound = folder / "sound.m4a"
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", str(spoken), "-vn", "-c:a", "copy", str(sound)],
                   check=True)
    return mux(picture, sound, folder / "titles-speech.mp4", "-c:a", "copy")


def timed(clip: Path, engines: list[str]) -> float:
    args = [sys.executable, "-m", "videoreview", "analyze", str(clip), "-o", "-", "-q", "--no-cache"]
    for e in engines:
        args += ["--engines", e]
    start = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.environ["VIDEOREVIEW_HOME"] = tempfile.mkdtemp(prefix="bench-text-")
    clip = make_clip(Path(tempfile.mkdtemp(prefix="bench-text-clip-")), args.seconds)
    variants = {
        "on-screen text stage alone": ["boundaries=none,faces=none,speech=none,captions=none"],
        "default pipeline without speech and text": ["speech=none,screen-text=none"],
        "default pipeline with speech and text": [],
    }
    timed(clip, variants["on-screen text stage alone"])  # warm the disk cache and the model files
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.runs):
        for name, engines in variants.items():
            times[name].append(timed(clip, engines))
    print(f"{args.seconds:.0f} s, 1280x720, 25 fps, a new title every 3 s, speech under it; whole processes, "
          f"median of {args.runs}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:42} {median:6.2f} s  {args.seconds / median:5.2f}x realtime")
    check(clip, args.seconds)


def check(clip: Path, seconds: float) -> None:
    from videoreview.engines.screen_text.rapid import RapidTextEngine
    from videoreview.media import open_video
    from videoreview.pipeline.cancel import CancelToken
    from videoreview.pipeline.stages.screen_text import ScreenTextStage, merge_spans

    with open_video(clip) as source:
        result = ScreenTextStage(RapidTextEngine()).compute(source, lambda f, m="": None, CancelToken())
    spans = merge_spans(result.samples)
    shown = [(TITLES[k % len(TITLES)], 3.0 * k, 3.0 * (k + 1)) for k in range(int(seconds // 3))]
    right = sum(any(s.text == text and abs(s.start - start) <= 0.5 and abs(s.end - end) <= 0.5 for s in spans)
                for text, start, end in shown)
    print(f"{result['read']} of {len(result['samples'])} samples read; {right} of {len(shown)} titles found "
          f"with their text and times; {len(spans)} spans")


if __name__ == "__main__":
    main()
