"""Notes to and from files, the format chosen by the file's suffix.

Export: .json (ours, everything), .csv, .srt, .vtt, .otio, .edl (Resolve's marker EDL),
.xml (Final Cut Pro 7 / Premiere) and .fcpxml. Import: .json (also a saved Analysis),
.csv, .edl and .otio, merged into the video's notes by note id (changes.merge_notes).
An import is all or nothing: a file with any note that cannot be placed changes nothing.
"""

from __future__ import annotations

import os
from dataclasses import fields, replace
from pathlib import Path

from ..errors import RecordError
from ..records import Analysis, Note
from ..summary.export.subtitles import Cue, write_srt, write_vtt
from . import csv_notes, edl, final_cut, json_notes, otio_notes
from .changes import MergeReport, merge_notes

POINT_CUE_SECONDS = 3.0  # how long a note at one frame stays up as a subtitle


def _subtitle_cues(analysis: Analysis, notes: tuple[Note, ...]) -> list[Cue]:
    step = 1 / analysis.video.fps
    end_of_video = analysis.video.duration
    cues = []
    for n in notes:
        end = (n.end_time + step) if n.is_range else min(n.time + POINT_CUE_SECONDS, end_of_video)
        mark = "✓ " if n.status == "resolved" else ""
        text = n.text or "(drawing)"
        cues.append(Cue(n.time, max(end, n.time + step), f"{mark}{n.author}: {text}" if n.author else mark + text))
    return cues


WRITERS = {
    ".json": json_notes.write,
    ".csv": csv_notes.write,
    ".srt": lambda analysis, notes, path: write_srt(_subtitle_cues(analysis, notes), path),
    ".vtt": lambda analysis, notes, path: write_vtt(_subtitle_cues(analysis, notes), path),
    ".otio": otio_notes.write,
    ".edl": edl.write,
    ".xml": final_cut.write_fcp7,
    ".fcpxml": final_cut.write_fcpxml,
}
EVERYTHING = frozenset(f.name for f in fields(Note))
# What each readable format carries of a note; the rest of a note already here is kept.
READERS = {
    ".json": (json_notes.read, EVERYTHING),
    ".csv": (csv_notes.read, EVERYTHING - {"drawing"}),
    ".edl": (edl.read, frozenset({"time", "frame", "end_time", "end_frame", "text", "tag", "status", "author"})),
    ".otio": (otio_notes.read, EVERYTHING),
}


def export_notes(analysis: Analysis, path: str | os.PathLike, notes: tuple[Note, ...] | None = None) -> None:
    """Write ``notes`` (default: all the video's notes) to ``path`` in the format its suffix names."""
    writer = WRITERS.get(Path(path).suffix.lower())
    if writer is None:
        raise RecordError(path, f"cannot write notes as {Path(path).suffix or 'a file without a suffix'} "
                                f"(one of {', '.join(WRITERS)})")
    writer(analysis, analysis.notes if notes is None else notes, path)


def import_notes(analysis: Analysis, path: str | os.PathLike) -> tuple[Analysis, MergeReport, list[str]]:
    """``analysis`` with the notes of ``path`` merged in, what the merge did, and the lines
    the user should read (converted frame rates, unknown colours, conflicts). RecordError,
    naming the file, when it cannot be read as its suffix says or a note falls outside the video."""
    reader, carried = READERS.get(Path(path).suffix.lower(), (None, None))
    if reader is None:
        raise RecordError(path, f"cannot read notes from {Path(path).suffix or 'a file without a suffix'} "
                                f"(one of {', '.join(READERS)})")
    if not Path(path).is_file():
        raise RecordError(path, "file not found")
    incoming = reader(analysis, path)
    ours = {n.id: n for n in analysis.notes}
    notes = [_completed(n, ours[n.id], carried) if n.id in ours else n for n in incoming.notes]
    try:
        merged, report = merge_notes(analysis, notes)
    except RecordError as exc:
        raise RecordError(path, exc.reason) from None
    return merged, report, incoming.messages + report.conflicts


def _completed(theirs: Note, mine: Note, carried: frozenset) -> Note:
    """``theirs`` with what its format does not carry taken from ``mine``; exactly ``mine``
    when what it carries is the same (an EDL flattens the text onto one line)."""
    if carried == EVERYTHING:
        return theirs
    if edl.flatten(mine.text) == theirs.text:
        theirs = replace(theirs, text=mine.text)
    same = all(getattr(theirs, name) == getattr(mine, name) for name in carried)
    return mine if same else replace(mine, **{name: getattr(theirs, name) for name in carried | {"changed"}})
