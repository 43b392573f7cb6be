"""How long the window's analysis process takes for a video whose stages are all in the
cache (reopening a video, or the library re-checking one): it starts, makes the engines,
finds every stage's result cached and sends the Analysis back.

    .venv/bin/python benchmarks/bench_cached_analysis.py [--runs 5]

Makes the test suite's cuts clip (9.6 s, 320x180), analyses it once to fill the cache in
a temporary VIDEOREVIEW_HOME, then runs ``pipeline.child.run_analysis`` in a spawned
process ``--runs`` times as the window does, and prints the median time to the first
message (imports and engines made), to the result, and to the process's exit.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def one_run(path: str) -> tuple[float, float, float]:
    from videoreview.pipeline.child import run_analysis

    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    cancel = context.Event()  # kept referenced until the child has it
    start = time.perf_counter()
    child = context.Process(target=run_analysis, args=(path, None, None, send, cancel))
    child.start()
    send.close()
    first = done = None
    while done is None:
        kind, _payload = receive.recv()
        first = first or time.perf_counter() - start
        if kind in ("done", "failed", "cancelled"):
            if kind != "done":
                raise SystemExit(f"the analysis {kind}")
            done = time.perf_counter() - start
    child.join()
    return first, done, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    os.environ["VIDEOREVIEW_HOME"] = tempfile.mkdtemp(prefix="bench-cached-")
    import videos

    clip = videos.make_cuts_video(Path(tempfile.mkdtemp(prefix="bench-cached-clip-")))
    one_run(str(clip.path))  # fills the cache
    runs = [one_run(str(clip.path)) for _ in range(args.runs)]
    for label, values in zip(("first message", "result", "process exit"), zip(*runs)):
        print(f"{label:>14}: median {statistics.median(values):.2f} s "
              f"(range {min(values):.2f}-{max(values):.2f} s, {args.runs} runs)")


if __name__ == "__main__":
    main()
