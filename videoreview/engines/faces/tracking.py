"""Link the faces of consecutive samples into tracks, never across a shot change.

A face joins the track whose last face is close in place (box IoU) and in identity
(vector distance), or very close in identity alone (a quick head turn or camera move); a
face without a vector (too small for one) by place alone.
Pairs are assigned one-to-one per sample by the Hungarian method, so two people passing
each other keep their tracks. A track survives ``max_gap`` samples without a face
(a missed detection, a blink of occlusion) before it ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...tracking import iou


@dataclass
class Detection:
    """One face in one sampled frame, in display pixels, with its identity vector."""

    time: float
    frame: int
    box: tuple[float, float, float, float]  # x, y, w, h
    score: float
    blur: float  # variance of the Laplacian of the aligned crop: higher is sharper
    embedding: np.ndarray


@dataclass
class Track:
    shot: int
    detections: list[Detection] = field(default_factory=list)

    @property
    def last(self) -> Detection:
        return self.detections[-1]

    def mean_embedding(self) -> np.ndarray:
        """The mean of its faces' identity vectors; empty where none has one (faces too small)."""
        vectors = [d.embedding for d in self.detections if len(d.embedding)]
        return np.mean(vectors, axis=0).astype(np.float32) if vectors else np.zeros(0, np.float32)


def link_tracks(samples: list[list[Detection]], cut_frames, same_person: float,
                max_gap: int = 2, min_iou: float = 0.2) -> list[Track]:
    """Tracks from per-sample detections (samples in time order, each a list of faces).

    ``cut_frames``: first frames of new shots (cuts, and the middle of gradual transitions).
    Returns tracks in order of their first face."""
    cuts = np.asarray(sorted(cut_frames), np.int64)
    tracks: list[Track] = []  # every track, from its first face on
    active: list[tuple[Track, int]] = []  # (track, index of the sample it last had a face in)
    for k, faces in enumerate(samples):
        if not faces:
            active = [(t, last) for t, last in active if k - last <= max_gap]
            continue
        shot = int(np.searchsorted(cuts, faces[0].frame, side="right"))  # cuts at or before it
        # Tracks from another shot, or silent too long, end here.
        active = [(t, last) for t, last in active if t.shot == shot and k - last <= max_gap]
        cost = np.full((len(active), len(faces)), np.inf)
        for i, (track, _) in enumerate(active):
            for j, face in enumerate(faces):
                overlap = iou(track.last.box, face.box)
                if not len(track.last.embedding) or not len(face.embedding):  # a face too small: place alone
                    if overlap >= min_iou:
                        cost[i, j] = same_person - 0.5 * overlap
                    continue
                dist = float(np.linalg.norm(track.last.embedding - face.embedding))
                if (overlap >= min_iou and dist < same_person) or dist < 0.75 * same_person:
                    cost[i, j] = dist - 0.5 * overlap
        matched = set()
        if active:
            from scipy.optimize import linear_sum_assignment  # ~1 s to import: not at the window's start

            finite = np.where(np.isfinite(cost), cost, 1e6)
            for i, j in zip(*linear_sum_assignment(finite)):
                if np.isfinite(cost[i, j]):
                    active[i][0].detections.append(faces[j])
                    active[i] = (active[i][0], k)
                    matched.add(j)
        for j, face in enumerate(faces):
            if j not in matched:
                track = Track(shot=shot, detections=[face])
                tracks.append(track)
                active.append((track, k))
    return sorted(tracks, key=lambda t: (t.detections[0].time, t.detections[0].box[0]))
