"""Progress on stderr: a bar where a person watches a terminal, and where it goes to a log
(``library add ... 2> log``, a cluster worker's output) lines to read rather than megabytes
of redrawn bars: one when each stage starts, and while a long video goes on, one at least
every LOG_SECONDS (or each LOG_STEP of the whole, LOG_GAP apart at most as often) with how far
each running stage is and an estimate of the time left."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from ..progress import ProgressTally

BAR_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining} {postfix}"
LOG_SECONDS = 30.0  # a log hears of a running video at least this often
LOG_STEP = 0.05  # ...and each time this much more of it is done
LOG_GAP = 5.0  # ...but not twice in this many seconds for that


class ProgressBar:
    """One video's progress: ``update(stage, fraction of that stage, message)``, ``write``
    for a line of its own (a notice), ``close`` when the video is done."""

    def __init__(self, what: str, quiet: bool = False, leave: bool = True, stream=None,
                 stages: list[str] | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.what, self.quiet, self.stream, self.clock = what, quiet, stream or sys.stderr, clock
        self.seen: set[str] = set()  # stages already said (the shared decoding pass interleaves them)
        self.tally = ProgressTally(what, stages, clock)  # without stages: the mean of the stages seen
        self.started = self.last_line = clock()
        self.last_done = 0.0  # the whole's fraction at the last line of progress
        self.bar = None
        if not quiet and self.stream.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=100, desc=what, unit="%", file=self.stream, leave=leave, bar_format=BAR_FORMAT)

    def update(self, stage: str, fraction: float, message: str = "") -> None:
        """``fraction``: how much of ``stage`` is done."""
        done = self.tally.update(stage, fraction)
        if self.bar is not None:
            self.bar.n = round(done * 100, 1)
            self.bar.set_postfix_str(f"{stage}: {message}" if message else stage, refresh=False)
            self.bar.refresh()
        elif not self.quiet:
            now = self.clock()
            if stage not in self.seen:
                self._line(f"{stage} ({now - self.started:.1f} s)", now)
            elif now - self.last_line >= LOG_SECONDS or (done - self.last_done >= LOG_STEP
                                                          and now - self.last_line >= LOG_GAP):
                self._line(self._how_far(done, now), now)
                self.last_done = done
        self.seen.add(stage)

    def _how_far(self, done: float, now: float) -> str:
        """"35% after 12 s, about 22 s left; boundaries 80%, captions 40%"."""
        elapsed = now - self.started
        left = f", about {elapsed * (1 - done) / done:.0f} s left" if done >= 0.01 else ""
        running = ", ".join(f"{name} {f:.0%}" for name, f in self.tally.done.items() if f < 1.0)
        return f"{done:.0%} after {elapsed:.0f} s{left}" + (f"; {running}" if running else "")

    def _line(self, text: str, now: float) -> None:
        print(f"{self.what}: {text}", file=self.stream, flush=True)
        self.last_line = now

    def write(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def close(self, done: bool = False) -> None:
        if self.bar is not None:
            if done:
                self.bar.n = 100
            self.bar.close()
            self.bar = None
        elif done and not self.quiet:
            print(f"{self.what}: done ({self.clock() - self.started:.1f} s)", file=self.stream, flush=True)
