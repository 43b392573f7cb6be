"""Progress on stderr: a bar where a person watches a terminal, and where it goes to a log
(``library add ... 2> log``, a cluster worker's output) one line per video and stage,
so that a log holds lines to read rather than megabytes of redrawn bars."""

from __future__ import annotations

import sys
import time

BAR_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining} {postfix}"


class Progress:
    """One video's progress: ``update(stage, fraction of the whole, message)``, ``write``
    for a line of its own (a notice), ``close`` when the video is done."""

    def __init__(self, what: str, quiet: bool = False, leave: bool = True, stream=None) -> None:
        self.what, self.quiet, self.stream = what, quiet, stream or sys.stderr
        self.seen: set[str] = set()  # stages already said (the shared decoding pass interleaves them)
        self.started = time.monotonic()
        self.bar = None
        if not quiet and self.stream.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=100, desc=what, unit="%", file=self.stream, leave=leave, bar_format=BAR_FORMAT)

    def update(self, stage: str, fraction: float, message: str = "") -> None:
        if self.bar is not None:
            self.bar.n = round(fraction * 100, 1)
            self.bar.set_postfix_str(f"{stage}: {message}" if message else stage, refresh=False)
            self.bar.refresh()
        elif not self.quiet and stage not in self.seen:
            print(f"{self.what}: {stage} ({time.monotonic() - self.started:.1f} s)", file=self.stream, flush=True)
        self.seen.add(stage)

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
            print(f"{self.what}: done ({time.monotonic() - self.started:.1f} s)", file=self.stream, flush=True)
