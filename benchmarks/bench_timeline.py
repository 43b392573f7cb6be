"""Timeline paint time with a heavy analysis: 10,000 captions, 2,000 boundaries, 6 identities.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_timeline.py [--repeats N]

Shows the Timeline offscreen at 1600x300 with a synthetic two-hour analysis and repaints
it N times at full zoom-out, at a medium zoom (about ten minutes in view) and zoomed in to
single frames, around the middle of the video. Prints the median and maximum of the widget's own paint time
(``last_paint_ms``) and of the wall time around ``repaint()``, and whether the 8 ms target
is met.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

TARGET_MS = 8.0
DURATION = 7200.0
FPS = 25.0


def synthetic_analysis():
    from videoreview.records import (
        Analysis,
        Appearance,
        Boundary,
        BoundaryCaption,
        FrameCaption,
        Identity,
        Keyframe,
        VideoInfo,
    )

    rng = random.Random(1)
    frames = int(DURATION * FPS)
    video = VideoInfo(path="/bench/two-hours.mp4", duration=DURATION, fps=FPS, frame_count=frames,
                      width=1280, height=720)
    caption_frames = sorted(rng.sample(range(frames), 10_000))
    captions = [FrameCaption(f / FPS, f, f"Caption {k}: someone does something in the scene", "builtin",
                             edited=rng.random() < 0.02) for k, f in enumerate(caption_frames)]
    boundaries = []
    for f in sorted(rng.sample(range(frames), 2_000)):
        kind = rng.choice(("cut", "gradual", "event"))
        caption = BoundaryCaption("person", "standing", "sitting") if kind == "event" and rng.random() < 0.5 else None
        boundaries.append(Boundary(f / FPS, f, kind, rng.random(), caption, edited=rng.random() < 0.02))
    identities = []
    for k in range(1, 7):
        spans, t = [], rng.uniform(0, 60)
        while t < DURATION:
            length = rng.uniform(2, 40)
            spans.append(Appearance(t, min(DURATION, t + length)))
            t += length + rng.uniform(5, 120)
        identities.append(Identity(f"P{k}", None, tuple(spans)))
    keyframes = [Keyframe(b.time, b.frame) for b in boundaries[::4]]
    return Analysis(video=video, content_hash="bench", boundaries=tuple(boundaries), captions=tuple(captions),
                    identities=tuple(identities), keyframes=tuple(keyframes))


def measure(app, widget, repeats: int) -> tuple[list[float], list[float]]:
    """Paint times (the widget's own) and wall times around repaint(), in ms."""
    paint, wall = [], []
    for _ in range(repeats):
        started = time.perf_counter()
        widget.repaint()
        wall.append((time.perf_counter() - started) * 1000)
        paint.append(widget.last_paint_ms)
        app.processEvents()
    return paint, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args()

    from PySide6.QtWidgets import QApplication

    from videoreview.gui.timeline import MAX_PX_PER_FRAME, Timeline

    app = QApplication([])
    analysis = synthetic_analysis()
    widget = Timeline()
    widget.resize(1600, 300)
    widget.show()
    app.processEvents()  # exposed: repaint() paints from here on
    started = time.perf_counter()
    widget.set_analysis(analysis)
    print(f"set_analysis: {(time.perf_counter() - started) * 1000:.1f} ms "
          f"({len(analysis.captions)} captions, {len(analysis.boundaries)} boundaries, "
          f"{len(analysis.identities)} identities, {len(analysis.keyframes)} keyframes, {DURATION / 3600:.0f} h)")
    widget.set_position(DURATION / 2)  # zoom_in() zooms around the playhead
    views = {"full zoom-out": 0, "medium zoom": 6, "single frames": 40}  # zoom_in() steps of 1.5x
    worst = 0.0
    for name, steps in views.items():
        widget.zoom_to_fit()
        for _ in range(steps):
            widget.zoom_in()
        measure(app, widget, 5)  # warm up (fonts, glyph cache)
        paint, wall = measure(app, widget, args.repeats)
        worst = max(worst, statistics.median(paint))
        view = widget.visible_range()
        print(f"{name:24s} {widget.pixels_per_second():9.2f} px/s ({widget.pixels_per_second() / FPS:5.2f} px/frame, "
              f"{view[1] - view[0]:7.1f} s in view): paint median {statistics.median(paint):5.2f} ms, "
              f"max {max(paint):5.2f} ms; repaint() wall median {statistics.median(wall):5.2f} ms, "
              f"max {max(wall):5.2f} ms")
    assert widget.pixels_per_second() == FPS * MAX_PX_PER_FRAME
    # Playback: the playhead steps one frame at a time and only its strips are repainted.
    widget.zoom_to_fit()
    for _ in range(views["medium zoom"]):
        widget.zoom_in()
    steps = []
    for k in range(args.repeats):
        widget.set_position(DURATION / 2 + k / FPS)
        app.processEvents()
        steps.append(widget.last_paint_ms)
    print(f"{'playhead, one frame on':24s} (medium zoom): paint median {statistics.median(steps):5.2f} ms, "
          f"max {max(steps):5.2f} ms")
    verdict = "met" if worst < TARGET_MS else "NOT met"
    print(f"target {TARGET_MS:.0f} ms per paint: {verdict} (worst median {worst:.2f} ms)")


if __name__ == "__main__":
    main()
