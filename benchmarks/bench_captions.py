"""Builtin captions + boundary captions + keyframes: speed on a 720p 25 fps clip at 1 fps sampling.

    .venv/bin/python benchmarks/bench_captions.py CLIP.mp4

Runs the default pipeline without captions, then again with them (the other stages from
the cache), and prints the captions stage's time (its own decoding pass; measuring:
classifier, optical flow; then composing captions, boundary captions and keyframes) as
a realtime factor, with the process's peak RSS. Any clip works; the
boundary benchmark's generated 720p clip (bench_boundaries.py --keep DIR) is the usual one.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from memory import peak_rss_mb  # noqa: E402  (benchmarks/memory.py)


def main() -> None:
    from videoreview.pipeline import StageCache, analyze
    from videoreview.pipeline.stages import DEFAULT_ENGINES

    marks: dict[str, float] = {}

    def progress(stage: str, fraction: float, message: str) -> None:
        if message == "starting":
            marks[stage] = time.perf_counter()

    engines = dict(DEFAULT_ENGINES)
    captions = engines.pop("captions")
    with tempfile.TemporaryDirectory() as root:
        cache = StageCache(Path(root))
        analyze(sys.argv[1], engines, cache=cache)  # the other stages, cached: captions then read alone
        analysis = analyze(sys.argv[1], {**engines, "captions": captions}, cache=cache, progress=progress)
    elapsed = time.perf_counter() - marks["captions"]
    peak = peak_rss_mb()
    print(f"{analysis.video.duration:.0f} s clip: captions stage {elapsed:.1f} s = "
          f"{analysis.video.duration / elapsed:.1f}x realtime, {len(analysis.captions)} captions, "
          f"{sum(b.caption is not None for b in analysis.boundaries)} boundary captions, "
          f"{len(analysis.keyframes)} keyframes; peak RSS {peak:.0f} MB (whole pipeline)")


if __name__ == "__main__":
    main()
