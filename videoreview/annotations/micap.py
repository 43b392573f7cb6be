"""MICap's identity-aware captions (katha-ai's Movie Identity Captioner, on LSMDC's
fill-in-the-characters sets): the video cut into clips, sets of consecutive clips, and per
clip its captions and the people in it by local id (P1, P2, ...), in ``micap.json``.

Clips: LSMDC's are 2 to 5 s; here a clip is a shot (between cuts and gradual changes), cut
into equal pieces of at most CLIP_SECONDS, named as LSMDC names them
("<movie>_hh.mm.ss.mmm-hh.mm.ss.mmm"). Sets (``groups``) are SET_SIZE consecutive clips, as
MICap's videosets of 5 (the last may be shorter). Per clip (``videos``):

    clip, movie, start, end, start_frame, end_frame
    captions        the frame captions in it (frame, time, text), a reviewer's name for
                    someone written as their P-id, MICap's local id
    caption         those captions as one
    identities      the P-ids seen in it (faces, and bodies a face named), in order of
                    first appearance
    character_id    the P-ids the caption mentions, in order (MICap's blanks), num_blanks
    caption_blanks  the caption with each mention a blank ("_____"), the fill-in task's input

``people``: each P-id with the reviewer's name for it and its face tracks. The P-ids are the
analysis's, shared by every clip and set of the video; MICap renumbers them from P1 in
each set before scoring, so they need not start at P1 there.

Written, not read back: MICap's files are a data set's, made for training and scoring, not
edited in a tool; and a caption's P-id is not tied to a face there, so a changed id could not
be turned into a correction of a face track.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..records import Analysis
from . import Options
from .json_files import dump

CLIP_SECONDS = 5.0
SET_SIZE = 5
BLANK = "_____"
PID = re.compile(r"\bP\d+\b")


def write(analysis: Analysis, folder: Path, options: Options) -> list[str]:
    dump(folder / "micap.json", layout(analysis))
    warnings = ["micap: no pictures are written"] if options.frames else []
    if not analysis.identities:
        warnings.append("micap: the analysis has no identities (no faces were grouped into people)")
    return warnings


def layout(analysis: Analysis) -> dict:
    clips = [clip(analysis, start, end) for start, end in spans(analysis)]
    groups = [{"id": n, "videos": list(range(k, min(k + SET_SIZE, len(clips))))}
              for n, k in enumerate(range(0, len(clips), SET_SIZE))]
    people = {i.id: {"name": i.name, "tracks": list(i.track_ids)} for i in analysis.identities}
    info = analysis.video
    return {"movie": movie(analysis), "video": info.path, "fps": info.fps, "duration": info.duration,
            "people": people, "videos": clips, "groups": groups}


def movie(analysis: Analysis) -> str:
    return Path(analysis.video.path).stem or "video"


def spans(analysis: Analysis) -> list[tuple[float, float]]:
    """The clips' (start, end): each shot in equal pieces of at most CLIP_SECONDS."""
    duration = analysis.video.duration
    edges = [0.0, *[t for t in analysis.shot_changes() if 0 < t < duration], duration]
    found = []
    for start, end in zip(edges, edges[1:]):
        pieces = max(1, int(-(-(end - start) // CLIP_SECONDS)))
        step = (end - start) / pieces
        found += [(round(start + k * step, 3), round(start + (k + 1) * step, 3)) for k in range(pieces)]
    return [(s, e) for s, e in found if e > s]


def stamp(seconds: float) -> str:
    ms = round(seconds * 1000)
    return f"{ms // 3_600_000:02d}.{ms // 60_000 % 60:02d}.{ms // 1000 % 60:02d}.{ms % 1000:03d}"


def with_ids(analysis: Analysis, text: str) -> str:
    """``text`` with each reviewer's name for someone written as their P-id."""
    for person in analysis.identities:
        if person.name:
            text = re.sub(rf"\b{re.escape(person.name)}\b", person.id, text)
    return text


def seen(analysis: Analysis, start: float, end: float) -> list[str]:
    """P-ids on screen in [start, end): faces, then bodies a face named, by first appearance."""
    found = [(f.time, f.identity) for f in analysis.faces if f.identity and start <= f.time < end]
    found += [(max(p.start, start), p.identity) for p in analysis.poses if p.identity and p.start < end
              and p.end > start]
    return list(dict.fromkeys(pid for _, pid in sorted(found)))


def clip(analysis: Analysis, start: float, end: float) -> dict:
    info = analysis.video
    captions = [{"frame": c.frame, "time": c.time, "text": with_ids(analysis, c.text)}
                for c in analysis.captions if start <= c.time < end]
    caption = " ".join(c["text"] for c in captions)
    mentioned = PID.findall(caption)
    return {"clip": f"{movie(analysis)}_{stamp(start)}-{stamp(end)}", "movie": movie(analysis),
            "start": start, "end": end, "start_frame": min(int(start * info.fps + 1e-6), info.frame_count - 1),
            "end_frame": min(int(end * info.fps + 1e-6), info.frame_count) - 1, "captions": captions,
            "caption": caption, "identities": seen(analysis, start, end), "character_id": mentioned,
            "num_blanks": len(mentioned), "caption_blanks": PID.sub(BLANK, caption)}
