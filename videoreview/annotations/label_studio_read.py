"""Label Studio's JSON export of a project read back as reviewer edits (label_studio.py
writes the task; its docstring lists the regions and their ids).

The task for this video is the one whose ``data.path`` (or video) names it, or the only
one; its ``data`` must be for this video (size, frame count). Read from it: its latest
annotation that was not skipped, the annotator (``completed_by``: email, else name) the
edits' author; with no annotation, its prediction (the file exported and edited by hand).
Label Studio's export names the annotator when asked for it in full (the export snapshot's
``annotations__completed_by``); the quick export gives a user id only, kept as "user N".

Against the analysis it was written from:

- a track whose region is gone is deleted (a face track: not a face); an object track's
  changed label is a relabel; a keyframe moved at a frame the track had a box at moves
  that box (objects and bodies); a face's changed identity renames its identity, a
  body's names who it is (an identity's P-id or name);
- a boundary whose region is gone is deleted, one whose frame changed is moved, one whose
  label changed (cut, gradual, event) changes kind, changed subject / before / after is
  the reviewer's caption; a new region labelled cut, gradual or event adds a boundary;
- a frame caption's or speech segment's changed text, a segment's changed speaker.

Not read, and why: keyframes at frames the track had no box at (the app keeps the boxes
of its samples, Label Studio interpolates between them), a deleted or moved caption or
speech span (captions and speech follow the video's samples and sound), new tracks
(tracks come from the detectors). A new track, a face's moved box or changed label,
unknown labels, frames past the end and boxes outside the picture are refused in one
line naming the task, region and frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from ..errors import VideoReviewError
from ..pipeline import edits
from ..records import Analysis, BoundaryCaption
from ..timecode import frame_time
from . import AnnotationError, Edit, check_video
from .json_files import listing, load, mapping, number, text, whole
from .label_studio import BOUNDARY_LABELS, CAPTION_PARTS, TIMELINE_LABELS, box_labels, region_id
from .tracks import Box, Track, tracks

SLACK = 0.2  # percent a box may pass the picture's edge by (Label Studio's own rounding)
SAME = 0.01  # pixels: a box differing by less is the one written
KINDS = ("videorectangle", "timelinelabels", "textarea")
NAMES = {"objects": "object", "faces": "face", "poses": "body"}


@dataclass
class Region:
    id: str
    kind: str  # "videorectangle" or "timelinelabels"
    where: str
    label: str = ""
    boxes: dict[int, Box] = field(default_factory=dict)  # app frame -> box in pixels
    first: int = 0  # a timeline region's frames (the app's, from 0)
    last: int = 0
    texts: dict[str, str] = field(default_factory=dict)  # textarea name -> its text


@dataclass
class Source:
    path: Path
    analysis: Analysis
    author: str
    where: str  # "task N"


def read(analysis: Analysis, path: Path) -> list[Edit]:
    file = path / "tasks.json" if path.is_dir() else path
    data = load(file)
    n, task = chosen_task(analysis, file, data)
    result, author = chosen_result(file, f"task {n}", task)
    source = Source(file, analysis, author, f"task {n}")
    regions = parse(source, result)
    found = [*track_edits(source, regions), *boundary_edits(source, regions), *text_edits(source, regions)]
    new = next((r for r in regions.values() if r.kind == "videorectangle"), None)
    if new is not None:
        raise AnnotationError(file, new.where, "a new track; tracks are not added (they come from the detectors)")
    tried(source, found)
    return found


# -- the task and its result -----------------------------------------------------------------

def chosen_task(analysis: Analysis, path: Path, data) -> tuple[int, dict]:
    """(its number from 1, the task) for this video, checked to be for it."""
    if isinstance(data, dict) and "data" in data:
        data = [data]
    if not isinstance(data, list) or not data or not all(isinstance(t, dict) and isinstance(t.get("data"), dict)
                                                        for t in data):
        raise AnnotationError(path, "", "not Label Studio's JSON export (a list of tasks, each with its data)")
    name = Path(analysis.video.path).name
    ours = [n for n, t in enumerate(data, 1)
            if any(isinstance(v, str) and v.rsplit("/", 1)[-1].rsplit("=", 1)[-1] == name
                   for v in (t["data"].get("path"), t["data"].get("video")))]
    if len(data) > 1 and not ours:
        raise AnnotationError(path, "", f"{len(data)} tasks, none for {name}")
    n = ours[0] if ours else 1
    task = data[n - 1]
    info, where = task["data"], f"task {n}"

    def given(key):
        return whole(path, where, info[key], f"data.{key}") if info.get(key) is not None else None

    check_video(analysis, path, where, given("width"), given("height"), given("frames"))
    return n, task


def chosen_result(path: Path, where: str, task: dict) -> tuple[list, str]:
    """The latest annotation not skipped, with its annotator; else the prediction."""
    annotations = [a for a in listing(path, where, task.get("annotations") or [], "annotations")
                   if isinstance(a, dict) and not a.get("was_cancelled")]
    if annotations:
        latest = max(enumerate(annotations), key=lambda a: (str(a[1].get("updated_at") or ""), a[0]))[1]
        return listing(path, where, latest.get("result"), "the annotation's result"), annotator(latest)
    predictions = listing(path, where, task.get("predictions") or [], "predictions")
    full = [p for p in predictions if isinstance(p, dict)]
    if full:
        return listing(path, where, full[0].get("result"), "the prediction's result"), ""
    if predictions:
        raise AnnotationError(path, where, "its predictions are ids only: export them in full "
                                           "(the export snapshot's predictions option)")
    raise AnnotationError(path, where, "no annotation and no prediction")


def annotator(annotation: dict) -> str:
    who = annotation.get("completed_by")
    if isinstance(who, dict):
        name = " ".join(str(who.get(k) or "") for k in ("first_name", "last_name")).strip()
        return str(who.get("email") or name or (f"user {who['id']}" if "id" in who else ""))
    return f"user {who}" if isinstance(who, int) and not isinstance(who, bool) else ""


# -- the regions -----------------------------------------------------------------------------

def parse(source: Source, result: list) -> dict[str, Region]:
    """The result's regions by id, checked, with the texts of their textareas."""
    path, regions, texts = source.path, {}, []
    for k, item in enumerate(result, 1):
        item = mapping(path, f"{source.where} result {k}", item, "a region")
        rid = text(path, f"{source.where} result {k}", item.get("id"), "its id")
        where = f"{source.where} region {rid}"
        kind = item.get("type")
        if kind not in KINDS:
            raise AnnotationError(path, where, f"a {str(kind)[:40]} region; this reads {', '.join(KINDS)} "
                                               "(the project's configuration is label_config.xml)")
        value = mapping(path, where, item.get("value"), "its value")
        if kind == "textarea":
            texts.append((rid, where, item.get("from_name"), value))
            continue
        if rid in regions:
            raise AnnotationError(path, where, "a second region with this id")
        regions[rid] = (rectangle if kind == "videorectangle" else timeline)(source, Region(rid, kind, where), value)
    for rid, where, name, value in texts:
        if rid in regions and name in ("identity", "text", *CAPTION_PARTS):
            words = [text(path, where, t, f"the {name} text") for t in listing(path, where, value.get("text"), name)]
            regions[rid].texts[name] = " ".join(" ".join(words).split())
    return regions


def one_label(source: Source, region: Region, value: dict, key: str, allowed) -> str:
    labels = listing(source.path, region.where, value.get(key), key)
    if len(labels) != 1:
        raise AnnotationError(source.path, region.where, f"{len(labels)} labels; a region has one")
    label = text(source.path, region.where, labels[0], "its label")
    if label not in allowed:
        raise AnnotationError(source.path, region.where, f"unknown label {label[:60]!r}")
    return label


def frame_of(source: Source, where: str, value, what: str) -> int:
    """A frame as Label Studio counts them (from 1), as the app's (from 0), checked."""
    frame = whole(source.path, where, value, what)
    count = source.analysis.video.frame_count
    if not 1 <= frame <= count:
        raise AnnotationError(source.path, f"{where} frame {frame}", f"outside the video (frames 1 to {count})")
    return frame - 1


def rectangle(source: Source, region: Region, value: dict) -> Region:
    path, where, info = source.path, region.where, source.analysis.video
    region.label = one_label(source, region, value, "labels", box_labels(source.analysis))
    for item in listing(path, where, value.get("sequence"), "its sequence"):
        item = mapping(path, where, item, "a keyframe")
        frame = frame_of(source, where, item.get("frame"), "a keyframe's frame")
        at = f"{where} frame {frame + 1}"
        x, y, w, h = (number(path, at, item.get(k), k) for k in ("x", "y", "width", "height"))
        if w <= 0 or h <= 0 or x < -SLACK or y < -SLACK or x + w > 100 + SLACK or y + h > 100 + SLACK:
            raise AnnotationError(path, at, f"the box {x:g}%,{y:g}% {w:g}%x{h:g}% is not within the picture")
        region.boxes[frame] = (x * info.width / 100, y * info.height / 100, w * info.width / 100,
                               h * info.height / 100)
    return region


def timeline(source: Source, region: Region, value: dict) -> Region:
    path, where = source.path, region.where
    region.label = one_label(source, region, value, "timelinelabels", TIMELINE_LABELS)
    ranges = [mapping(path, where, r, "a range") for r in listing(path, where, value.get("ranges"), "its ranges")]
    if not ranges:
        raise AnnotationError(path, where, "no frames (its ranges are empty)")
    region.first = min(frame_of(source, where, r.get("start"), "a range's start") for r in ranges)
    region.last = max(frame_of(source, where, r.get("end"), "a range's end") for r in ranges)
    if region.last < region.first:
        raise AnnotationError(path, where, "its range ends before it starts")
    return region


# -- tracks ----------------------------------------------------------------------------------

def track_edits(source: Source, regions: dict[str, Region]) -> list[Edit]:
    gone, changed, moved = [], [], []
    renames: dict[str, tuple[str, Region]] = {}
    for track in tracks(source.analysis):
        region = regions.pop(region_id(track), None)
        if region is None or region.kind != "videorectangle":
            gone.append(deleted(source, track))
            continue
        changed += relabelled(source, track, region)
        changed += identity(source, track, region, renames)
        moved += moves(source, track, region)
    return [*gone, *changed, *moved]  # a move names its track by the box's old place: last


def name_of(track: Track) -> str:
    return f"{NAMES[track.capability]} track {track.id} ({track.label})"


def deleted(source: Source, track: Track) -> Edit:
    if track.capability == "faces":
        return Edit(f"Label Studio: not a face: {name_of(track)}", partial(edits.not_a_face, track=track.id),
                    source.author)
    return Edit(f"Label Studio: delete {name_of(track)}",
                partial(edits.delete_track, capability=track.capability, frame=track.first,
                        box=track.boxes[track.first], author=source.author), source.author)


def relabelled(source: Source, track: Track, region: Region) -> list[Edit]:
    if region.label == track.label:
        return []
    if track.capability != "objects" or region.label == "face":
        raise AnnotationError(source.path, region.where, f"{name_of(track)} cannot become a {region.label}: "
                                                         "a face or a body keeps its label (delete it instead)")
    return [Edit(f"Label Studio: relabel {name_of(track)} as {region.label}",
                 partial(edits.relabel_track, capability="objects", frame=track.first, box=track.boxes[track.first],
                         label=region.label, author=source.author), source.author)]


def identity(source: Source, track: Track, region: Region, renames: dict) -> list[Edit]:
    """A face's changed identity renames it; a body's names who it is."""
    old, new = track.attributes.get("identity", ""), region.texts.get("identity", "")
    if track.capability == "objects" or new == old:
        return []
    if track.capability == "poses":
        pid = identity_named(source, region.where, new)
        if pid is None:
            raise AnnotationError(source.path, region.where, "a body's identity can be changed, not cleared")
        return [Edit(f"Label Studio: {name_of(track)} is {new}",
                     partial(edits.relabel_track, capability="poses", frame=track.first, box=track.boxes[track.first],
                             label=pid, author=source.author), source.author)]
    pid = next((t.identity for t in source.analysis.face_tracks if t.id == track.id), None)
    if pid is None:
        raise AnnotationError(source.path, region.where, f"{name_of(track)} has no identity to rename")
    if pid in renames:
        if renames[pid][0] != new:
            raise AnnotationError(source.path, region.where, f"{pid} is named both {renames[pid][0]!r} and {new!r}")
        return []
    renames[pid] = (new, region)
    name = new if new and new != pid else None
    return [Edit(f"Label Studio: name {pid} {name or '(no name)'}",
                 partial(edits.rename_identity, pid=pid, name=name), source.author)]


def identity_named(source: Source, where: str, said: str) -> str | None:
    """The identity a text names (its P-id or its name), None for none."""
    if not said:
        return None
    for person in source.analysis.identities:
        if said in (person.id, person.name):
            return person.id
    raise AnnotationError(source.path, where, f"no identity {said[:60]!r} (an identity's P-id or name)")


def moves(source: Source, track: Track, region: Region) -> list[Edit]:
    found = []
    for frame, box in region.boxes.items():
        old = track.boxes.get(frame)
        if old is None or all(abs(a - b) < SAME for a, b in zip(old, box)):
            continue
        if track.capability == "faces":
            raise AnnotationError(source.path, f"{region.where} frame {frame + 1}",
                                  f"{name_of(track)}: a face's box cannot be moved")
        to = tuple(a if abs(a - b) < SAME else b for a, b in zip(old, box))  # unmoved sides as they were
        found.append(Edit(f"Label Studio: move {name_of(track)}'s box at frame {frame}",
                          partial(edits.move_box, capability=track.capability, frame=frame, box=old, to=to,
                                  author=source.author), source.author))
    return found


# -- boundaries, captions, speech ------------------------------------------------------------

def parts_of(region: Region) -> tuple[str, str, str]:
    return tuple(region.texts.get(name, "") for name in CAPTION_PARTS)  # type: ignore[return-value]


def boundary_edits(source: Source, regions: dict[str, Region]) -> list[Edit]:
    analysis, author = source.analysis, source.author
    fps = analysis.video.fps
    gone, moved, changed = [], [], []
    for boundary in analysis.boundaries:
        region = regions.pop(f"boundary-{boundary.frame}", None)
        if region is None or region.label not in BOUNDARY_LABELS:
            gone.append(Edit(f"Label Studio: delete the boundary at frame {boundary.frame}",
                             partial(edits.delete_boundary, frame=boundary.frame), author))
            continue
        frame = region.first
        if frame != boundary.frame:
            moved.append(Edit(f"Label Studio: move the boundary at frame {boundary.frame} to frame {frame}",
                              partial(edits.move_boundary, frame=boundary.frame, seconds=frame_time(frame, fps)),
                              author))
        if region.label != boundary.kind:
            changed.append(Edit(f"Label Studio: the boundary at frame {frame} is a {region.label}",
                                partial(edits.set_boundary_kind, frame=frame, kind=region.label), author))
        caption = boundary.caption
        old = (caption.subject, caption.before, caption.after) if caption else ("", "", "")
        if parts_of(region) != old and (any(parts_of(region)) or frame == boundary.frame):
            changed.append(boundary_caption(source, region, frame))  # a moved one's caption may go with the move
    added = [Edit(f"Label Studio: add a {r.label} boundary at frame {r.first}",
                  partial(edits.add_boundary, seconds=frame_time(r.first, fps), kind=r.label,
                          caption=BoundaryCaption(*parts_of(r), engine=edits.REVIEWER) if all(parts_of(r)) else None),
                  author) for r in regions.values() if r.kind == "timelinelabels" and r.label in BOUNDARY_LABELS]
    return [*gone, *moved, *added, *changed]


def boundary_caption(source: Source, region: Region, frame: int) -> Edit:
    parts = parts_of(region)
    if not all(parts):
        raise AnnotationError(source.path, region.where, "a boundary's subject, before and after must all be "
                                                         "filled in")
    return Edit(f"Label Studio: the boundary at frame {frame}: {' / '.join(parts)}",
                partial(edits.edit_boundary_caption, frame=frame, subject=parts[0], before=parts[1], after=parts[2]),
                source.author)


def text_edits(source: Source, regions: dict[str, Region]) -> list[Edit]:
    analysis, author, found = source.analysis, source.author, []
    for caption in analysis.captions:
        region = regions.pop(f"caption-{caption.frame}", None)
        said = region.texts.get("text", "") if region else ""
        if region and said != " ".join(caption.text.split()):
            if not said:
                raise AnnotationError(source.path, region.where, "a caption cannot be empty")
            found.append(Edit(f"Label Studio: the caption at frame {caption.frame}: {said}",
                              partial(edits.edit_caption, frame=caption.frame, text=said), author))
    for n, segment in enumerate(analysis.transcript):
        region = regions.pop(f"speech-{n}", None)
        if region is None:
            continue
        said = region.texts.get("text", "")
        if said != " ".join(segment.text.split()):
            if not said:
                raise AnnotationError(source.path, region.where, "what is said cannot be empty")
            found.append(Edit(f"Label Studio: said at {segment.start:.2f} s: {said}",
                              partial(edits.edit_segment, start=segment.start, text=said), author))
        written = analysis.person_name(segment.speaker) if segment.speaker else ""
        said_by = region.texts.get("identity", "")
        speaker = identity_named(source, region.where, said_by) if said_by != written else segment.speaker
        if speaker != segment.speaker:
            found.append(Edit(f"Label Studio: said at {segment.start:.2f} s by {speaker or 'nobody'}",
                              partial(edits.set_speaker, start=segment.start, speaker=speaker), author))
    for rid in [r for r, region in regions.items() if region.label in ("caption", "speech")]:
        del regions[rid]  # new or moved caption and speech spans: not read (the docstring says why)
    return found


def tried(source: Source, found: list[Edit]) -> None:
    """Each edit applied in turn to a copy: one that cannot be made is refused here, in one
    line, before anything changes."""
    analysis = source.analysis
    for edit in found:
        try:
            analysis = edit.change(analysis)
        except (VideoReviewError, LookupError, ValueError) as exc:  # an edit undoing another's ground
            reason = getattr(exc, "reason", None) or str(exc).strip('"')
            raise AnnotationError(source.path, source.where, f"{edit.text}: {reason}") from None
