"""Event boundaries (Kinetic-GEB+: changes without a cut) on generated clips.

    .venv/bin/python benchmarks/event_f1.py

Four 10 s fixed-camera clips (tests/videos.py make_event_video) in which a square slides
in, stops, then changes colour and starts bouncing, at different times; the builtin
boundary engine alone, no cache. Prints each clip's event precision and recall at 0.5 s
and the event times found. Run it from another checkout (PYTHONPATH=THAT_CHECKOUT) to
compare versions on the same clips.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT / "tests"))  # the test-video makers; videoreview as installed or on PYTHONPATH

TIMINGS = [(2.0, 3.5, 6.0), (1.5, 4.0, 7.0), (3.0, 5.0, 8.0), (2.5, 4.5, 6.5)]  # enter, stop, change


def main() -> None:
    import videoreview
    from videoreview.metrics.boundaries import f1_at
    from videoreview.pipeline import StageCache, analyze
    from videos import make_event_video

    print(f"videoreview from {Path(videoreview.__file__).parent}")
    folder = Path(tempfile.mkdtemp(prefix="bench-events-"))
    for k, (enter, stop, change) in enumerate(TIMINGS):
        clip = make_event_video(folder, enter=enter, stop=stop, change=change, seconds=10.0, name=f"events{k}.mp4")
        analysis = analyze(clip.path, {"boundaries": "builtin"}, cache=StageCache(folder / "cache"), use_cache=False)
        found = [b.time for b in analysis.boundaries if b.kind == "event"]
        score = f1_at(found, [clip.events[name] for name in ("enter", "stop", "change")], 0.5)
        print(f"clip {k} (enter {enter}, stop {stop}, change {change} s): P {score.precision:.3f} "
              f"R {score.recall:.3f} F1 {score.f1:.3f}; events at {[round(t, 2) for t in found]}")


if __name__ == "__main__":
    main()
