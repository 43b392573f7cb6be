"""Identity metrics: clustering quality (B-cubed) and MICap's fill-in-the-blanks pair accuracies.

B-cubed (Bagga & Baldwin 1998) scores a clustering item by item: precision is the share
of an item's predicted cluster that truly shares its label, recall the share of its true
cluster that was predicted with it; both averaged over items. An item left unassigned
counts as a cluster of its own (it is not wrong about anyone, but misses its people).

FITB (MICap, after FillIn): over all pairs of blanks in a caption set, a pair is right
when "same person" / "different people" agrees with the truth. Same-acc is measured on
the pairs that truly share an id, Diff-acc on those that do not, Inst-acc on all pairs,
Class-acc is the harmonic mean of Same-acc and Diff-acc. Pairs only ever compare ids
within a set, so ids need no matching between prediction and truth.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations


@dataclass(frozen=True)
class ClusterScore:
    precision: float
    recall: float
    f1: float
    found: int  # identities predicted (unassigned items not counted)
    true: int  # identities in the truth
    unassigned: int  # items predicted as nobody


def bcubed(predicted: Mapping[Hashable, Hashable | None], truth: Mapping[Hashable, Hashable]) -> ClusterScore:
    """B-cubed over the items of ``truth``; an item missing from ``predicted`` is unassigned."""
    items = list(truth)
    if not items:
        raise ValueError("no items to score")
    pred = {item: predicted.get(item) for item in items}
    singleton = [object() for _ in items]  # every unassigned item is its own cluster
    pred = {item: (label if label is not None else singleton[k]) for k, (item, label) in enumerate(pred.items())}
    pred_size = Counter(pred.values())
    true_size = Counter(truth.values())
    both = Counter((pred[i], truth[i]) for i in items)
    precision = sum(both[(pred[i], truth[i])] / pred_size[pred[i]] for i in items) / len(items)
    recall = sum(both[(pred[i], truth[i])] / true_size[truth[i]] for i in items) / len(items)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    found = len({label for label in predicted.values() if label is not None})
    unassigned = sum(1 for i in items if predicted.get(i) is None)
    return ClusterScore(precision, recall, f1, found, len(true_size), unassigned)


@dataclass(frozen=True)
class FitbScore:
    same_acc: float
    diff_acc: float
    inst_acc: float
    class_acc: float
    same_pairs: int
    diff_pairs: int


def fitb_pairs(predicted: Sequence[Sequence[str | None]], truth: Sequence[Sequence[str]]) -> FitbScore:
    """MICap's FITB (fill in the blanks: which person each "someone" / "he" in a caption is)
    pair accuracies over caption sets.

    Each argument is a list of caption sets; a set is the ids of its blanks in order
    (all captions of the set flattened). A blank predicted as None matches nobody, not
    even another None."""
    if len(predicted) != len(truth):
        raise ValueError(f"{len(predicted)} predicted caption sets for {len(truth)} true ones")
    right = {True: 0, False: 0}
    count = {True: 0, False: 0}
    for n, (pred_set, true_set) in enumerate(zip(predicted, truth)):
        if len(pred_set) != len(true_set):
            raise ValueError(f"caption set {n}: {len(pred_set)} predicted blanks for {len(true_set)} true ones")
        for i, j in combinations(range(len(true_set)), 2):
            same = true_set[i] == true_set[j]
            said_same = pred_set[i] is not None and pred_set[i] == pred_set[j]
            count[same] += 1
            right[same] += said_same == same
    same_acc = right[True] / count[True] if count[True] else 0.0
    diff_acc = right[False] / count[False] if count[False] else 0.0
    total = count[True] + count[False]
    inst_acc = (right[True] + right[False]) / total if total else 0.0
    class_acc = 2 * same_acc * diff_acc / (same_acc + diff_acc) if same_acc + diff_acc else 0.0
    return FitbScore(same_acc, diff_acc, inst_acc, class_acc, count[True], count[False])
