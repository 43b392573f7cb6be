"""A reviewer's corrections of object and body tracks (records.TrackEdit): relabel, delete,
move a box. They are kept in ``Analysis.track_edits`` and replayed by the objects and poses
stages after every re-analysis, so they survive it: each finds its track again by the box
it named at its frame (the best overlap, at least ``SAME_BOX``), not by the track's id.

For objects ``label`` is the COCO label; a body has none, so for poses a relabel names who
it is (its identity).
"""

from __future__ import annotations

from dataclasses import replace

from ...records import Analysis, TrackEdit
from ...tracking import iou

SAME_BOX = 0.5  # the overlap at which a box is the one an edit named


def found_track(analysis: Analysis, edit: TrackEdit) -> int | None:
    """The id of the track with a box at the edit's frame overlapping its box, or None."""
    boxes = analysis.objects if edit.capability == "objects" else analysis.pose_samples
    best, best_overlap = None, SAME_BOX
    for item in boxes:
        if item.frame == edit.frame and item.track >= 0:
            overlap = iou(item.box, edit.box)
            if overlap >= best_overlap:
                best, best_overlap = item.track, overlap
    return best


def applied(analysis: Analysis, edit: TrackEdit) -> Analysis:
    """``analysis`` with ``edit`` done (unchanged where its track is not found)."""
    track = found_track(analysis, edit)
    if track is None:
        return analysis
    if edit.capability == "objects":
        return _objects(analysis, edit, track)
    return _poses(analysis, edit, track)


def _objects(analysis: Analysis, edit: TrackEdit, track: int) -> Analysis:
    if edit.op == "delete":
        return replace(analysis, object_tracks=tuple(t for t in analysis.object_tracks if t.id != track),
                       objects=tuple(d for d in analysis.objects if d.track != track))
    if edit.op == "relabel":
        return replace(analysis,
                       object_tracks=tuple(replace(t, label=edit.label) if t.id == track else t
                                           for t in analysis.object_tracks),
                       objects=tuple(replace(d, label=edit.label) if d.track == track else d for d in analysis.objects))
    return replace(analysis, objects=tuple(replace(d, box=edit.to) if d.track == track and d.frame == edit.frame
                                           else d for d in analysis.objects))


def _poses(analysis: Analysis, edit: TrackEdit, track: int) -> Analysis:
    if edit.op == "delete":
        return replace(analysis, poses=tuple(t for t in analysis.poses if t.id != track),
                       pose_samples=tuple(s for s in analysis.pose_samples if s.track != track))
    if edit.op == "relabel":
        return replace(analysis, poses=tuple(replace(t, identity=edit.label or None) if t.id == track else t
                                             for t in analysis.poses))
    return replace(analysis, pose_samples=tuple(replace(s, box=edit.to) if s.track == track and s.frame == edit.frame
                                                else s for s in analysis.pose_samples))


def replayed(analysis: Analysis, capability: str) -> Analysis:
    """``analysis`` with the reviewer's edits of ``capability``'s tracks done again, in order."""
    for edit in analysis.track_edits:
        if edit.capability == capability:
            analysis = applied(analysis, edit)
    return analysis


def recorded(analysis: Analysis, edit: TrackEdit) -> Analysis:
    """``analysis`` with ``edit`` done and kept, to be replayed after a re-analysis."""
    return replace(applied(analysis, edit), track_edits=(*analysis.track_edits, edit))
