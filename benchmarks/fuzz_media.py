"""Fuzz the whole analysis with damaged copies of real clips (tests/fuzz.py).

    .venv/bin/python benchmarks/fuzz_media.py [--count 300] [--seed 0] [--timeout 60] [--keep DIR]

Makes three clips (H.264 MP4, VP9 WebM, MJPEG AVI), then ``--count`` variants of them with
random bits flipped and/or cut at a random offset, and analyses each with the default
engines in a watched child process. Prints how many analysed, were refused with one line,
or failed (a traceback, a crash of the process, or no answer within ``--timeout`` seconds),
the time per variant, and each failure with how to make it again. Exit status 1 on any failure.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import fuzz  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds one variant may take")
    parser.add_argument("--keep", type=Path, help="make the files here and leave them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = args.keep or Path(scratch)
        variants = fuzz.make_variants(fuzz.make_bases(root / "bases"), root / "variants", args.count, args.seed)
        start = time.monotonic()
        outcomes, problems = fuzz.run(variants, root / "home", args.timeout)
        elapsed = time.monotonic() - start
    counts = fuzz.tally(outcomes)
    seconds = [o.seconds for o in outcomes]
    print(f"{len(outcomes)} variants (seed {args.seed}) in {elapsed:.0f} s")
    for status in ("ok", "refused", *fuzz.FAILURES):
        print(f"  {status:9} {counts.get(status, 0):4}")
    slowest = max(range(len(outcomes)), key=lambda k: seconds[k])
    print(f"  per variant: median {statistics.median(seconds):.2f} s, max {seconds[slowest]:.2f} s "
          f"(bound {args.timeout:.0f} s; the slowest: {variants[slowest].recipe}, {outcomes[slowest].status})")
    for line in problems:
        print(f"FAILURE {line}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
