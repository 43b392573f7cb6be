"""Damaged copies of three real clips (tests/fuzz.py) through the whole analysis: each
analyses or is refused with one line naming the file; never a traceback, a crash or a
hang. benchmarks/fuzz_media.py runs the same with a few hundred variants."""

import pytest

import fuzz

VARIANTS = 24  # about a second each; the benchmark runs 300
TIMEOUT_S = 60


@pytest.mark.slow
def test_damaged_files_analyse_or_are_refused_in_one_line(tmp_path):
    variants = fuzz.make_variants(fuzz.make_bases(tmp_path / "bases"), tmp_path / "variants", VARIANTS, seed=19)
    outcomes, problems = fuzz.run(variants, tmp_path / "home", TIMEOUT_S)
    assert not problems, "\n".join(problems)
    counts = fuzz.tally(outcomes)
    assert counts["ok"] + counts["refused"] == VARIANTS
    assert counts["ok"] and counts["refused"]  # the variants reach both ends
