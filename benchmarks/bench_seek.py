"""Seek latency in the video view: from ``Player.seek_frame(n)`` to ``frameShown`` of frame n.

    .venv/bin/python benchmarks/bench_seek.py [CLIP] [--seeks 40] [--seed 1] [--keep DIR]

Without CLIP it generates 60 s of 1280x720 25 fps H.264 from ffmpeg's testsrc2 (x264
veryfast, B-frames, a keyframe every 10 s and none at scene changes), so a seek into the
middle of a GOP decodes up to 249 frames. The view runs offscreen at 1280x720. Each seek
waits for the previous one to land, then pauses briefly, so no coalescing helps. Prints
median, p90 and max latency against the 150 ms median target, then the time a 0.5 s
scrub (a seek every 5 ms, as when dragging the playhead) takes to settle on its last
target after the last call.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # the checkout's videoreview and test-video makers

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

TARGET_MEDIAN_MS = 150.0
TIMEOUT_MS = 10_000


def make_clip(path: Path) -> None:
    from videos import ffmpeg

    ffmpeg("-f", "lavfi", "-i", "testsrc2=s=1280x720:r=25:d=60", "-c:v", "libx264", "-preset", "veryfast",
           "-crf", "23", "-g", "250", "-keyint_min", "250", "-sc_threshold", "0", "-bf", "3",
           "-pix_fmt", "yuv420p", path)


def wait_for_frame(app, player, frame: int) -> float | None:
    """Seek to ``frame``; seconds until it is shown (None after TIMEOUT_MS)."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    shown: list[float] = []

    def on_frame(index: int, _seconds: float) -> None:
        if index == frame and not shown:
            shown.append(time.perf_counter())
            loop.quit()

    player.frameShown.connect(on_frame)
    QTimer.singleShot(TIMEOUT_MS, loop.quit)
    start = time.perf_counter()
    player.seek_frame(frame)
    if not shown:
        loop.exec()
    player.frameShown.disconnect(on_frame)
    return shown[0] - start if shown else None


def settle(app, seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.002)


def scrub(app, player, targets: list[int]) -> float | None:
    """Seek to each target 5 ms apart; seconds from the last call until the last target shows."""
    for target in targets[:-1]:
        player.seek_frame(target)
        settle(app, 0.005)
    return wait_for_frame(app, player, targets[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("clip", nargs="?", help="a video to seek in (default: generate the 720p clip)")
    parser.add_argument("--seeks", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="write the generated clip here and keep it")
    args = parser.parse_args()

    import random

    from PySide6.QtWidgets import QApplication

    from videoreview.gui.video.video_view import VideoView
    from videoreview.media import probe

    app = QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory() as tmp:
        if args.clip:
            clip = Path(args.clip)
        else:
            clip = (args.keep or Path(tmp)) / "seek_720p.mp4"
            clip.parent.mkdir(parents=True, exist_ok=True)
            if not clip.exists():
                started = time.perf_counter()
                make_clip(clip)
                print(f"generated {clip.name} in {time.perf_counter() - started:.0f} s")
        info = probe(clip)
        print(f"{clip.name}: {info.width}x{info.height} {info.fps:g} fps, {info.frame_count} frames, "
              f"{info.duration:.0f} s, {info.codec}")

        view = VideoView()
        view.resize(1280, 720)
        view.show()
        errors: list[str] = []
        view.player.error.connect(errors.append)
        view.player.open(str(clip), info)
        if wait_for_frame(app, view.player, 0) is None and view.player.current_frame() != 0:
            sys.exit(f"the first frame never showed: {errors or 'no error either'}")

        rng = random.Random(args.seed)
        latencies: list[float] = []
        for frame in rng.sample(range(info.frame_count), args.seeks):
            latency = wait_for_frame(app, view.player, frame)
            if latency is None:
                sys.exit(f"frame {frame} never showed (waited {TIMEOUT_MS} ms): {errors or 'no error'}")
            latencies.append(latency * 1000)
            settle(app, 0.05)

        latencies.sort()
        median = statistics.median(latencies)
        p90 = latencies[min(len(latencies) - 1, round(0.9 * (len(latencies) - 1)))]
        verdict = "met" if median <= TARGET_MEDIAN_MS else "NOT met"
        print(f"seek latency over {len(latencies)} random frames: median {median:.0f} ms, p90 {p90:.0f} ms, "
              f"max {latencies[-1]:.0f} ms; target median <= {TARGET_MEDIAN_MS:.0f} ms {verdict}")

        start = rng.randrange(info.frame_count // 2)
        path = [min(info.frame_count - 1, start + 3 * i) for i in range(100)]  # 0.5 s of dragging
        settle_s = scrub(app, view.player, path)
        shown = "never" if settle_s is None else f"{settle_s * 1000:.0f} ms"
        print(f"scrub of {len(path)} seeks 5 ms apart: last target shown {shown} after the last call")
        view.player.close()


if __name__ == "__main__":
    main()
