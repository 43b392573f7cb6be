"""Faces + identities: speed, memory and clustering quality on a 720p 25 fps clip with real faces.

    .venv/bin/python benchmarks/bench_faces.py [--seconds 60] [--cnn-seconds 10]

Builds a clip from the two real photographs the tests use (tests/faces.py): shots of
one person, of the other, and of both, faces 100-220 px tall, 4 s each, with hard cuts.
Runs the pipeline (boundaries, then faces sampled at 2 fps) in a fresh process per face
engine (blazeface, dlib-hog, dlib-cnn) and prints, for the faces + identities stage alone
(its own decoding pass, after the boundaries): realtime factor (video
seconds per second), peak RSS of the process, descriptors computed vs reused, and
B-cubed precision / recall of the identities over face tracks.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from memory import peak_rss_mb  # noqa: E402  (benchmarks/memory.py)


def make_clip(path: Path, seconds: float):
    from faces import Placement, Shot, make_face_video

    looks = [
        (Placement("grace", 0.5, 0.45, 200),),
        (Placement("eileen", 0.4, 0.5, 160, mirror=True),),
        (Placement("grace", 0.3, 0.5, 120, roll=5), Placement("eileen", 0.72, 0.5, 110)),
        (Placement("eileen", 0.6, 0.45, 220, gain=0.9),),
        (Placement("grace", 0.35, 0.5, 150, mirror=True, gain=1.1),),
    ]
    backgrounds = [(60, 80, 100), (150, 120, 60), (40, 140, 90), (120, 60, 140), (30, 60, 160)]
    shots = [Shot(4.0, looks[k % len(looks)], backgrounds[k % len(backgrounds)]) for k in range(int(seconds // 4))]
    return make_face_video(path, shots, size=(1280, 720))


def worker(path: str, engine: str) -> dict:
    from videoreview.pipeline import StageCache, analyze, build_stages

    marks: dict[str, float] = {}

    def progress(stage: str, fraction: float, message: str) -> None:
        if stage == "faces" and message == "starting":
            marks["start"] = time.perf_counter()

    with tempfile.TemporaryDirectory() as cache_root:
        cache = StageCache(Path(cache_root))
        analyze(path, cache=cache, stages=build_stages({"boundaries": "builtin"}))  # the cuts, cached
        analysis = analyze(path, cache=cache, stages=build_stages({"boundaries": "builtin", "faces": engine}),
                           progress=progress)
        elapsed = time.perf_counter() - marks["start"]  # faces compute + apply (tracks, identities)
        (entry,) = [p for p in cache.entries() if "faces" in p.name]
        stats = json.loads(entry.read_text())["result"]
    return {
        "seconds": elapsed,
        "peak_rss_mb": peak_rss_mb(),
        "duration": analysis.video.duration,
        "embedded": stats["embedded"],
        "reused": stats["reused"],
        "faces": [(f.frame, list(f.box), f.track) for f in analysis.faces],
        "tracks": {t.id: t.identity for t in analysis.face_tracks},
        "identities": len(analysis.identities),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--cnn-seconds", type=float, default=8.0, help="0 skips the CNN detector")
    parser.add_argument("--worker", nargs=2, metavar=("PATH", "ENGINE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(*args.worker)))
        return

    from collections import Counter

    from videoreview.metrics.identities import bcubed

    folder = Path(tempfile.mkdtemp(prefix="bench-faces-"))
    runs = [("blazeface", args.seconds), ("dlib-hog", args.seconds)] + (
        [("dlib-cnn", args.cnn_seconds)] if args.cnn_seconds else [])
    for engine, seconds in runs:
        clip = make_clip(folder / f"faces-{int(seconds)}s-720p25.mp4", seconds)
        out = subprocess.run([sys.executable, __file__, "--worker", str(clip.path), engine],
                             check=True, capture_output=True, text=True)
        result = json.loads(out.stdout.strip().splitlines()[-1])
        votes: dict[int, Counter] = {}
        for frame, box, track in result["faces"]:
            votes.setdefault(track, Counter())[clip.person_at(frame, box)] += 1
        truth = {str(t): c.most_common(1)[0][0] for t, c in votes.items() if c.most_common(1)[0][0]}
        score = bcubed({t: p for t, p in result["tracks"].items()}, truth)
        print(f"{engine}: {seconds:.0f} s clip, faces+identities {result['seconds']:.1f} s = "
              f"{result['duration'] / result['seconds']:.2f}x realtime, peak {result['peak_rss_mb']:.0f} MB, "
              f"{len(result['faces'])} faces in {len(result['tracks'])} tracks, descriptors computed "
              f"{result['embedded']} / reused {result['reused']}, identities {result['identities']} "
              f"(true {score.true}), B-cubed P {score.precision:.3f} R {score.recall:.3f}")


if __name__ == "__main__":
    main()
