"""Models loaded in the background while the first frames decode (pipeline/warm.py): where each
model's first load falls, in which thread, and how long the frame pass's thread spends in the
loaders (loading, or waiting for the background load), with the background load and without.

    .venv/bin/python benchmarks/bench_warm.py CLIP [--runs 3]

Each run is a fresh process (nothing loaded, as for ``videoreview analyze``) running the
default stages with no cache, alternately without (off) and with (on) the background load.
The loaders are timed from outside (wrapped for the run); a loader call under 3 ms is a
model already loaded and is not listed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

CHILD = r"""
import functools, json, sys, threading, time
from videoreview.engines import builtin_onnx
from videoreview.engines.boundaries import builtin as boundaries
from videoreview.engines.faces import dlib_faces
from videoreview.engines.speech import whisper
from videoreview.engines.screen_text import ppocr
from videoreview.pipeline import runner
from videoreview.pipeline.cache import StageCache
from videoreview.pipeline.stages import DEFAULT_ENGINES, build_stages
from videoreview.pipeline.warm import Warming

loads = []
def timed(owner, attr, label):
    real = getattr(owner, attr)
    @functools.wraps(real)
    def wrapper(*args, **kwargs):
        begun = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            took = time.perf_counter() - begun
            if took > 0.003:
                loads.append([label(args) if callable(label) else label, threading.current_thread().name,
                              begun - start, took])
    setattr(owner, attr, wrapper)

timed(builtin_onnx.BuiltinOnnx, "_load", lambda args: args[0].name)
timed(boundaries.BuiltinBoundaryEngine, "_models", "lite0")
timed(dlib_faces.DlibFaceEngine, "_load", "faces")
timed(whisper.WhisperEngine, "_load", "whisper")
timed(ppocr, "_session", lambda args: "ppocr " + args[0].stem)
if sys.argv[2] == "off":
    runner.load_in_background = lambda stages: Warming([])
stages = build_stages(DEFAULT_ENGINES)
start = time.perf_counter()
runner.analyze(sys.argv[1], stages=stages, cache=StageCache(), use_cache=False)
print(json.dumps({"seconds": time.perf_counter() - start, "loads": loads}))
"""


def run(clip: str, mode: str) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, clip, mode], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clip")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    waited: dict[str, list[float]] = {"off": [], "on": []}
    took: dict[str, list[float]] = {"off": [], "on": []}
    for n in range(args.runs):
        for mode in ("off", "on"):
            result = run(args.clip, mode)
            main_thread = sum(d for _, thread, _, d in result["loads"] if thread == "MainThread")
            waited[mode].append(main_thread)
            took[mode].append(result["seconds"])
            print(f"run {n + 1} {mode:3s}: analysis {result['seconds']:.2f} s, the pass's thread in loaders "
                  f"{main_thread:.2f} s")
            for label, thread, at, d in result["loads"]:
                print(f"    {label:28s} at {at:6.2f} s  {d:5.3f} s  [{thread}]")
    for mode in ("off", "on"):
        print(f"{mode:3s}: analysis median {statistics.median(took[mode]):.2f} s, the pass's thread in loaders "
              f"median {statistics.median(waited[mode]):.2f} s")


if __name__ == "__main__":
    main()
