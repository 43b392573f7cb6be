"""A reviewer's corrections of captions and boundaries, as pure functions Analysis -> Analysis.

Each result marks what it changed ``edited=True`` (or records a deleted engine boundary in
``removed_boundaries``) so that the stages keep it when the video is analysed again.
Summaries are set (a reviewer's edited ones kept) and their text edited here too.
Identity corrections (rename, merge, split, not a face) are recorded as IdentityEdits and
the identities assigned again (identities.py), so that they hold across re-clustering;
object and body track corrections (relabel, delete, move a box) as TrackEdits, replayed by
their stages (track_edits.py).
"""

from __future__ import annotations

from dataclasses import replace

from .. import timecode
from ..errors import RecordError
from ..records import BOUNDARY_KINDS, Analysis, Boundary, BoundaryCaption, Summary, TrackEdit
from ..summary.builder import PLACEHOLDER, with_summaries
from .stages import identities, track_edits

REVIEWER = "reviewer"


def frame_at(analysis: Analysis, seconds: float) -> int:
    """The frame shown at ``seconds`` (clamped to the video)."""
    return timecode.frame_at(seconds, analysis.video.fps, analysis.video.frame_count)


def _boundary(analysis: Analysis, frame: int) -> Boundary:
    for boundary in analysis.boundaries:
        if boundary.frame == frame:
            return boundary
    raise RecordError(None, f"no boundary at frame {frame}")


def edit_caption(analysis: Analysis, frame: int, text: str) -> Analysis:
    """The frame caption at ``frame`` gets the reviewer's text."""
    text = text.strip()
    if not text:
        raise RecordError(None, "a caption cannot be empty")
    captions = list(analysis.captions)
    for i, caption in enumerate(captions):
        if caption.frame == frame:
            captions[i] = replace(caption, text=text, edited=True)
            return replace(analysis, captions=tuple(captions))
    raise RecordError(None, f"no caption at frame {frame}")


def _segment_index(analysis: Analysis, start: float) -> int:
    for i, segment in enumerate(analysis.transcript):
        if abs(segment.start - start) < 1e-6:
            return i
    raise RecordError(None, f"no speech segment starting at {start:.3f} s")


def edit_segment(analysis: Analysis, start: float, text: str) -> Analysis:
    """The speech segment starting at ``start`` gets the reviewer's text (its words' times
    are shared out over the new words where they are needed, e.g. subtitles)."""
    text = " ".join(text.split())
    if not text:
        raise RecordError(None, "what is said cannot be empty (switch speech off to hide it)")
    segments = list(analysis.transcript)
    i = _segment_index(analysis, start)
    segments[i] = replace(segments[i], text=text, edited=True)
    return replace(analysis, transcript=tuple(segments))


def set_speaker(analysis: Analysis, start: float, speaker: str | None) -> Analysis:
    """Who says the segment starting at ``start``: an identity's id, or None for nobody."""
    if speaker is not None and speaker not in {identity.id for identity in analysis.identities}:
        raise RecordError(None, f"no identity {speaker}")
    segments = list(analysis.transcript)
    i = _segment_index(analysis, start)
    segments[i] = replace(segments[i], speaker=speaker, speaker_by="reviewer", edited=True)
    return replace(analysis, transcript=tuple(segments))


def add_boundary(analysis: Analysis, seconds: float, kind: str = "event",
                 caption: BoundaryCaption | None = None) -> Analysis:
    if kind not in BOUNDARY_KINDS:
        raise RecordError(None, f"boundary kind {kind!r} is not one of {', '.join(BOUNDARY_KINDS)}")
    frame = frame_at(analysis, seconds)
    if any(b.frame == frame for b in analysis.boundaries):
        raise RecordError(None, f"there is already a boundary at frame {frame}")
    added = Boundary(time=timecode.frame_time(frame, analysis.video.fps), frame=frame, kind=kind, confidence=1.0,
                     caption=caption, engine=REVIEWER, edited=True)
    removed = tuple(f for f in analysis.removed_boundaries if abs(f - frame) > 1)
    return replace(analysis.with_boundaries(analysis.boundaries + (added,)), removed_boundaries=removed)


def delete_boundary(analysis: Analysis, frame: int) -> Analysis:
    _boundary(analysis, frame)
    kept = [b for b in analysis.boundaries if b.frame != frame]
    removed = tuple(sorted(set(analysis.removed_boundaries) | {frame}))
    return replace(analysis.with_boundaries(kept), removed_boundaries=removed)


def move_boundary(analysis: Analysis, frame: int, seconds: float) -> Analysis:
    """The boundary at ``frame`` moves to the frame at ``seconds``, keeping its kind and a
    reviewer's caption (an engine's caption described the old moment: the next run redoes it)."""
    old = _boundary(analysis, frame)
    new_frame = frame_at(analysis, seconds)
    if new_frame == frame:
        return analysis
    if any(b.frame == new_frame for b in analysis.boundaries):
        raise RecordError(None, f"there is already a boundary at frame {new_frame}")
    moved = delete_boundary(analysis, frame)
    caption = old.caption if old.caption is not None and old.caption.engine == REVIEWER else None
    return add_boundary(moved, timecode.frame_time(new_frame, analysis.video.fps), old.kind, caption)


def set_boundary_kind(analysis: Analysis, frame: int, kind: str) -> Analysis:
    if kind not in BOUNDARY_KINDS:
        raise RecordError(None, f"boundary kind {kind!r} is not one of {', '.join(BOUNDARY_KINDS)}")
    old = _boundary(analysis, frame)
    return _replace_boundary(analysis, old, replace(old, kind=kind, edited=True))


def edit_boundary_caption(analysis: Analysis, frame: int, subject: str, before: str, after: str) -> Analysis:
    """The boundary at ``frame`` gets the reviewer's Subject / Status Before / Status After."""
    parts = [subject.strip(), before.strip(), after.strip()]
    if not all(parts):
        raise RecordError(None, "subject, before and after must all be filled in")
    old = _boundary(analysis, frame)
    caption = BoundaryCaption(*parts, engine=REVIEWER)
    return _replace_boundary(analysis, old, replace(old, caption=caption, edited=True))


def _replace_boundary(analysis: Analysis, old: Boundary, new: Boundary) -> Analysis:
    return analysis.with_boundaries([new if b is old else b for b in analysis.boundaries])


def set_summaries(analysis: Analysis, summaries: list[Summary]) -> Analysis:
    """The Analysis with these summaries (a reviewer's edited ones are kept), shortest first."""
    updated = with_summaries(analysis, summaries)
    ordered = sorted(updated.summaries, key=lambda s: (len(s.keyframe_frames), s.format))
    return replace(updated, summaries=tuple(ordered))


def edit_summary_text(analysis: Analysis, index: int, text: str) -> Analysis:
    """Summary ``index`` gets the reviewer's text, which must keep its [KEYFRAMEn]
    placeholders: they say where each keyframe goes."""
    if not 0 <= index < len(analysis.summaries):
        raise RecordError(None, f"no summary number {index + 1}")
    old = analysis.summaries[index]
    text = text.strip()
    if old.format != "keyframes" and not text:
        raise RecordError(None, "a summary's text cannot be empty")
    kept = {int(n) for n in PLACEHOLDER.findall(text)}
    missing = [f"[KEYFRAME{n}]" for n in range(1, len(old.keyframe_frames) + 1) if n not in kept]
    if missing and old.format == "keyframes+text":
        raise RecordError(None, f"the summary's text must keep {', '.join(missing)} (where the keyframe goes)")
    if text == old.text:
        return analysis
    summaries = list(analysis.summaries)
    summaries[index] = replace(old, text=text, edited=True)
    return replace(analysis, summaries=tuple(summaries))


def rename_identity(analysis: Analysis, pid: str, name: str | None) -> Analysis:
    return identities.apply_identity_edit(analysis, identities.rename(analysis, pid, name or None))


def merge_identities(analysis: Analysis, pid: str, other: str) -> Analysis:
    """``other`` is the same person as ``pid``."""
    return identities.apply_identity_edit(analysis, identities.merge(analysis, pid, other))


def split_track(analysis: Analysis, track: int) -> Analysis:
    """The face track is someone else: it gets an identity of its own."""
    return identities.apply_identity_edit(analysis, identities.split(analysis, track))


def not_a_face(analysis: Analysis, track: int) -> Analysis:
    return identities.apply_identity_edit(analysis, identities.not_a_face(analysis, track))


def relabel_track(analysis: Analysis, capability: str, frame: int, box, label: str, author: str = "") -> Analysis:
    """The object track with ``box`` at ``frame`` is a ``label``; for "poses", the body is who ``label`` names."""
    return track_edits.recorded(analysis, TrackEdit("relabel", capability, frame, tuple(box), label=label,
                                                    author=author))


def delete_track(analysis: Analysis, capability: str, frame: int, box, author: str = "") -> Analysis:
    return track_edits.recorded(analysis, TrackEdit("delete", capability, frame, tuple(box), author=author))


def move_box(analysis: Analysis, capability: str, frame: int, box, to, author: str = "") -> Analysis:
    """The track's box at ``frame`` is ``to``, not ``box``."""
    return track_edits.recorded(analysis, TrackEdit("move", capability, frame, tuple(box), to=tuple(to),
                                                    author=author))
