"""How long ``probe`` takes on a long file, now that it decodes the whole last GOP.

    .venv/bin/python benchmarks/bench_probe.py [--minutes 20] [--runs 5] [--keep DIR]

Makes a 720p 25 fps H.264 clip (tests/videos.make_long_video: x264 ultrafast, a cut and
a keyframe every 10 s, so the last GOP is 250 frames), then probes it ``--runs`` times
with the file in the page cache and prints the median and range, with the part spent
decoding the last GOP, and FFmpeg's own ``ffprobe -count_frames`` (which decodes
everything) once for scale.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import videos  # noqa: E402
from videoreview.media.probe import probe  # noqa: E402

probe_module = importlib.import_module("videoreview.media.probe")  # the package's "probe" is the function


def timed(fn, *args) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=20)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        clip = folder / f"probe_{args.minutes:g}min.mp4"
        if not clip.exists():
            videos.make_long_video(clip, args.minutes * 60, cut_every=10, repeat_after=60)
        tail_seconds = []
        check_tail = probe_module._check_tail

        def timed_tail(*a):
            start = time.perf_counter()
            result = check_tail(*a)
            tail_seconds.append(time.perf_counter() - start)
            return result

        probe_module._check_tail = timed_tail
        probe(clip)  # into the page cache
        tail_seconds.clear()
        runs = [timed(probe, clip) for _ in range(args.runs)]
        info = probe(clip)
        ffprobe = timed(subprocess.run, ["ffprobe", "-v", "quiet", "-count_frames", "-select_streams", "v:0",
                                         "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", str(clip)],
                        capture_output=True)
    print(f"{clip.name}: {info.frame_count} frames, {info.width}x{info.height}, {info.size_bytes / 2**20:.0f} MiB")
    print(f"probe: median {statistics.median(runs):.3f} s (min {min(runs):.3f}, max {max(runs):.3f}) over "
          f"{args.runs} runs, of which decoding the last GOP median {statistics.median(tail_seconds):.3f} s")
    print(f"ffprobe -count_frames (decodes every frame): {ffprobe:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
