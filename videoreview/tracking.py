"""What every tracker shares (faces, objects, bodies): how much two boxes overlap, and
where shots start, since no track crosses a shot change."""

from __future__ import annotations

from .records import SHOT_CHANGE_KINDS, Boundary


def iou(a, b) -> float:
    """Intersection over union of two boxes (x, y, w, h)."""
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    w = min(ax + aw, bx + bw) - max(ax, bx)
    h = min(ay + ah, by + bh) - max(ay, by)
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / (aw * ah + bw * bh - inter)


def cut_frames(boundaries: tuple[Boundary, ...]) -> list[int]:
    """Frames where a new shot starts: cuts, and the middle of gradual transitions."""
    return [b.frame for b in boundaries if b.kind in SHOT_CHANGE_KINDS]
