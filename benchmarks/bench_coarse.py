"""How soon the window shows a video's whole timeline, coarse (pipeline/coarse.py), and what it costs.

    .venv/bin/python benchmarks/bench_coarse.py [--clip PATH ...] [--keep DIR]

On (a) the corpus's 180 s animation (openboard-wannaworktogether.mp4, fetched by
scripts/fetch-real-clips) and (b) a generated 3-minute 720p H.264 clip with two voices
speaking under it (tests/videos.py make_long_video, bench_pipeline.py with_speech), or on
the ``--clip`` files given, the window's analysis process (``pipeline.child.run_analysis``,
spawned as the window spawns it, with the default engines and an empty stage cache) is
timed from spawn to:
  - its first partial Analysis with a complete timeline: every lane the engines fill
    (shots, faces, objects, people, speech where there is sound, captions) filled to the
    end of the video, at the coarse level or the full one (a stage whose records have
    applied, or a coarse look's lanes, and captions up to the last look);
  - its final Analysis;
and the same process with the coarse look turned off (the analysis as the command line
runs it): its first complete timeline (the last stage's apply) and final Analysis. The
difference of the two final times is what the look costs. Target: a complete timeline
within 30 s of spawn on 2 cores, for a 3-minute video.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "tests")]

from bench_pipeline import fresh_home, with_speech  # noqa: E402

TIMELINE_STAGES = ("boundaries", "faces", "objects", "poses", "speech", "captions")


def plain_child(path: str, conn, cancel_event) -> None:
    """The window's analysis process with the coarse look turned off (it never pays)."""
    from videoreview.pipeline import child, coarse

    coarse.WORTH = math.inf
    child.run_analysis(path, None, None, conn, cancel_event)


def complete(analysis, stages: list[str]) -> bool:
    """Whether every timeline lane of ``analysis`` runs to the end of the video (see above)."""
    from videoreview.media.keyframes import look_gap
    from videoreview.pipeline.coarse import is_coarse

    info = analysis.video
    lanes = [name for name in TIMELINE_STAGES if name in stages and (name != "speech" or info.has_audio)]
    if not all(name in analysis.engines or is_coarse(analysis) for name in lanes):
        return False
    if "speech" in lanes and analysis.speech is None:
        return False
    reach = max((c.time for c in analysis.captions), default=-1.0)
    return "captions" not in lanes or reach >= info.duration - look_gap(info.duration) - 0.5


def timed(path: Path, coarse: bool) -> dict:
    """Seconds from spawn to the first complete timeline and to the final Analysis."""
    import multiprocessing

    from videoreview.pipeline.child import run_analysis
    from videoreview.pipeline.coarse import is_coarse

    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    cancel = context.Event()
    args = (str(path), None, None, send, cancel) if coarse else (str(path), send, cancel)
    start = time.perf_counter()
    child = context.Process(target=run_analysis if coarse else plain_child, args=args)
    child.start()
    send.close()
    out = {"first partial": None, "complete": None, "final": None, "looks": None}
    partials = []  # (seconds, Analysis): judged once the final Analysis says which stages ran
    while True:
        kind, payload = receive.recv()
        now = time.perf_counter() - start
        if kind == "partial":
            out["first partial"] = out["first partial"] or now
            partials.append((now, payload))
        elif kind == "done":
            out["final"] = now
            final = payload
        elif kind in ("failed", "cancelled"):
            raise SystemExit(f"{path}: the analysis {kind}: {payload}")
        if kind in ("done", "failed", "cancelled"):
            break
    child.join()
    stages = list(final.engines)
    first = next(((now, partial) for now, partial in partials if complete(partial, stages)), None)
    out["complete"] = first[0] if first else out["final"]
    if first and is_coarse(first[1]):
        out["looks"] = len(first[1].captions)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clip", type=Path, nargs="*", help="measure these files (default: the two above)")
    parser.add_argument("--keep", type=Path, help="keep the generated clip in this folder")
    args = parser.parse_args()
    clips = args.clip
    if not clips:
        from real_corpus import clips_dir
        from videos import make_long_video

        folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-coarse-"))
        folder.mkdir(parents=True, exist_ok=True)
        generated = folder / "three-minutes-720p-speech.mp4"
        if not generated.exists():
            picture = make_long_video(folder / "three-minutes-720p.mp4", 180.0).path
            with_speech(picture, generated)
        clips = [clips_dir() / "openboard-wannaworktogether.mp4", generated]
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at the start")
    for clip in clips:
        with fresh_home():
            look = timed(clip, coarse=True)
        with fresh_home():
            plain = timed(clip, coarse=False)
        print(f"{clip.name}: spawn to complete coarse timeline {look['complete']:.1f} s ({look['looks']} looks), "
              f"to final {look['final']:.1f} s; without the coarse look: complete timeline {plain['complete']:.1f} s, "
              f"final {plain['final']:.1f} s (the look costs {look['final'] - plain['final']:+.1f} s); "
              f"first partial {look['first partial']:.1f} s; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
