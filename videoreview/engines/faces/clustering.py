"""Group face tracks into identities over a video or a set of videos (MICap's P1, P2, ...).

Tracks, not single faces, are clustered: a track's mean vector is steadier than any one
face. Agglomerative clustering (scikit-learn, average linkage, a distance threshold
rather than a number of people) with the constraints a human would use:
  * cannot-link: two tracks seen in the same frame are two people (their distance is set
    so high that no merge can bridge it);
  * must-link: two tracks of one shot whose vectors are near-identical are one person
    (a track broken by a missed detection).
Weak tracks (tiny, blurred, or a single face) do not take part: afterwards each joins the
nearest identity only if it is close and clearly closer to it than to any other, else it
stays unassigned, so it cannot pull
two people together. Identities are named P1, P2, ... by first appearance over the set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_APART = 1e6  # distance that stands for "never the same person"
AMBIGUOUS = 0.8  # a weak track must be this much closer to its identity than to the next


@dataclass(frozen=True)
class TrackInfo:
    """What clustering needs to know of a track."""

    key: tuple[int, int]  # (video index in the set, track id in that video)
    embedding: np.ndarray
    first_time: float
    frames: frozenset[int]  # sampled frames it has a face in
    shot: int
    good: bool  # quality high enough to shape clusters


def cluster_tracks(tracks: list[TrackInfo], threshold: float, must_link: float | None = None,
                   join_weak: float | None = None) -> dict[tuple[int, int], int | None]:
    """A cluster label, or None (unassigned), for every track key; name the labels with
    :func:`name_by_first_appearance`.

    ``threshold``: average-linkage distance at which two groups stop being merged.
    ``must_link``: same-shot distance below which two tracks are forced together
    (default 0.6 x threshold). ``join_weak``: distance to an identity's centre below which
    a weak track joins it (default 0.85 x threshold)."""
    must_link = 0.6 * threshold if must_link is None else must_link
    join_weak = 0.85 * threshold if join_weak is None else join_weak
    good = [t for t in tracks if t.good]
    labels = _cluster(good, threshold, must_link)

    members: dict[int, list[TrackInfo]] = {}
    for track, label in zip(good, labels):
        members.setdefault(label, []).append(track)
    assigned: dict[tuple[int, int], int | None] = {t.key: label for t, label in zip(good, labels)}
    centres = {label: np.mean([t.embedding for t in group], axis=0) for label, group in members.items()}
    for track in (t for t in tracks if not t.good):
        dists = sorted(
            (float(np.linalg.norm(track.embedding - centre)), label) for label, centre in centres.items()
            if not any(_together(track, m) for m in members[label])
        )
        # Close to one identity, and clearly closer to it than to the next (ratio test):
        # a track between two people stays unassigned instead of joining either.
        ok = dists and dists[0][0] < join_weak and (len(dists) == 1 or dists[0][0] < AMBIGUOUS * dists[1][0])
        assigned[track.key] = dists[0][1] if ok else None
        if ok:
            members[dists[0][1]].append(track)
    return assigned


def _together(a: TrackInfo, b: TrackInfo) -> bool:
    """Seen in the same frame of the same video: two different people."""
    return a.key[0] == b.key[0] and not a.frames.isdisjoint(b.frames)


def _cluster(tracks: list[TrackInfo], threshold: float, must_link: float) -> list[int]:
    if not tracks:
        return []
    if len(tracks) == 1:
        return [0]
    vectors = np.stack([t.embedding for t in tracks]).astype(np.float64)
    dist = np.linalg.norm(vectors[:, None, :] - vectors[None, :, :], axis=-1)
    n = len(tracks)
    for i in range(n):
        for j in range(i + 1, n):
            a, b = tracks[i], tracks[j]
            if _together(a, b):
                dist[i, j] = dist[j, i] = _APART
            elif a.key[0] == b.key[0] and a.shot == b.shot and dist[i, j] < must_link:
                dist[i, j] = dist[j, i] = 0.0
    # SciPy's average linkage (0.2 s to import; scikit-learn's AgglomerativeClustering, which
    # this was, took 1 s of every analysis with faces). Groups closer than the threshold merge.
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    merges = linkage(squareform(dist, checks=False), method="average")
    labels = [int(x) for x in fcluster(merges, t=np.nextafter(threshold, 0.0), criterion="distance")]
    return _split_conflicts(tracks, labels)


def _split_conflicts(tracks: list[TrackInfo], labels: list[int]) -> list[int]:
    """Average linkage keeps cannot-links in all realistic cases; make it a guarantee:
    a track seen together with an earlier member of its cluster gets a cluster of its own."""
    labels = list(labels)
    next_label = max(labels) + 1
    by_label: dict[int, list[int]] = {}
    for i in sorted(range(len(tracks)), key=lambda i: tracks[i].first_time):
        group = by_label.setdefault(labels[i], [])
        if any(_together(tracks[i], tracks[j]) for j in group):
            labels[i] = next_label
            by_label[next_label] = [i]
            next_label += 1
        else:
            group.append(i)
    return labels


def name_by_first_appearance(labels: dict, first_seen: dict) -> dict:
    """Cluster labels -> "P1", "P2", ... in order of first appearance (MICap's normalisation).

    ``first_seen[key]`` orders tracks: (video index in the set, time of first face)."""
    first: dict[int, tuple] = {}
    for key, label in labels.items():
        if label is not None and (label not in first or first_seen[key] < first[label]):
            first[label] = first_seen[key]
    names = {label: f"P{n}" for n, label in enumerate(sorted(first, key=first.get), start=1)}
    return {key: (names[label] if label is not None else None) for key, label in labels.items()}
