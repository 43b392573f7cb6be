"""Adding, changing, deleting and merging notes: pure functions Analysis -> Analysis, so
the window can make each one undoable and the CLI can use the same rules.

Every change stamps the note's ``changed`` time; merging two reviewers' notes goes by note
id, and where both changed the same note, the later change wins and is reported.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from ..errors import RecordError
from ..records import Analysis, Note, NoteDeletion, Shape
from ..timecode import format_time, frame_time
from .author import reviewer_name


def stamp(moment: datetime) -> str:
    """A time as notes store it: UTC, ISO 8601, milliseconds, "Z"."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def now() -> str:
    return stamp(datetime.now(UTC))


def check_in_video(analysis: Analysis, frame: int, end_frame: int | None = None) -> None:
    """RecordError when the note's frames are not frames of this video."""
    last = analysis.video.frame_count - 1
    fps = analysis.video.fps
    for f in (frame, end_frame):
        if f is not None and not 0 <= f <= last:
            raise RecordError(None, f"frame {f} ({format_time(f / fps, fps)}) is outside the video "
                                    f"(frames 0 to {last}, {format_time(analysis.video.duration, fps)})")
    if end_frame is not None and end_frame < frame:
        raise RecordError(None, f"a range must end after it starts (frames {frame} to {end_frame})")


def new_note(analysis: Analysis, frame: int, text: str, end_frame: int | None = None, tag: str = "blue",
             author: str | None = None, drawing: Iterable[Shape] = ()) -> Note:
    """A new open note at ``frame`` (to ``end_frame``), signed and stamped now."""
    check_in_video(analysis, frame, end_frame)
    text, drawing = text.strip(), tuple(drawing)
    if not text and not drawing:
        raise RecordError(None, "a note needs text or a drawing")
    if end_frame == frame:
        end_frame = None
    created, fps = now(), analysis.video.fps
    return Note(id=uuid.uuid4().hex, time=frame_time(frame, fps), frame=frame, text=text,
                end_time=None if end_frame is None else frame_time(end_frame, fps), end_frame=end_frame, tag=tag,
                author=author if author is not None else reviewer_name(), created=created, changed=created,
                drawing=drawing)


def _ordered(notes: Iterable[Note]) -> tuple[Note, ...]:
    return tuple(sorted(notes, key=lambda n: (n.frame, n.last_frame, n.created, n.id)))


def note_by_id(analysis: Analysis, note_id: str) -> Note:
    for note in analysis.notes:
        if note.id == note_id:
            return note
    raise RecordError(None, f"no note {note_id}")


def add_note(analysis: Analysis, note: Note) -> Analysis:
    if any(n.id == note.id for n in analysis.notes):
        raise RecordError(None, f"there is already a note {note.id}")
    check_in_video(analysis, note.frame, note.end_frame)
    return replace(analysis, notes=_ordered((*analysis.notes, note)))


def change_note(analysis: Analysis, note_id: str, **changes) -> Analysis:
    """The note with ``changes`` (text, tag, status, frame, end_frame, drawing), stamped
    now; the same Analysis when nothing differs. A tag or status that is not one of ours
    is refused by the Note itself (RecordError)."""
    old = note_by_id(analysis, note_id)
    if "text" in changes:
        changes["text"] = changes["text"].strip()
    if "drawing" in changes:
        changes["drawing"] = tuple(changes["drawing"])
    if "frame" in changes or "end_frame" in changes:
        frame = changes.get("frame", old.frame)
        end = changes.get("end_frame", old.end_frame)
        end = None if end == frame else end
        check_in_video(analysis, frame, end)
        changes.update(frame=frame, time=frame_time(frame, analysis.video.fps), end_frame=end,
                       end_time=None if end is None else frame_time(end, analysis.video.fps))
    new = replace(old, **changes)
    if not new.text and not new.drawing:
        raise RecordError(None, "a note needs text or a drawing")
    if new == old:
        return analysis
    new = replace(new, changed=now())
    return replace(analysis, notes=_ordered(new if n.id == note_id else n for n in analysis.notes))


def delete_note(analysis: Analysis, note_id: str, author: str | None = None) -> Analysis:
    """Without the note; its deletion is kept (``deleted_notes``), with when and by whom
    (``author``, default the reviewer's name), so that merging a copy that still has it
    (another reviewer's, in the team library) does not bring it back."""
    note_by_id(analysis, note_id)
    deletion = NoteDeletion(note_id, now(), reviewer_name() if author is None else author)
    deleted = [d for d in analysis.deleted_notes if d.id != note_id] + [deletion]
    return replace(analysis, notes=tuple(n for n in analysis.notes if n.id != note_id),
                   deleted_notes=tuple(sorted(deleted, key=lambda d: d.id)))


@dataclass
class MergeReport:
    """What merging notes did: counts, and one line per note both sides had changed."""

    added: int = 0
    updated: int = 0  # theirs was the later change
    kept: int = 0  # ours was the later change
    unchanged: int = 0
    conflicts: list[str] = field(default_factory=list)

    def summary(self) -> str:
        parts = [f"{self.added} added", f"{self.updated} updated", f"{self.unchanged} already here"]
        if self.kept:
            parts.append(f"{self.kept} kept as here (changed later here)")
        return ", ".join(parts)


def merge_notes(analysis: Analysis, incoming: Iterable[Note]) -> tuple[Analysis, MergeReport]:
    """``analysis`` with ``incoming`` notes merged in by id. A note on both sides that
    differs is a conflict: the later ``changed`` wins (ours on a tie) and it is reported.
    A note deleted here that is imported comes back, as changed now (so that the team
    library's copies, which left it out, take it back). Every incoming note must lie
    inside the video (RecordError otherwise, nothing merged)."""
    report = MergeReport()
    ours = {n.id: n for n in analysis.notes}
    deletions = {d.id: d for d in analysis.deleted_notes}
    fps = analysis.video.fps
    for note in incoming:
        check_in_video(analysis, note.frame, note.end_frame)
        mine = ours.get(note.id)
        if mine is None:
            if deletions.pop(note.id, None) is not None:
                note = replace(note, changed=now())
            ours[note.id] = note
            report.added += 1
        elif mine == note:
            report.unchanged += 1
        else:
            theirs_later = note.changed > mine.changed
            where = format_time(note.time, fps)
            report.conflicts.append(
                f"note at {where} ({_short(mine.text or note.text)}) was changed on both sides: kept "
                f"{'the imported one' if theirs_later else 'this one'}, changed later "
                f"({note.changed if theirs_later else mine.changed})")
            if theirs_later:
                ours[note.id] = note
                report.updated += 1
            else:
                report.kept += 1
    return replace(analysis, notes=_ordered(ours.values()), deleted_notes=tuple(deletions.values())), report


def merge_copies(base: Analysis, other: Analysis) -> Analysis:
    """Two copies of one video's review as one (this window's and the team library's):
    ``base`` with the notes of ``other`` merged in. Of two versions of one note the later
    change is kept, and a note is left out where a deletion of it came later than its last
    change (a last-writer-wins set)."""
    deletions: dict[str, NoteDeletion] = {}
    for deletion in (*base.deleted_notes, *other.deleted_notes):
        if deletion.id not in deletions or deletion.deleted > deletions[deletion.id].deleted:
            deletions[deletion.id] = deletion
    notes = {n.id: n for n in base.notes}
    for note in other.notes:
        if note.id not in notes or note.changed > notes[note.id].changed:
            notes[note.id] = note
    kept = {n.id: n for n in notes.values() if n.id not in deletions or n.changed > deletions[n.id].deleted}
    deleted = tuple(sorted((d for d in deletions.values() if d.id not in kept), key=lambda d: d.id))
    return replace(base, notes=_ordered(kept.values()), deleted_notes=deleted)


def _short(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return f"“{text}”" if len(text) <= limit else f"“{text[:limit - 1]}…”"
