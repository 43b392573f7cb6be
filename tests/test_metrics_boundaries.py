"""GEB+ boundary F1 against examples worked out by hand."""

import pytest

from videoreview.metrics.boundaries import TOLERANCES, boundary_f1, f1_at, match_count


def test_tolerances_are_the_papers():
    assert TOLERANCES == (0.1, 0.2, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0)


def test_hand_worked_example():
    # truth 2, 5, 9; predicted 2.05, 5.4, 12
    # at 0.1 s: only 2.05 matches        -> P 1/3, R 1/3, F1 1/3
    # at 0.5 s: 2.05 and 5.4 match       -> P 2/3, R 2/3, F1 2/3
    # at 3.0 s: 12 matches 9 (|3.0|)     -> P 1, R 1, F1 1
    pred, truth = [2.05, 5.4, 12.0], [2.0, 5.0, 9.0]
    assert f1_at(pred, truth, 0.1).f1 == pytest.approx(1 / 3)
    assert f1_at(pred, truth, 0.5).f1 == pytest.approx(2 / 3)
    s = f1_at(pred, truth, 3.0)
    assert (s.matched, s.precision, s.recall, s.f1) == (3, 1.0, 1.0, 1.0)
    scores, avg = boundary_f1(pred, truth)
    # 0.1, 0.2: 1/3; 0.5, 1.0, 1.5, 2.0, 2.5: 2/3; 3.0: 1  -> (2/3 + 10/3 + 1) / 8
    assert [round(s.f1, 4) for s in scores] == [0.3333, 0.3333, 0.6667, 0.6667, 0.6667, 0.6667, 0.6667, 1.0]
    assert avg == pytest.approx((2 / 3 + 10 / 3 + 1) / 8)


def test_matching_is_one_to_one():
    # two predictions near one true boundary: only one may count
    s = f1_at([1.0, 1.05], [1.02], 0.1)
    assert s.matched == 1
    assert s.precision == pytest.approx(0.5) and s.recall == 1.0
    assert s.f1 == pytest.approx(2 * 0.5 * 1 / 1.5)


def test_matching_is_maximal_not_nearest_first():
    # nearest-first would pair 1.0 with 1.05 and leave 0.6 and 1.45 unmatched;
    # the best one-to-one matching within 0.45 s pairs 0.6-1.0 and 1.05-1.45.
    assert match_count([1.0, 1.45], [0.6, 1.05], 0.45) == 2


def test_tolerance_is_inclusive():
    assert match_count([1.1], [1.0], 0.1) == 1
    assert match_count([1.11], [1.0], 0.1) == 0


def test_empty_cases():
    assert f1_at([], [], 0.5).f1 == 1.0
    assert f1_at([1.0], [], 0.5).f1 == 0.0
    assert f1_at([], [1.0], 0.5).f1 == 0.0
