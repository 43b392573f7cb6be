"""Notes as a CMX 3600 EDL in the layout DaVinci Resolve writes and reads for timeline
markers (Timelines > Export / Import > Timeline Markers to/from EDL): one one-frame event
per marker, followed by the line ``NOTE |C:ResolveColorBlue |M:NAME |D:FRAMES``.

Written here rather than through OpenTimelineIO's cmx_3600 adapter: that adapter writes
markers as Avid ``* LOC`` lines in capitals, without the comment, the colour names or the
duration Resolve reads, and does not read Resolve's lines back. The reader takes both
Resolve's marker lines and Avid's LOC lines.

Timecodes start at 01:00:00:00, the timeline start Resolve gives a new timeline; drop-frame
at 29.97 and 59.94. The title says the frame rate, because an EDL has no field for it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..errors import RecordError
from ..records import Analysis, Note, write_atomic
from ..smpte import exact_rate, frame_of, is_drop_frame, nominal_rate, timecode
from ..timecode import frame_time
from .incoming import Incoming, at_rate, file_time, foreign_id, rate_messages, tag_for

START = "01:00:00:00"
RESOLVE_COLOURS = {"blue": "Blue", "cyan": "Cyan", "green": "Green", "yellow": "Yellow", "red": "Red",
                   "pink": "Pink", "purple": "Purple"}
_TC = r"\d{2}:\d{2}:\d{2}[:;.,]\d{2}"
EVENT = re.compile(rf"^\s*(\d+)\s+\S+\s+\S+\s+\S+\s+(?:\d+\s+)?({_TC})\s+({_TC})\s+({_TC})\s+({_TC})")
MARKER = re.compile(r"\|C:(?P<colour>[^|]*?)\s*\|M:(?P<name>[^|]*?)\s*\|D:(?P<frames>\d+)")
LOCATOR = re.compile(rf"^\*\s*LOC:\s*({_TC})\s+(\w+)\s*(.*)$")
TITLE_RATE = re.compile(r"at ([\d.]+) fps")
ID_AT_END = re.compile(r"(m[0-9a-f]{24}|[0-9a-f]{32})\s*$")


def write(analysis: Analysis, notes: tuple[Note, ...], path: str | os.PathLike) -> None:
    fps = analysis.video.fps
    lines = [f"TITLE: {Path(analysis.video.path).stem} notes at {exact_rate(fps):.6g} fps",
             f"FCM: {'DROP FRAME' if is_drop_frame(fps) else 'NON-DROP FRAME'}", ""]
    for number, n in enumerate(notes, start=1):
        start, after = timecode(n.frame, fps, START), timecode(n.frame + 1, fps, START)
        lines.append(f"{number:03d}  001      V     C        {start} {after} {start} {after}  ")
        text = flatten(n.text)
        name = f"{n.author} ({n.status}) {n.id}".strip()
        lines.append(f"{text} |C:ResolveColor{RESOLVE_COLOURS[n.tag]} |M:{name} |D:{n.last_frame - n.frame + 1}")
        lines.append("")
    write_atomic(Path(path), "\n".join(lines).encode("utf-8"))


def flatten(text: str) -> str:
    """A note's text as a marker line holds it: one line, no "|" (Resolve splits at it)."""
    return " ".join(text.replace("|", "/").split())


def read(analysis: Analysis, path: str | os.PathLike, fps: float | None = None) -> Incoming:
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        try:
            text = Path(path).read_text(encoding="latin-1")
        except OSError as exc:
            raise RecordError(path, f"cannot read it ({exc})") from None
    lines = text.splitlines()
    markers = _markers(lines)
    if not any(EVENT.match(line) for line in lines) and not markers:
        raise RecordError(path, "not an EDL (no events and no markers)")
    incoming = Incoming()
    rate = fps or _rate(lines, markers, analysis, path, incoming.messages)
    start = START if markers and min(tc for tc, *_ in markers)[:2] >= "01" else "00:00:00:00"
    changed = file_time(path)
    for number, (tc, colour, note_text, name, frames) in enumerate(markers, start=1):
        try:
            # Drop-frame or not is the rate's: some tools write ";" and some ":" either way.
            tc = tc[:8] + (";" if is_drop_frame(rate) else ":") + tc[9:]
            frame = frame_of(tc, rate, start)
        except RecordError as exc:
            raise RecordError(path, f"marker {number}: {exc.reason}") from None
        end = frame + frames - 1 if frames > 1 else None
        found = ID_AT_END.search(name)
        author, status = _author_status(name[:found.start()] if found else "")
        note = Note(id=found.group(1) if found else foreign_id("edl", frame, end, note_text, name),
                    time=frame_time(frame, analysis.video.fps), frame=frame, text=note_text or name, end_frame=end,
                    tag=tag_for(colour, path, incoming.messages), status=status, author=author,
                    created=changed, changed=changed)
        incoming.notes.append(at_rate(note, rate, analysis))
    if markers:
        incoming.messages += rate_messages(path, [rate], analysis)
    return incoming


def _markers(lines: list[str]) -> list[tuple[str, str, str, str, int]]:
    """(record timecode, colour, note, name, duration in frames) of each marker, in order."""
    found, event_tc = [], None
    for line in lines:
        event = EVENT.match(line)
        if event:
            event_tc = event.group(4)  # record in
            continue
        marker = MARKER.search(line)
        if marker and event_tc is not None:
            found.append((event_tc, marker["colour"], line[:marker.start()].strip(), marker["name"].strip(),
                          int(marker["frames"])))
            event_tc = None
            continue
        locator = LOCATOR.match(line.strip())
        if locator:
            found.append((locator.group(1), locator.group(2), locator.group(3).strip(), "", 1))
    return found


def _rate(lines: list[str], markers, analysis: Analysis, path, messages: list[str]) -> float:
    """The EDL's frame rate: the one our title states; else this video's, unless the file's
    own timecodes rule it out (drop-frame timecode, or frame numbers the video's rate
    cannot count to), when it is the nearest editors' rate that fits, said in a message."""
    for line in lines[:3]:
        stated = TITLE_RATE.search(line) if line.startswith("TITLE:") else None
        if stated:
            return float(stated.group(1))
    fps = analysis.video.fps
    drop = any("DROP FRAME" in line and "NON-DROP" not in line for line in lines[:5]) or \
        any(";" in tc for tc, *_ in markers)
    highest = max((int(tc[-2:]) for tc, *_ in markers), default=0)
    if drop and not is_drop_frame(fps):
        rate = 60000 / 1001 if highest >= 30 else 30000 / 1001
    elif highest >= nominal_rate(fps):
        rate = next(r for r in (24.0, 25.0, 30.0, 50.0, 60.0, 120.0) if r > highest)
    else:
        return fps
    why = "drop-frame" if drop else f"frame numbers up to {highest}"
    messages.append(f"{path}: its timecodes cannot be at this video's {fps:g} fps ({why}): "
                    f"read at {exact_rate(rate):.5g} fps")
    return rate


def _author_status(name: str) -> tuple[str, str]:
    """Our marker name is "AUTHOR (STATUS) ID"; an editor's is anything."""
    m = re.match(r"^(.*?)\s*\((open|resolved)\)\s*$", name)
    return (m.group(1), m.group(2)) if m else ("", "open")
