"""Kinetic-GEB+ boundaries (showlab/GEB-Plus's annotation files): the analysis's boundaries
with their Subject / Status Before / Status After captions, in ``kinetic_geb.json``, and
that file read back as reviewer edits.

The layout is the data set's: an object keyed by the video's id (here the file's name
without its extension), each a list of boundaries in time order:

    boundary_id     "<video>_<n>A": the n-th boundary, its first caption (GEB+ letters
                    each annotator's caption of one boundary A, B, ...)
    timestamp       seconds; prev_timestamp / next_timestamp: the boundaries either side
                    (0 before the first, the video's length after the last)
    label           the boundary's type: Change of Action, Change of Subject, Change of
                    Object Being Interacted, Change of Color, Multiple
    subject, status_before, status_after, and caption ("Subject: .. //Status_Before: ..
                    //Status_After: ..", as the data set's captioning code reads it)
    action_of_cause null (the data set's, for a change with a visible cause)

The app's boundaries have no GEB+ type: an event is written "Change of Action" (most of the
data set's), a cut or a gradual shot change "Multiple" (everything on screen changes at
once; GEB+ itself has none, its annotators turned down videos with cuts). A boundary
without a caption has empty texts. Not written: the app's kinds, confidences and engines.

Read back: a boundary whose entry is gone is deleted, one whose timestamp changed moves,
a changed subject / status before / status after (or caption) is the reviewer's caption,
an entry with an id not written (or none) adds an event boundary. Types are not read
back (they do not say cut, gradual or event). The file must be for this video: the last
boundary's next_timestamp is the video's length.
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path

from ..errors import VideoReviewError
from ..pipeline import edits
from ..records import Analysis, Boundary, BoundaryCaption
from ..timecode import frame_at, frame_time
from . import AnnotationError, Edit, Options
from .json_files import dump, load, mapping, number, text

TYPES = ("Change of Action", "Change of Subject", "Change of Object Being Interacted", "Change of Color", "Multiple")
TYPE_OF_KIND = {"event": "Change of Action", "cut": "Multiple", "gradual": "Multiple"}
ID = re.compile(r"(.*)_(\d+)([A-Z])$")
PARTS = ("subject", "status_before", "status_after")


def video_id(analysis: Analysis) -> str:
    return Path(analysis.video.path).stem or "video"


def caption_text(subject: str, before: str, after: str) -> str:
    return f"Subject: {subject} //Status_Before: {before} //Status_After: {after}"


def entries(analysis: Analysis) -> list[dict]:
    """The analysis's boundaries as GEB+ entries, in time order."""
    vid, times = video_id(analysis), [b.time for b in analysis.boundaries]
    found = []
    for n, boundary in enumerate(analysis.boundaries):
        caption = boundary.caption
        parts = (caption.subject, caption.before, caption.after) if caption else ("", "", "")
        found.append({"boundary_id": f"{vid}_{n}A", "timestamp": boundary.time,
                      "prev_timestamp": times[n - 1] if n else 0,
                      "next_timestamp": times[n + 1] if n + 1 < len(times) else analysis.video.duration,
                      "label": TYPE_OF_KIND[boundary.kind], **dict(zip(PARTS, parts)),
                      "action_of_cause": None, "caption": caption_text(*parts)})
    return found


def write(analysis: Analysis, folder: Path, options: Options) -> list[str]:
    dump(folder / "kinetic_geb.json", {video_id(analysis): entries(analysis)})
    warnings = ["kinetic-geb: no pictures are written"] if options.frames else []
    if not analysis.boundaries:
        warnings.append("kinetic-geb: the analysis has no boundaries; the video's list is empty")
    return warnings


# -- reading ---------------------------------------------------------------------------------

def read(analysis: Analysis, path: Path) -> list[Edit]:
    file = path / "kinetic_geb.json" if path.is_dir() else path
    data = load(file)
    vid = video_id(analysis)
    if not isinstance(data, dict) or not data or not all(isinstance(v, list) for v in data.values()):
        raise AnnotationError(file, "", "not Kinetic-GEB+ boundaries (an object of videos, each a list)")
    if vid not in data and len(data) > 1:
        raise AnnotationError(file, "", f"{len(data)} videos, none named {vid}")
    key = vid if vid in data else next(iter(data))
    given = [parsed(analysis, file, f"{key} boundary {k}", item) for k, item in enumerate(data[key], 1)]
    if given:
        length = given[-1]["next"]
        if length is not None and abs(length - analysis.video.duration) > max(0.05, 1.5 / analysis.video.fps):
            raise AnnotationError(file, key, f"made for a video of {length:g} s; this one is "
                                             f"{analysis.video.duration:g} s")
    found = changes(analysis, key, given)
    tried(analysis, file, found)
    return found


def parsed(analysis: Analysis, path: Path, where: str, item) -> dict:
    item = mapping(path, where, item, "a boundary")
    bid = item.get("boundary_id")
    where = f"{where} ({bid})" if isinstance(bid, str) else where
    seconds = number(path, where, item.get("timestamp"), "its timestamp")
    if not 0 <= seconds <= analysis.video.duration + 1 / analysis.video.fps:
        raise AnnotationError(path, where, f"timestamp {seconds:g} s is outside the video "
                                           f"(0 to {analysis.video.duration:g} s)")
    label = item.get("label")
    if label is not None and label not in TYPES:
        raise AnnotationError(path, where, f"unknown boundary type {str(label)[:60]!r} ({', '.join(TYPES)})")
    parts = tuple(" ".join(text(path, where, item.get(k) or "", k).split()) for k in PARTS)
    if not any(parts) and item.get("caption"):
        parts = split_caption(path, where, text(path, where, item["caption"], "its caption"))
    after = item.get("next_timestamp")
    return {"id": bid if isinstance(bid, str) else None, "where": where, "frame": frame_at(
        seconds, analysis.video.fps, analysis.video.frame_count), "parts": parts,
        "next": number(path, where, after, "next_timestamp") if after is not None else None}


def split_caption(path: Path, where: str, caption: str) -> tuple[str, str, str]:
    found = re.fullmatch(r"\s*Subject:(.*)//\s*Status_Before:(.*)//\s*Status_After:(.*)", caption, re.S)
    if not found:
        raise AnnotationError(path, where, "its caption is not 'Subject: .. //Status_Before: .. //Status_After: ..'")
    return tuple(" ".join(part.split()) for part in found.groups())  # type: ignore[return-value]


def changes(analysis: Analysis, key: str, given: list[dict]) -> list[Edit]:
    written = {f"{key}_{n}A": b for n, b in enumerate(analysis.boundaries)}
    kept = {g["id"]: g for g in given if g["id"] in written}
    gone = [Edit(f"Kinetic-GEB+: delete the boundary at frame {b.frame}",
                 partial(edits.delete_boundary, frame=b.frame)) for bid, b in written.items() if bid not in kept]
    moved, captioned = [], []
    for bid, entry in kept.items():
        boundary = written[bid]
        if entry["frame"] != boundary.frame:
            moved.append(Edit(f"Kinetic-GEB+: move the boundary at frame {boundary.frame} to frame {entry['frame']}",
                              partial(edits.move_boundary, frame=boundary.frame,
                                      seconds=frame_time(entry["frame"], analysis.video.fps))))
        moved_away = entry["frame"] != boundary.frame
        if entry["parts"] != parts_of(boundary) and (any(entry["parts"]) or not moved_away):
            captioned.append(caption_edit(entry))
    added = [Edit(f"Kinetic-GEB+: add a boundary at frame {g['frame']}",
                  partial(edits.add_boundary, seconds=frame_time(g["frame"], analysis.video.fps), kind="event",
                          caption=BoundaryCaption(*g["parts"], engine=edits.REVIEWER) if all(g["parts"]) else None))
             for g in given if g["id"] not in kept]
    return [*gone, *moved, *added, *captioned]


def parts_of(boundary: Boundary) -> tuple[str, str, str]:
    c = boundary.caption
    return tuple(" ".join(p.split()) for p in (c.subject, c.before, c.after)) if c else ("", "", "")  # type: ignore


def caption_edit(entry: dict) -> Edit:
    subject, before, after = entry["parts"]
    return Edit(f"Kinetic-GEB+: the boundary at frame {entry['frame']}: {subject} / {before} / {after}",
                partial(edits.edit_boundary_caption, frame=entry["frame"], subject=subject, before=before,
                        after=after))


def tried(analysis: Analysis, path: Path, found: list[Edit]) -> None:
    """Each edit applied in turn to a copy: one that cannot be made is refused before anything changes."""
    for edit in found:
        try:
            analysis = edit.change(analysis)
        except (VideoReviewError, LookupError, ValueError) as exc:  # an edit undoing another's ground
            reason = getattr(exc, "reason", None) or str(exc).strip('"')
            raise AnnotationError(path, "", f"{edit.text}: {reason}") from None
