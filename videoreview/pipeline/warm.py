"""Load the stages' models in a background thread while the first frames decode.

Each engine loads its model on first use, which is in the thread that runs the frame
pass's readers, one model after another while they wait. ``load_in_background``, called by
the runner right after the probe, starts one thread that calls each stage's ``warm()``
(pipeline/stages/base.py) in run order, the order the pass first needs them. A reader whose
model is still loading waits for that load at its first frame: each engine's loader takes
a lock (engines/loading.py), so nothing loads twice. Only stages whose results are not
cached are warmed, and a stage loads only what it will surely use: not the boundaries'
TransNetV2 windows on the CPU (the cascade loads them when it first needs one), not the
models of a stage whose gate may never let it look (faces, poses, on-screen text), not
Whisper (the speech stage loads it beside the pass, once it has heard sound).

``benchmarks/bench_warm.py CLIP`` shows where each load falls and in which thread. On a busy
2-core machine (load average 12-15) the pass's thread spent, median of 3 runs, 0.49 s in
the loaders without this and 0.27 s with it on a 10-frame 720p clip; 1.60 s and 1.13 s
(median of 2) on a 14 s 720p phone clip. One thread, not one per model: the loads hold the
GIL for much of their time, and two threads loaded the pass's models in no less time.

A load that fails in the background is kept by the engine's loader and raised to the first
caller that needs the model, where it would have been raised without loading ahead (the
same exception, or the same Fallback and notice, at the same place). ``close()``
starts no further load and does not wait for the one under way: a cancelled analysis waits
for no load. The thread is not a daemon, so a process that ends meanwhile waits for that
one load rather than tear its runtime down under it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from ..engines.loading import loading_ahead
from .stages.base import Stage


class Warming:
    """The background load of some stages' models; ``close()`` when the analysis ends."""

    def __init__(self, stages: Sequence) -> None:
        self.closed = False
        self.loaded: list[str] = []  # stages whose warm() returned, in order (for tests and benchmarks)
        # Stages that load nothing ahead (the base class's warm) need no thread.
        warms = [(stage.name, stage.warm) for stage in stages if type(stage).warm is not Stage.warm]
        self._thread: threading.Thread | None = None
        if warms:
            self._thread = threading.Thread(target=self._run, args=(warms,), name="videoreview-warm")
            self._thread.start()

    def _run(self, warms) -> None:
        with loading_ahead(self):
            for name, warm in warms:
                if self.closed:
                    return
                try:
                    warm()
                except Exception:  # the engine's loader keeps it for the first caller that needs the
                    continue  # model; an engine without that guard loads again there and fails there, as before
                self.loaded.append(name)

    def close(self) -> None:
        """Start no further load; the one under way finishes in its thread."""
        self.closed = True

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the thread (up to ``timeout`` seconds); whether it has ended."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self._thread is None or not self._thread.is_alive()


def load_in_background(stages: Sequence) -> Warming:
    """Start loading the models of ``stages`` (those whose results are not cached, in run
    order) in a background thread; none where no stage has a load to warm."""
    return Warming(stages)
