"""A CVAT for video 1.1 file (cvat.py writes it) read back: what differs from the analysis,
as reviewer edits (``Edit``), applied in order by the command line, one undo step each in
the window.

Tracks are matched by their ``track`` attribute ("objects 3"), and the file's track must
overlap the analysis's at some frame (else the file was exported before the video was
analysed again, and the track ids name other tracks). Brought back:
- an object track with another COCO label: relabel_track; a body's or a face's label stays.
- a box moved at a frame the analysis has a box of the track at: move_box (objects, bodies).
- a track no longer in the file: delete_track (objects, bodies), not_a_face (faces).
- a face track's identity: when every track of an identity in the file says the same new
  name, the identity is renamed, or merged into the one already called so; when only some
  do, or the track had no identity, that track is split off and named so.
- a body's identity: relabel_track(..., "poses", ...) to the identity it names.
- a caption's text: edit_caption; a boundary deleted, added (a "boundary" box on a frame),
  or its kind or subject / before / after changed: the boundary edits.
Not brought back (the analysis has no edit for them): keypoints, a face's box, boxes on
frames between samples (CVAT's interpolation, or keyframes added there), tracks drawn in
CVAT (no ``track`` attribute), a caption added or deleted, a boundary's caption cleared.

Bad input (damaged XML, CVAT for images or a project, another video, an unknown label, a
frame past the end, a box outside the picture) is one AnnotationError naming the file and
the line; no edit is returned then.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat

from .. import timecode
from ..pipeline import edits as E
from ..pipeline.stages.track_edits import SAME_BOX
from ..records import BOUNDARY_KINDS, Analysis, BoundaryCaption
from ..tracking import iou
from . import AnnotationError, Edit, check_video
from .cvat_layout import (
    BOUNDARY,
    BOUNDARY_FIELDS,
    CAPTION,
    FACE,
    IDENTITY,
    PERSON,
    TEXT,
    TRACK,
    labels,
    track_key,
    written_box,
)
from .tracks import Box, Track, tracks

EDGE = 1.0  # pixels a box may reach past the picture's edge (rounding in the tools)
SHAPES = ("box", "points", "polygon", "polyline", "skeleton", "ellipse", "cuboid", "mask")


@dataclass
class FileTrack:
    label: str
    line: int
    kind: str  # the shapes' element: "box", "points", ...
    boxes: dict[int, Box] = field(default_factory=dict)  # visible frames only
    attributes: dict[str, str] = field(default_factory=dict)  # its first shape's

    @property
    def first(self) -> int | None:
        return min(self.boxes, default=None)


def read(analysis: Analysis, path: Path) -> list[Edit]:
    """The edits that bring ``analysis`` to what the CVAT file at ``path`` says."""
    root = parse(path)
    found = _file_tracks(analysis, path, root)
    boxes = [t for t in found if t.kind == "box" and t.label not in (BOUNDARY, CAPTION)]
    return [*_track_edits(analysis, path, root, boxes),
            *_caption_edits(analysis, path, [t for t in found if t.label == CAPTION]),
            *_boundary_edits(analysis, path, [t for t in found if t.label == BOUNDARY])]


# -- the file -------------------------------------------------------------------------------

class Node:
    """An XML element with the line it starts on (ElementTree keeps no lines)."""

    __slots__ = ("tag", "attrib", "line", "children", "text")

    def __init__(self, tag: str, attrib: dict[str, str], line: int) -> None:
        self.tag, self.attrib, self.line = tag, attrib, line
        self.children: list[Node] = []
        self.text = ""

    def find(self, tag: str) -> Node | None:
        return next((c for c in self.children if c.tag == tag), None)

    def findall(self, tag: str) -> list[Node]:
        return [c for c in self.children if c.tag == tag]


class _Refused(Exception):
    def __init__(self, line: int, what: str) -> None:
        self.line, self.what = line, what


def parse(path: Path) -> Node:
    """The file's element tree, by the standard library's expat. A document type or an
    entity declaration is refused before anything is expanded (CVAT writes neither)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise AnnotationError(path, "", exc.strerror or str(exc)) from None
    parser = expat.ParserCreate()
    parser.buffer_text = True
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[Node] = []
    top: list[Node] = []

    def start(tag, attrib):
        node = Node(tag, attrib, parser.CurrentLineNumber)
        (stack[-1].children if stack else top).append(node)
        stack.append(node)

    def refuse(*_):
        raise _Refused(parser.CurrentLineNumber, "a document type or entity declaration (CVAT writes none)")

    parser.StartElementHandler = start
    parser.EndElementHandler = lambda tag: stack.pop()
    parser.CharacterDataHandler = lambda text: stack and setattr(stack[-1], "text", stack[-1].text + text)
    parser.StartDoctypeDeclHandler = parser.EntityDeclHandler = refuse
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise AnnotationError(path, f"line {exc.lineno}, column {exc.offset + 1}",
                              f"damaged XML: {expat.ErrorString(exc.code)}") from None
    except _Refused as exc:
        raise AnnotationError(path, f"line {exc.line}", exc.what) from None
    return top[0]



def _file_tracks(analysis: Analysis, path: Path, root: Node) -> list[FileTrack]:
    if root.tag != "annotations":
        raise AnnotationError(path, f"line {root.line}", f"not CVAT XML (its root is <{root.tag}>, not <annotations>)")
    meta = root.find("meta")
    task = meta.find("task") if meta is not None else None
    if root.find("image") is not None:
        raise AnnotationError(path, f"line {root.find('image').line}",
                              "CVAT for images: export the task as CVAT for video 1.1")
    if task is None:
        where = meta.find("project") if meta is not None else None
        raise AnnotationError(path, f"line {(where or meta or root).line}",
                              "a CVAT project's export: export the task as CVAT for video 1.1" if where else
                              "no <meta><task>: not a CVAT for video 1.1 task export")
    frames = _check_task(analysis, path, task)
    known = labels()
    return [_file_track(analysis, path, element, frames, known) for element in root.findall("track")]


def _int(path: Path, node: Node | None, tag: str) -> int | None:
    child = node.find(tag) if node is not None else None
    if child is None:
        return None
    try:
        return int(child.text.strip())
    except ValueError:
        raise AnnotationError(path, f"line {child.line}", f"<{tag}> is not a number: {child.text!r}") from None


def _check_task(analysis: Analysis, path: Path, task: Node) -> int:
    size = task.find("original_size")
    frames = _int(path, task, "size")
    start = _int(path, task, "start_frame")
    check_video(analysis, path, f"line {task.line}", _int(path, size, "width"), _int(path, size, "height"), frames)
    if start:
        raise AnnotationError(path, f"line {task.find('start_frame').line}",
                              f"the task starts at frame {start}: make it of the whole video")
    return analysis.video.frame_count


def _file_track(analysis: Analysis, path: Path, element: Node, frames: int, known) -> FileTrack:
    label = element.attrib.get("label", "")
    if label not in known:
        raise AnnotationError(path, f"line {element.line}",
                              f"unknown label {label!r} (labels: the COCO labels, face, boundary, caption)")
    shapes = [s for s in element.children if s.tag in SHAPES]
    track = FileTrack(label, element.line, shapes[0].tag if shapes else "box")
    for shape in shapes:
        frame = _frame(path, shape)
        outside = shape.attrib.get("outside") == "1"
        if frame >= frames and not outside:
            raise AnnotationError(path, f"line {shape.line}",
                                  f"frame {frame} is past the video's end (it has {frames} frames)")
        if not track.attributes:
            track.attributes = {a.attrib.get("name", ""): a.text for a in shape.findall("attribute")}
        if shape.tag == "box":
            box = _box(analysis, path, shape, frame)
            if not outside:
                track.boxes[frame] = box
    return track


def _frame(path: Path, shape: Node) -> int:
    try:
        frame = int(shape.attrib["frame"])
    except (KeyError, ValueError):
        raise AnnotationError(path, f"line {shape.line}", f"<{shape.tag}> without a frame number") from None
    if frame < 0:
        raise AnnotationError(path, f"line {shape.line}", f"frame {frame} is before the video's start")
    return frame


def _box(analysis: Analysis, path: Path, shape: Node, frame: int) -> Box:
    try:
        x1, y1, x2, y2 = (float(shape.attrib[k]) for k in ("xtl", "ytl", "xbr", "ybr"))
    except (KeyError, ValueError):
        raise AnnotationError(path, f"line {shape.line}, frame {frame}", "a box without four corners") from None
    width, height = analysis.video.width, analysis.video.height
    if not (-EDGE <= x1 < x2 <= width + EDGE and -EDGE <= y1 < y2 <= height + EDGE):
        raise AnnotationError(path, f"line {shape.line}, frame {frame}",
                              f"the box {x1:g},{y1:g} - {x2:g},{y2:g} is not inside the {width}x{height} picture")
    return (x1, y1, x2 - x1, y2 - y1)


# -- tracks ---------------------------------------------------------------------------------

def _matched(analysis: Analysis, path: Path, root: Node, found: list[FileTrack]) -> dict[str, FileTrack]:
    """The analysis's track key -> the file's track carrying it."""
    declared = any(a.find("name") is not None and a.find("name").text == TRACK
                   for a in _iter(root.find("meta"), "attribute"))
    ours = {track_key(t): t for t in tracks(analysis)}
    if ours and not declared:
        listed = _iter(root.find("meta"), "labels")
        raise AnnotationError(path, f"line {next(listed, root).line}",
                              f"its labels have no '{TRACK}' attribute, which says which track is which: "
                              "make the CVAT task with the labels of labels.json")
    matched: dict[str, FileTrack] = {}
    for track in found:
        key = (track.attributes.get(TRACK) or "").strip()
        if not key:
            continue  # drawn in the tool: the analysis has no place for it
        if key not in ours or not _overlaps(ours[key], track):
            raise AnnotationError(path, f"line {track.line}", f"track {key!r} is not this analysis's (was the file "
                                                              "exported before the video was analysed again?)")
        if key in matched:
            raise AnnotationError(path, f"line {track.line}", f"track {key!r} is in the file twice "
                                                              f"(also on line {matched[key].line})")
        matched[key] = track
    return matched


def _iter(node: Node | None, tag: str):
    for child in node.children if node is not None else ():
        if child.tag == tag:
            yield child
        yield from _iter(child, tag)


def _overlaps(ours: Track, theirs: FileTrack) -> bool:
    return not theirs.boxes or any(iou(box, theirs.boxes[f]) >= SAME_BOX for f, box in ours.boxes.items()
                                   if f in theirs.boxes)


def _track_edits(analysis: Analysis, path: Path, root: Node, found: list[FileTrack]) -> list[Edit]:
    matched = _matched(analysis, path, root, found)
    faces: list[tuple[Track, FileTrack]] = []
    result, deleted = [], []
    for track in tracks(analysis):
        theirs = matched.get(track_key(track))
        if theirs is None:
            deleted.append(_deleted(track))
        elif track.capability == "faces":
            _same_label(path, track, theirs, FACE)
            faces.append((track, theirs))
        else:
            result += _changed(analysis, path, track, theirs)
    return [*_identity_edits(analysis, faces), *result, *deleted]


def _same_label(path: Path, track: Track, theirs: FileTrack, label: str) -> None:
    if theirs.label != label:
        raise AnnotationError(path, f"line {theirs.line}", f"a {track.capability[:-1]} track stays a {label!r} "
                                                           f"(not {theirs.label!r}): delete it instead")


def _deleted(track: Track) -> Edit:
    frame, box = next(iter(track.boxes.items()))
    if track.capability == "faces":
        return Edit(f"face track {track.id}: not a face", lambda a: E.not_a_face(a, track.id))
    what = "object" if track.capability == "objects" else "body"
    return Edit(f"{what} track {track.id} ({track.label}) deleted",
                lambda a: E.delete_track(a, track.capability, frame, box))


def _changed(analysis: Analysis, path: Path, track: Track, theirs: FileTrack) -> list[Edit]:
    """Relabel (or a body's identity) first, then the moved boxes: each finds its track by
    the analysis's box at its frame, which no earlier edit has moved."""
    frame, box = next(iter(track.boxes.items()))
    changes = []
    if track.capability == "objects" and theirs.label != track.label:
        if theirs.label in (FACE, BOUNDARY, CAPTION):
            raise AnnotationError(path, f"line {theirs.line}", f"an object track cannot be a {theirs.label!r}")
        changes.append(Edit(f"object track {track.id}: a {theirs.label}, not a {track.label}",
                            lambda a: E.relabel_track(a, "objects", frame, box, theirs.label)))
    if track.capability == "poses":
        _same_label(path, track, theirs, PERSON)
        named = (theirs.attributes.get(IDENTITY) or "").strip()
        if named != track.attributes.get(IDENTITY, ""):
            _check_named(analysis, path, theirs, named)
            changes.append(Edit(f"body track {track.id}: {named or 'nobody known'}",
                                lambda a: E.relabel_track(a, "poses", frame, box, _identity_id(a, named) or "")))
    size = analysis.video.width, analysis.video.height
    for at, old in track.boxes.items():
        new = theirs.boxes.get(at)
        if new is not None and written_box(new, *size) != written_box(old, *size):
            changes.append(Edit(f"{'object' if track.capability == 'objects' else 'body'} track {track.id}: "
                                f"its box at frame {at} moved",
                                lambda a, at=at, old=old, new=new: E.move_box(a, track.capability, at, old, new)))
    return changes


def _identity_id(analysis: Analysis, named: str) -> str | None:
    """The identity a file's name means (its name, else its P-id), or None."""
    if not named:
        return None
    return next((i.id for i in analysis.identities if i.name == named),
                next((i.id for i in analysis.identities if i.id == named), None))


def _check_named(analysis: Analysis, path: Path, theirs: FileTrack, named: str) -> None:
    if named and _identity_id(analysis, named) is None:
        raise AnnotationError(path, f"line {theirs.line}", f"no identity called {named!r}: a body is who a face is "
                                                           "(name the face's identity)")


def _identity_edits(analysis: Analysis, faces: list[tuple[Track, FileTrack]]) -> list[Edit]:
    """A face track's identity as the file says: whole identities renamed or merged where
    all their tracks say so, single tracks split off and named otherwise."""
    pid_of = {t.id: t.identity for t in analysis.face_tracks}
    said = {track.id: (theirs.attributes.get(IDENTITY) or "").strip() for track, theirs in faces}
    changed = {track.id: said[track.id] for track, _ in faces if said[track.id] != track.attributes.get(IDENTITY)}
    members: dict[str, list[int]] = defaultdict(list)
    for track_id in said:
        if pid_of.get(track_id):
            members[pid_of[track_id]].append(track_id)
    result, done = [], set()
    for track_id, named in changed.items():
        pid = pid_of.get(track_id)
        if track_id in done:
            continue
        if pid and all(changed.get(m) == named for m in members[pid]):
            done.update(members[pid])
            result.append(Edit(f"{pid}: {named or 'no name'}", _naming(track_id, named)))
        else:
            result.append(Edit(f"face track {track_id}: {named or 'someone else'}", _naming(track_id, named, True)))
    return result


def _naming(track_id: int, named: str, alone: bool = False):
    """The change giving the identity of face track ``track_id`` (split off first when
    ``alone``) the name ``named``, or merging it into the identity already called so."""

    def change(analysis: Analysis) -> Analysis:
        if alone:
            analysis = E.split_track(analysis, track_id)
        pid = next(t.identity for t in analysis.face_tracks if t.id == track_id)
        other = _identity_id(analysis, named)
        if other is not None and other != pid:
            return E.merge_identities(analysis, other, pid)
        if not named and alone:
            return analysis
        return E.rename_identity(analysis, pid, named if named and named != pid else None)

    return change


# -- captions and boundaries -----------------------------------------------------------------

def _by_frame(path: Path, found: list[FileTrack], what: str) -> dict[int, FileTrack]:
    result: dict[int, FileTrack] = {}
    for track in found:
        if track.first is None:
            continue
        if track.first in result:
            raise AnnotationError(path, f"line {track.line}", f"two {what}s on frame {track.first} "
                                                              f"(also on line {result[track.first].line})")
        result[track.first] = track
    return result


def _caption_edits(analysis: Analysis, path: Path, found: list[FileTrack]) -> list[Edit]:
    theirs = _by_frame(path, found, CAPTION)
    result = []
    for caption in analysis.captions:
        track = theirs.get(caption.frame)
        text = (track.attributes.get(TEXT) or "").strip() if track else caption.text
        if text == caption.text.strip():
            continue
        if not text:
            raise AnnotationError(path, f"line {track.line}, frame {caption.frame}", "a caption cannot be empty")
        result.append(Edit(f"caption at frame {caption.frame}: {text}",
                           lambda a, frame=caption.frame, text=text: E.edit_caption(a, frame, text)))
    return result


def _boundary_edits(analysis: Analysis, path: Path, found: list[FileTrack]) -> list[Edit]:
    theirs = _by_frame(path, found, BOUNDARY)
    ours = {b.frame: b for b in analysis.boundaries}
    said = {frame: _said(path, track) for frame, track in theirs.items()}
    result = [Edit(f"boundary at frame {frame} deleted", lambda a, frame=frame: E.delete_boundary(a, frame))
              for frame in ours if frame not in theirs]
    fps = analysis.video.fps
    for frame, (kind, caption) in said.items():
        if frame not in ours:
            result.append(Edit(f"{kind} boundary added at frame {frame}", lambda a, f=frame, k=kind, c=caption:
                               E.add_boundary(a, timecode.frame_time(f, fps), k, c)))
            continue
        old = ours[frame]
        if kind != old.kind:
            result.append(Edit(f"boundary at frame {frame}: a {kind}",
                               lambda a, f=frame, k=kind: E.set_boundary_kind(a, f, k)))
        before = (old.caption.subject, old.caption.before, old.caption.after) if old.caption else None
        if caption is not None and (caption.subject, caption.before, caption.after) != before:
            result.append(Edit(f"boundary at frame {frame}: {caption.subject}: {caption.before} -> {caption.after}",
                               lambda a, f=frame, c=caption: E.edit_boundary_caption(a, f, c.subject, c.before,
                                                                                     c.after)))
    return result


def _said(path: Path, track: FileTrack) -> tuple[str, BoundaryCaption | None]:
    values = [(track.attributes.get(name) or "").strip() for name in BOUNDARY_FIELDS]
    kind, parts = values[0], values[1:]
    if kind not in BOUNDARY_KINDS:
        raise AnnotationError(path, f"line {track.line}, frame {track.first}",
                              f"boundary kind {kind!r} is not one of {', '.join(BOUNDARY_KINDS)}")
    if any(parts) and not all(parts):
        raise AnnotationError(path, f"line {track.line}, frame {track.first}",
                              "a boundary's subject, before and after are filled in together")
    return kind, BoundaryCaption(*parts, engine=E.REVIEWER) if all(parts) else None
