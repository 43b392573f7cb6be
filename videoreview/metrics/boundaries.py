"""Boundary F1 as Kinetic-GEB+ and GEBD score it.

Predicted and true timestamps are matched one-to-one when they lie within an absolute
tolerance (seconds) of each other; precision = matched / predicted, recall = matched / true.
The score is reported at each tolerance and averaged over them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

TOLERANCES: tuple[float, ...] = (0.1, 0.2, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0)


@dataclass(frozen=True)
class F1Score:
    tolerance: float
    precision: float
    recall: float
    f1: float
    matched: int
    predicted: int
    truth: int


def match_count(predicted: Iterable[float], truth: Iterable[float], tolerance: float) -> int:
    """Largest one-to-one matching with |p - t| <= tolerance.

    With both lists sorted, a two-pointer sweep that matches whenever it can and
    otherwise drops the smaller value is optimal: the edges form an interval graph.
    """
    pred = sorted(predicted)
    true = sorted(truth)
    i = j = matched = 0
    eps = 1e-9  # tolerances like 0.1 s must include a difference of exactly 0.1 s
    while i < len(pred) and j < len(true):
        if abs(pred[i] - true[j]) <= tolerance + eps:
            matched += 1
            i += 1
            j += 1
        elif pred[i] < true[j]:
            i += 1
        else:
            j += 1
    return matched


def f1_at(predicted: Sequence[float], truth: Sequence[float], tolerance: float) -> F1Score:
    matched = match_count(predicted, truth, tolerance)
    n_pred, n_true = len(predicted), len(truth)
    if n_pred == 0 and n_true == 0:
        # Nothing to find and nothing found: a perfect answer.
        return F1Score(tolerance, 1.0, 1.0, 1.0, 0, 0, 0)
    return f1_from_counts(tolerance, matched, n_pred, n_true)


def f1_from_counts(tolerance: float, matched: int, n_pred: int, n_true: int) -> F1Score:
    precision = matched / n_pred if n_pred else 0.0
    recall = matched / n_true if n_true else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return F1Score(tolerance, precision, recall, f1, matched, n_pred, n_true)


def boundary_f1(
    predicted: Sequence[float], truth: Sequence[float], tolerances: Sequence[float] = TOLERANCES
) -> tuple[list[F1Score], float]:
    """F1 at each tolerance and their average."""
    scores = [f1_at(predicted, truth, tol) for tol in tolerances]
    return scores, sum(s.f1 for s in scores) / len(scores)
