"""Notes as CSV, one row per note, with columns like Frame.io's comment export (for a
spreadsheet or a tracker). Frames are what an import trusts; the timecodes are for people
(or for a file that has no frame columns). Drawings do not travel in CSV."""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

from ..errors import RecordError
from ..records import Analysis, Note, write_atomic
from ..smpte import frame_of, timecode
from ..timecode import frame_time
from .incoming import Incoming, at_rate, file_time, foreign_id, rate_messages, tag_for

COLUMNS = ("ID", "Timecode In", "Timecode Out", "Frame In", "Frame Out", "FPS", "Tag", "Status", "Author",
           "Comment", "Created", "Changed")
RESOLVED = {"resolved", "complete", "completed", "done", "true", "yes", "1"}


def write(analysis: Analysis, notes: tuple[Note, ...], path: str | os.PathLike) -> None:
    fps = analysis.video.fps
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    for n in notes:
        writer.writerow([n.id, timecode(n.frame, fps), timecode(n.last_frame, fps) if n.is_range else "",
                         n.frame, n.end_frame if n.is_range else "", f"{fps:.6g}", n.tag, n.status, n.author,
                         n.text, n.created, n.changed])
    write_atomic(Path(path), out.getvalue().encode("utf-8-sig"))  # the BOM: spreadsheets then read UTF-8


def read(analysis: Analysis, path: str | os.PathLike) -> Incoming:
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise RecordError(path, "not a CSV file (not UTF-8 text)") from None
    rows = list(csv.DictReader(io.StringIO(text)))
    header = set(rows[0]) if rows else set(next(csv.reader(io.StringIO(text)), []))
    if "Comment" not in header or not header & {"Frame In", "Timecode In"}:
        raise RecordError(path, "not a notes CSV (its first row needs the columns Comment and Frame In "
                                "or Timecode In)")
    incoming = Incoming()
    changed = file_time(path)
    rates = set()
    for number, row in enumerate(rows, start=2):
        try:
            incoming.notes.append(_note(row, analysis, path, changed, rates, incoming.messages))
        except (RecordError, ValueError) as exc:
            raise RecordError(path, f"row {number}: {getattr(exc, 'reason', exc)}") from None
    incoming.messages += rate_messages(path, rates, analysis)
    return incoming


def _note(row: dict, analysis: Analysis, path, changed: str, rates: set, messages: list[str]) -> Note:
    def cell(name: str) -> str:
        return (row.get(name) or "").strip()

    fps = float(cell("FPS") or analysis.video.fps)
    rates.add(fps)
    frame = int(cell("Frame In")) if cell("Frame In") else frame_of(cell("Timecode In"), fps)
    end = (int(cell("Frame Out")) if cell("Frame Out") else
           frame_of(cell("Timecode Out"), fps) if cell("Timecode Out") else None)
    text = (row.get("Comment") or "").strip()
    note = Note(id=cell("ID") or foreign_id("csv", frame, end, text), time=frame_time(frame, fps), frame=frame,
                text=text, end_frame=end if end != frame else None,
                tag=tag_for(cell("Tag"), path, messages) if cell("Tag") else "blue",
                status="resolved" if cell("Status").lower() in RESOLVED else "open",
                author=cell("Author"), created=cell("Created") or changed, changed=cell("Changed") or changed)
    return at_rate(note, fps, analysis)
