"""Damaged copies of real clips: random bytes flipped, files cut at random offsets, both.

Each variant is analysed by the real pipeline in a watched child (supervised.py) and must
either analyse or be refused with one line naming the file; a traceback, a crashed
process or a hang is a failure. Seeded: the same seed makes the same variants. The test
runs the fake engines (fake_engines.py), which decode through the same readers; the
benchmark, the default engines.
Used by tests/test_fuzz.py and benchmarks/fuzz_media.py.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from corpus import encode, h264
from supervised import Outcome, Supervisor

FAILURES = ("traceback", "crash", "hang")


def make_bases(directory: Path) -> list[Path]:
    """Three clips of 40 index-coded frames in three containers and codecs."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    return [
        h264(d / "base.mp4", 40),
        encode(d / "base.webm", 40, ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8"]),
        encode(d / "base.avi", 40, ["-c:v", "mjpeg", "-q:v", "5"]),
    ]


@dataclass(frozen=True)
class Variant:
    path: Path
    recipe: str  # how it was made, to make it again by hand


def make_variants(bases: list[Path], directory: Path, count: int, seed: int = 0) -> list[Variant]:
    """``count`` damaged copies, in turn of each base: flipped bytes (anywhere, or in the
    first 4 KB where the headers are), a cut at a random offset, or flips and a cut."""
    rng = np.random.default_rng(seed)
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    out = []
    for k in range(count):
        base = bases[k % len(bases)]
        data = bytearray(base.read_bytes())
        how = ("flip", "flip-head", "cut", "flip+cut")[rng.integers(4)]
        steps = []
        if how.startswith("flip"):
            n = int(rng.integers(1, 64))
            span = min(len(data), 4096) if how == "flip-head" else len(data)
            where = rng.integers(0, span, n)
            for i in where:
                data[i] ^= 1 << int(rng.integers(8))
            steps.append(f"{n} bits flipped in the first {span} bytes")
        if how.endswith("cut"):
            size = int(rng.integers(1, len(data)))
            del data[size:]
            steps.append(f"cut at byte {size}")
        path = d / f"{k:04d}{base.suffix}"
        path.write_bytes(bytes(data))
        out.append(Variant(path, f"{base.name}: {', '.join(steps)} (seed {seed}, variant {k})"))
    return out


def problem(variant: Variant, outcome: Outcome) -> str | None:
    """What is wrong with the outcome, or None when it analysed or was refused in one line."""
    if outcome.status in FAILURES:
        return f"{variant.recipe}: {outcome.status}: {outcome.message.strip()[-800:]}"
    if outcome.status == "refused":
        message = outcome.message
        if "\n" in message or not message.startswith(f"{os.fspath(variant.path)}: "):
            return f"{variant.recipe}: refused in more than one line or without the file: {message!r}"
    return None


def run(variants: list[Variant], home: Path, timeout: float,
        engines: dict[str, str] | None = None) -> tuple[list[Outcome], list[str]]:
    """Analyse every variant (with ``engines``, else the default ones); the outcomes and
    the problems found."""
    outcomes, problems = [], []
    with Supervisor(home, timeout=timeout, save=False, engines=engines) as supervisor:
        for variant in variants:
            outcome = supervisor.analyse(variant.path)
            outcomes.append(outcome)
            found = problem(variant, outcome)
            if found:
                problems.append(found)
    return outcomes, problems


def tally(outcomes: list[Outcome]) -> Counter:
    return Counter(o.status for o in outcomes)
