"""Retrieval and grounding scores, on plain lists (the library produces the rankings).

- Text-to-video retrieval (CaReBench, Kinetic-GEB+ boundary caption-video retrieval):
  Recall@K, the share of queries whose target video is among the first K videos
  returned; mAP, the mean over queries of average precision over the ranked videos (with
  one target video per query it equals the mean reciprocal rank).
- ReBias (CaReBench): |1 - R_temporal / R_spatial| with R the average of R@1, R@5 and
  R@10 over the temporal and the spatial query sets; 0 is no bias.
- Boundary grounding (Kinetic-GEB+): per query, as many predicted timestamps as it has
  true ones (the top-ranked moments of the target video), matched one-to-one to the true
  ones within an absolute tolerance; precision, recall and F1 pooled over all queries,
  at each tolerance 0.1 ... 3 s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .boundaries import TOLERANCES, F1Score, f1_from_counts, match_count

KS = (1, 5, 10)


@dataclass(frozen=True)
class RetrievalScore:
    queries: int
    recall: dict[int, float]  # K -> R@K
    mean_average_precision: float

    @property
    def average_recall(self) -> float:
        return sum(self.recall.values()) / len(self.recall) if self.recall else 0.0


def average_precision(ranked: Sequence[str], relevant: set[str]) -> float:
    """AP of one ranked list of videos against the relevant ones (0 when none is found)."""
    if not relevant:
        raise ValueError("a query needs at least one relevant video")
    hits, total = 0, 0.0
    for rank, video in enumerate(ranked, 1):
        if video in relevant:
            hits += 1
            total += hits / rank
    return total / len(relevant)


def retrieval_scores(rankings: Sequence[Sequence[str]], targets: Sequence[str | set[str]],
                     ks: Sequence[int] = KS) -> RetrievalScore:
    """R@K and mAP of ``rankings`` (each query's videos, best first, each once) against
    each query's target video (or set of them)."""
    if len(rankings) != len(targets):
        raise ValueError(f"{len(rankings)} rankings for {len(targets)} queries")
    if not rankings:
        return RetrievalScore(0, {k: 0.0 for k in ks}, 0.0)
    relevant = [t if isinstance(t, set) else {t} for t in targets]
    recall = {k: sum(bool(set(r[:k]) & rel) for r, rel in zip(rankings, relevant)) / len(rankings) for k in ks}
    ap = [average_precision(r, rel) for r, rel in zip(rankings, relevant)]
    return RetrievalScore(len(rankings), recall, sum(ap) / len(ap))


def rebias(temporal: RetrievalScore, spatial: RetrievalScore) -> float:
    """|1 - R_temporal / R_spatial| (CaReBench eq. 1); infinite when nothing spatial is found."""
    if spatial.average_recall == 0:
        return float("inf") if temporal.average_recall else 0.0
    return abs(1 - temporal.average_recall / spatial.average_recall)


def grounding_f1(predicted: Sequence[Sequence[float]], truth: Sequence[Sequence[float]],
                 tolerances: Sequence[float] = TOLERANCES) -> list[F1Score]:
    """Pooled F1 at each tolerance; ``predicted[i]`` and ``truth[i]`` are query i's times."""
    if len(predicted) != len(truth):
        raise ValueError(f"{len(predicted)} predictions for {len(truth)} queries")
    n_pred, n_true = sum(map(len, predicted)), sum(map(len, truth))
    return [f1_from_counts(tolerance, sum(match_count(p, t, tolerance) for p, t in zip(predicted, truth)),
                           n_pred, n_true) for tolerance in tolerances]
