"""Our own notes file: every field of every note, drawings included, with the video's
name, content hash and frame rate. A saved Analysis (.analysis.json) is read too."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..errors import RecordError
from ..records import Analysis, Note, read_json, write_atomic
from .incoming import Incoming, at_rate, rate_messages

VERSION = 1  # of the notes file; a newer one is refused


def write(analysis: Analysis, notes: tuple[Note, ...], path: str | os.PathLike) -> None:
    info = analysis.video
    data = {"videoreview_notes": VERSION,
            "video": {"name": Path(info.path).name, "content_hash": analysis.content_hash, "fps": info.fps,
                      "frame_count": info.frame_count},
            "notes": [n.to_dict() for n in notes]}
    write_atomic(Path(path), json.dumps(data, indent=2, ensure_ascii=False).encode("utf-8"))


def read(analysis: Analysis, path: str | os.PathLike) -> Incoming:
    data = read_json(path)
    if isinstance(data, dict) and "schema_version" in data:  # a saved Analysis
        try:
            other = Analysis.from_dict(data)
        except RecordError as exc:
            raise RecordError(path, exc.reason) from None
        fps, notes = other.video.fps, other.notes
    elif isinstance(data, dict) and "videoreview_notes" in data:
        version = data["videoreview_notes"]
        if not isinstance(version, int) or version > VERSION:
            raise RecordError(path, f"notes file version {version} was written by a newer videoreview "
                                    f"(this one reads up to {VERSION})")
        video = data.get("video") or {}
        fps = video.get("fps") or analysis.video.fps
        items = data.get("notes")
        if not isinstance(items, list):
            raise RecordError(path, "'notes' must be a list")
        try:
            notes = tuple(Note.from_dict(item) for item in items)
        except RecordError as exc:
            raise RecordError(path, exc.reason) from None
    else:
        raise RecordError(path, "not a videoreview notes file (no 'videoreview_notes') nor a saved Analysis")
    incoming = Incoming([at_rate(n, fps, analysis) for n in notes])
    if notes:
        incoming.messages += rate_messages(path, [fps], analysis)
    return incoming
