"""Identity metrics against hand-worked examples."""

import pytest

from videoreview.metrics.identities import bcubed, fitb_pairs


def test_bcubed_hand_worked():
    truth = {"a": "X", "b": "X", "c": "Y", "d": "Y"}
    pred = {"a": 1, "b": 1, "c": 1, "d": 2}
    # precision: a, b 2/3 each, c 1/3, d 1 -> 2/3; recall: a, b 1, c, d 1/2 -> 3/4
    score = bcubed(pred, truth)
    assert score.precision == pytest.approx(2 / 3)
    assert score.recall == pytest.approx(3 / 4)
    assert score.f1 == pytest.approx(12 / 17)
    assert (score.found, score.true, score.unassigned) == (2, 2, 0)


def test_bcubed_perfect_and_label_names_do_not_matter():
    truth = {"a": "X", "b": "X", "c": "Y"}
    score = bcubed({"a": "P2", "b": "P2", "c": "P1"}, truth)
    assert (score.precision, score.recall, score.f1) == (1.0, 1.0, 1.0)


def test_bcubed_unassigned_items_are_singletons_not_one_cluster():
    truth = {"a": "X", "b": "X", "c": "X"}
    score = bcubed({"a": "P1", "b": None}, truth)  # c missing: unassigned too
    # precision 1 for all; recall: a 1/3, b 1/3, c 1/3
    assert score.precision == 1.0
    assert score.recall == pytest.approx(1 / 3)
    assert (score.found, score.unassigned) == (1, 2)
    with pytest.raises(ValueError):
        bcubed({}, {})


def test_fitb_pairs_hand_worked():
    truth = [["A", "B", "A"], ["A", "A"]]
    pred = [["P1", "P2", "P2"], ["P1", "P1"]]
    # set 1: (0,1) diff/right, (0,2) same/wrong, (1,2) diff/wrong; set 2: (0,1) same/right
    score = fitb_pairs(pred, truth)
    assert (score.same_pairs, score.diff_pairs) == (2, 2)
    assert score.same_acc == 0.5 and score.diff_acc == 0.5
    assert score.inst_acc == 0.5 and score.class_acc == 0.5


def test_fitb_none_never_matches_and_sizes_are_checked():
    score = fitb_pairs([[None, None]], [["A", "A"]])
    assert score.same_acc == 0.0 and score.class_acc == 0.0
    score = fitb_pairs([[None, None]], [["A", "B"]])
    assert score.diff_acc == 1.0
    with pytest.raises(ValueError, match="caption set 0"):
        fitb_pairs([["P1"]], [["A", "B"]])
    with pytest.raises(ValueError):
        fitb_pairs([], [["A"]])
