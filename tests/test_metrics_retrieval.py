"""Retrieval and grounding scores against hand-computed values."""

import math

import pytest

from videoreview.metrics.retrieval import average_precision, grounding_f1, rebias, retrieval_scores


def test_recall_at_k_and_map():
    rankings = [["a", "b", "c"], ["b", "a"], ["c", "d", "e", "f", "g", "a"], ["x"]]
    targets = ["a", "a", "a", "a"]
    score = retrieval_scores(rankings, targets, ks=(1, 5, 10))
    assert score.queries == 4
    assert score.recall == {1: 0.25, 5: 0.5, 10: 0.75}  # ranks 1, 2, 6, none
    assert score.mean_average_precision == pytest.approx((1 + 1 / 2 + 1 / 6 + 0) / 4)
    assert score.average_recall == pytest.approx(0.5)


def test_average_precision_with_several_relevant_videos():
    # Relevant at ranks 1 and 3 of 3 relevant: (1/1 + 2/3) / 3.
    assert average_precision(["a", "x", "b", "y"], {"a", "b", "c"}) == pytest.approx((1 + 2 / 3) / 3)
    assert retrieval_scores([["a", "x", "b"]], [{"a", "b"}], ks=(1, 2)).recall == {1: 1.0, 2: 1.0}
    with pytest.raises(ValueError):
        average_precision(["a"], set())
    with pytest.raises(ValueError):
        retrieval_scores([["a"]], [])


def test_rebias_is_the_distance_of_the_recall_ratio_from_one():
    spatial = retrieval_scores([["a"], ["b"]], ["a", "a"], ks=(1,))  # R 0.5
    temporal = retrieval_scores([["a"], ["a"]], ["a", "a"], ks=(1,))  # R 1.0
    assert rebias(temporal, spatial) == pytest.approx(1.0)  # |1 - 1.0 / 0.5|
    assert rebias(spatial, temporal) == pytest.approx(0.5)  # |1 - 0.5 / 1.0|
    assert rebias(spatial, spatial) == 0.0
    nothing = retrieval_scores([["b"]], ["a"], ks=(1,))
    assert math.isinf(rebias(temporal, nothing)) and rebias(nothing, nothing) == 0.0


def test_grounding_f1_pools_one_to_one_matches_over_queries():
    predicted = [[10.0, 20.0], [5.3]]
    truth = [[10.4, 30.0], [5.0]]
    scores = {s.tolerance: s for s in grounding_f1(predicted, truth, (0.2, 0.5, 10.0))}
    assert scores[0.2].matched == 0 and scores[0.2].f1 == 0.0
    assert scores[0.5].matched == 2 and scores[0.5].f1 == pytest.approx(2 / 3)  # P = R = 2/3
    assert scores[10.0].matched == 3 and scores[10.0].f1 == 1.0  # 20 <-> 30 within 10 s
    with pytest.raises(ValueError):
        grounding_f1([[1.0]], [])
