"""The reviewed analysis in annotation tools' and data sets' formats, and corrections made
there brought back: the one table of formats that ``videoreview export`` / ``import`` and
the window's Export and Import menus use. A new format is a module here and one row below.

    format                  written as                                 read back
    cvat                    CVAT for video 1.1 XML (annotations.xml)    yes
    mot_seq                 MOT Challenge sequence (gt/gt.txt, ...)     yes
    coco_instances          COCO instances per sampled frame            no
    coco_person_keypoints   COCO person keypoints per sampled frame     no
    label-studio            Label Studio's JSON tasks for video         yes
    kinetic-geb             Kinetic-GEB+ boundaries with their captions yes
    micap                   MICap's identities across a set of clips    no

Each writer fills a folder as the owning tool's importer finds it, and returns the
warnings the user should read. Each reader turns a file into reviewer edits (``Edit``): the
command line applies them in order, the window makes each one undo step.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..capabilities import resolve
from ..errors import VideoReviewError
from ..records import Analysis


class AnnotationError(VideoReviewError):
    """A file that cannot be read back, in one line: the file, where in it, what is wrong."""

    def __init__(self, path: str | os.PathLike, where: str, problem: str) -> None:
        self.path = os.fspath(path)
        super().__init__(f"{self.path}: {where + ': ' if where else ''}{problem}")


@dataclass(frozen=True)
class Edit:
    """One correction read from a file: what the undo menu says, the change, who made it."""

    text: str
    change: Callable[[Analysis], Analysis]
    author: str = ""


@dataclass(frozen=True)
class Format:
    name: str
    write: str  # "module:function" in this package: (analysis, folder, options) -> warnings
    read: str | None  # "module:function": (analysis, path) -> list[Edit]; None: export only
    carries: str  # what is written, for the user
    leaves_out: str  # what is not, and why
    file: str = ""  # the file in the written folder that ``read`` reads back


@dataclass(frozen=True)
class Options:
    video: str | os.PathLike | None = None  # where frames are decoded from (--frames)
    frames: bool = False  # write the sampled frames' pictures beside the annotations (COCO)


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("cvat", "cvat:write", "cvat:read",
           "object, face and body tracks (identity as an attribute, a body's keypoints as a points track "
           "beside its box), boundaries and captions as boxes over the picture on their frames, and "
           "labels.json to make the CVAT task with",
           "speech, on-screen text, notes and expressions: CVAT for video has no place for text over time; "
           "keypoints, face boxes, tracks drawn in CVAT and added or deleted captions are not read back",
           file="annotations.xml"),
    Format("mot_seq", "mot:write", "mot:read",
           "object, face and body tracks as ground truth (gt/gt.txt, gt/labels.txt, seqinfo.ini), "
           "each track one id, frames from 1",
           "identities, keypoints, scores and captions: MOT has a box and a class a line, nothing more; "
           "no pictures (img1/ would be every frame)",
           file="gt/gt.txt"),
    Format("coco_instances", "coco:write_instances", None,
           "object and face boxes of each sampled frame, COCO's category ids, the track id as an attribute; "
           "with --frames the frames' pictures",
           "body tracks (the person keypoints file has them; here they would count each person twice), "
           "masks, time: COCO has images, not tracks, so nothing is read back"),
    Format("coco_person_keypoints", "coco:write_person_keypoints", None,
           "each sampled body: its box and COCO's 17 keypoints (visible where scored 0.3 or more), "
           "the track id as an attribute; with --frames the frames' pictures",
           "objects and faces (coco_instances has them), masks, time: nothing is read back"),
    Format("label-studio", "label_studio:write", "label_studio_read:read",
           "a task for the video (tasks.json) and the project's labelling configuration (label_config.xml): "
           "object, face and body tracks as video rectangles with their keyframes, identities, boundaries "
           "with their captions, frame captions and speech with its speaker as timeline labels with text, "
           "all as a prediction to correct",
           "on-screen text, shot tags, expressions, summaries and notes (no region of a video holds them), "
           "body keypoints (no points over time in Label Studio's video tags), boxes between samples "
           "(Label Studio interpolates); read back: keyframes the tracks had no box at, new tracks, "
           "deleted or moved caption and speech spans (they follow the samples and the sound)",
           file="tasks.json"),
    Format("kinetic-geb", "kinetic_geb:write", "kinetic_geb:read",
           "the boundaries as Kinetic-GEB+'s (kinetic_geb.json): timestamp, type, subject, status before "
           "and status after",
           "the app's boundary kinds and confidences (GEB+ types say what changed: an event is written a "
           "change of action, a cut or gradual change 'Multiple'; types are not read back), tracks, captions "
           "and speech: the data set has boundaries only",
           file="kinetic_geb.json"),
    Format("micap", "micap:write", None,
           "identities across the video's clips as MICap's sets of clips (micap.json): per clip its "
           "captions with people as P-ids, the P-ids seen and mentioned",
           "boxes and tracks (MICap links ids to captions, not faces); nothing is read back: a data set's "
           "file, not edited in a tool, and its ids are not tied to faces"),
)}


def _function(name: str):
    return resolve(f"annotations.{name}")  # a row's "module:function", imported when used


def format_named(name: str) -> Format:
    if name not in FORMATS:
        raise VideoReviewError(f"no annotation format {name!r} (formats: {', '.join(FORMATS)})")
    return FORMATS[name]


def export_annotations(analysis: Analysis, name: str, folder: str | os.PathLike,
                       options: Options = Options()) -> list[str]:
    """Write ``analysis`` in format ``name`` into ``folder`` (made if missing); the warnings."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    return _function(format_named(name).write)(analysis, Path(folder), options)


def read_annotations(analysis: Analysis, path: str | os.PathLike, name: str | None = None) -> list[Edit]:
    """The reviewer edits that bring ``analysis`` to what the file at ``path`` says (its
    format ``name``, else guessed from the file)."""
    chosen = format_named(name) if name else guess_format(Path(path))
    if chosen.read is None:
        raise AnnotationError(path, "", f"{chosen.name} files are written, not read back")
    return _function(chosen.read)(analysis, Path(path))


def guess_format(path: Path) -> Format:
    """The format a file is in, by its name and its first bytes."""
    if path.name.lower() in ("gt.txt", "seqinfo.ini") or (path / "gt" / "gt.txt").is_file():
        return format_named("mot_seq")
    if path.name.lower() == "kinetic_geb.json" or (path / "kinetic_geb.json").is_file():
        return format_named("kinetic-geb")
    if path.name.lower() == "tasks.json" or (path / "tasks.json").is_file():
        return format_named("label-studio")
    try:
        head = path.read_bytes()[:4096].lstrip()
    except OSError as exc:
        raise AnnotationError(path, "", exc.strerror or str(exc)) from None
    if path.suffix.lower() == ".xml" or head.startswith(b"<"):
        return format_named("cvat")
    if re.match(rb"\d+ *, *-?\d+ *,", head):  # MOT's "frame, id, ..." lines
        return format_named("mot_seq")
    if head[:1] == b"{" and re.search(rb'"(boundary_id|status_before)"', head):  # GEB+'s boundaries
        return format_named("kinetic-geb")
    if head[:1] in (b"[", b"{") and re.search(rb'"(data|annotations|predictions)"', head):  # Label Studio's tasks
        return format_named("label-studio")
    raise AnnotationError(path, "", "not a file of a format this reads (" +
                          ", ".join(f.name for f in FORMATS.values() if f.read) + ")")


def check_video(analysis: Analysis, path: str | os.PathLike, where: str, width: int | None, height: int | None,
                frames: int | None) -> None:
    """Refuse a file made for another video: a different picture size or frame count."""
    info = analysis.video
    theirs = (width, height, frames)
    ours = (info.width, info.height, info.frame_count)
    if any(t is not None and t != o for t, o in zip(theirs, ours)):
        said = f"{width}x{height}" if width and height else "an unknown size"
        raise AnnotationError(path, where, f"made for a {said} video of {frames} frames; this one is "
                                           f"{info.width}x{info.height}, {info.frame_count} frames")
