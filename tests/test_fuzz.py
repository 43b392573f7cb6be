"""Damaged copies of three real clips (tests/fuzz.py) through the whole analysis: each
analyses or is refused with one line naming the file; never a traceback, a crash or a
hang. The decoding is what is tried, so the fake engines (fake_engines.py) analyse: they
read the frames and the sound through the same readers as the real ones.
benchmarks/fuzz_media.py runs the same with a few hundred variants and the default engines."""

import fuzz
from fake_engines import ENGINES

VARIANTS = 24  # about 40 ms each with the fake engines; the benchmark runs 300
TIMEOUT_S = 60


def test_damaged_files_analyse_or_are_refused_in_one_line(tmp_path):
    variants = fuzz.make_variants(fuzz.make_bases(tmp_path / "bases"), tmp_path / "variants", VARIANTS, seed=19)
    outcomes, problems = fuzz.run(variants, tmp_path / "home", TIMEOUT_S, ENGINES)
    assert not problems, "\n".join(problems)
    counts = fuzz.tally(outcomes)
    assert counts["ok"] + counts["refused"] == VARIANTS
    assert counts["ok"] and counts["refused"]  # the variants reach both ends
