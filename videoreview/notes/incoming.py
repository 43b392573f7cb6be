"""What every notes reader gives: the notes found in a file, made to fit this video, and
the lines the user should read (a converted frame rate, an unknown colour)."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from ..records import NOTE_TAGS, Analysis, Note
from ..timecode import frame_time
from .changes import stamp


@dataclass
class Incoming:
    notes: list[Note] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)


def foreign_id(*parts: object) -> str:
    """An id for a marker that came without one (an editor's), the same each time the
    same file is imported, so importing it twice does not duplicate its notes."""
    return "m" + hashlib.sha1("\x1f".join(map(str, parts)).encode("utf-8")).hexdigest()[:24]


def file_time(path: str | os.PathLike) -> str:
    """The file's modification time, as the change time of notes from formats that carry
    none (a note both sides changed is then settled by when the file was written)."""
    return stamp(datetime.fromtimestamp(os.stat(path).st_mtime, UTC))


def converted_frame(frame: int, from_fps: float, analysis: Analysis) -> int:
    """The frame of this video at the time ``frame`` has at ``from_fps``."""
    fps = analysis.video.fps
    return frame if abs(from_fps - fps) < 1e-6 else round(frame / from_fps * fps)


def at_rate(note: Note, from_fps: float, analysis: Analysis) -> Note:
    """``note`` (frames counted at ``from_fps``) on this video's frames and times."""
    frame = converted_frame(note.frame, from_fps, analysis)
    end = None if note.end_frame is None else converted_frame(note.end_frame, from_fps, analysis)
    return replace(note, frame=frame, time=frame_time(frame, analysis.video.fps), end_frame=end,
                   end_time=None if end is None else frame_time(end, analysis.video.fps))


def rate_messages(path, rates, analysis: Analysis) -> list[str]:
    """A line for each rate in ``rates`` (the file's) that is not this video's: its notes
    were converted to this video's frames."""
    fps = analysis.video.fps
    return [f"{path}: its times are at {rate:g} fps and this video is {fps:g} fps: "
            "converted to this video's frames (same times, nearest frame)"
            for rate in rates if abs(rate - fps) >= 1e-3]


def tag_for(colour: str, path, messages: list[str]) -> str:
    """Our tag for an editor's marker colour; an unknown one becomes blue, said once."""
    name = colour.strip().lower().removeprefix("resolvecolor")
    aliases = {"magenta": "pink", "fuchsia": "pink", "rose": "pink", "lavender": "purple", "violet": "purple",
               "sky": "cyan", "mint": "green", "lemon": "yellow", "orange": "yellow"}
    name = aliases.get(name, name)
    if name in NOTE_TAGS:
        return name
    line = f"{path}: marker colour {colour!r} is not one of {', '.join(NOTE_TAGS)}: tagged blue"
    if line not in messages:
        messages.append(line)
    return "blue"
