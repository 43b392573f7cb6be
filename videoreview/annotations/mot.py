"""MOT Challenge sequences (``mot_seq`` as Datumaro names it): the analysis's object, face
and body tracks as ground truth, and a reviewed ``gt.txt`` read back as reviewer edits.

Written into the folder, as Datumaro's ``mot_seq`` importer finds it:

    seqinfo.ini    name, imDir, frameRate, seqLength, imWidth, imHeight, imExt
    gt/gt.txt      frame, id, x, y, w, h, not-ignored flag, class, visibility; one box a line
    gt/labels.txt  the classes, one a line: line k is class k

Frames are counted from 1, as MOT does (the app's frame 0 is MOT's frame 1). Boxes are in
the video's display pixels, rounded to 0.01. Each track has one MOT id, fixed by what it
is, so that a file read back names the same track and a track deleted leaves the others'
ids alone: an object track ``t`` is ``t + 1``, a face track ``1000001 + t``, a body track
``2000001 + t`` (ID_BASE). The classes are COCO's 80 object labels in the detectors' order,
then any other label a track has, then "face": an object track can be given any COCO class.

Left out: identities (MOT has no attributes; CVAT and Label Studio carry them), body
keypoints, the detectors' scores (ground truth has a not-ignored flag there, written 1),
visibility (unknown, written 1), and the frames' pictures (``img1/`` would need every
frame of the video; COCO's ``--frames`` writes the sampled ones). ``frameRate`` is an
integer in MOT: a 29.97 fps video's is written 30.

Read back, from ``gt.txt`` (or the sequence's folder), against the analysis it was written
from: a track whose lines are all gone is deleted (a face track: not a face), a box whose
numbers changed is moved (objects and bodies), an object track whose class changed on
every line is relabelled. What MOT cannot say to the app is refused, naming the line: a
new track or a box at a frame the track had none, a face's moved box or class (rename
an identity in the app), a body's class. ``seqinfo.ini``, when there, must be for this
video (its size and length).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from ..engines.objects.decode import COCO_LABELS
from ..pipeline import edits
from ..records import Analysis, write_atomic
from . import AnnotationError, Edit, Options, check_video
from .tracks import Box, Track, tracks

ID_BASE = {"objects": 0, "faces": 1_000_000, "poses": 2_000_000}
TRACK_NAMES = {"objects": "object", "faces": "face", "poses": "body"}
FACE = "face"
SLACK = 1.0  # pixels a box may pass the picture's edge by (rounding in other tools)
SAME = 0.006  # a number differing by less is the one written (boxes are written to 0.01)


def mot_id(track: Track) -> int:
    return ID_BASE[track.capability] + track.id + 1


def labels(analysis: Analysis) -> list[str]:
    """The classes, in ``labels.txt``'s order: COCO's, any other object label, "face"."""
    names = list(COCO_LABELS)
    for track in tracks(analysis):
        if track.capability == "objects" and track.label not in names and track.label != FACE:
            names.append(track.label)
    return [*names, FACE]


def number(value: float) -> str:
    """A box's number as written: to 0.01, no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


# -- writing ---------------------------------------------------------------------------------

def write(analysis: Analysis, folder: Path, options: Options) -> list[str]:
    """Write the sequence into ``folder``; the warnings."""
    write_atomic(folder / "seqinfo.ini", seqinfo(analysis).encode("utf-8"))
    write_atomic(folder / "gt" / "labels.txt", ("\n".join(labels(analysis)) + "\n").encode("utf-8"))
    write_atomic(folder / "gt" / "gt.txt", gt_text(analysis).encode("utf-8"))
    warnings = []
    if options.frames:
        warnings.append("mot_seq: no pictures are written (img1/ would hold every frame); "
                        "export coco_instances with --frames for the sampled frames")
    if not tracks(analysis):
        warnings.append("mot_seq: the analysis has no object, face or body tracks; gt.txt is empty")
    return warnings


def seqinfo(analysis: Analysis) -> str:
    info = analysis.video
    name = " ".join(Path(info.path).stem.split()) or "video"
    return ("[Sequence]\n"
            f"name={name}\n"
            "imDir=img1\n"
            f"frameRate={max(1, round(info.fps))}\n"
            f"seqLength={info.frame_count}\n"
            f"imWidth={info.width}\n"
            f"imHeight={info.height}\n"
            "imExt=.jpg\n")


def gt_text(analysis: Analysis) -> str:
    """Every track's boxes, one a line, in frame order and then by MOT id."""
    classes = {name: k + 1 for k, name in enumerate(labels(analysis))}
    rows = sorted((frame, mot_id(track), box, classes[track.label])
                  for track in tracks(analysis) for frame, box in track.boxes.items())
    return "".join(f"{frame + 1},{ident},{','.join(number(v) for v in box)},1,{label},1\n"
                   for frame, ident, box, label in rows)


# -- reading ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Row:
    line: int
    frame: int  # the app's, from 0
    box: Box
    label: str | None  # None: no class given (-1 or missing)


def read(analysis: Analysis, path: Path) -> list[Edit]:
    """The edits that bring ``analysis`` to what the ``gt.txt`` at ``path`` (or in the
    sequence folder ``path``) says."""
    gt = gt_file(path)
    root = gt.parent.parent
    if (root / "seqinfo.ini").is_file():
        _check_seqinfo(analysis, root / "seqinfo.ini")
    names = _labels(analysis, gt.parent / "labels.txt")
    by_id = {mot_id(track): track for track in tracks(analysis)}
    rows = _rows(analysis, gt, names, by_id)
    gone, relabelled, moved = [], [], []
    for ident, track in by_id.items():
        kept = rows.get(ident, [])
        if not kept:
            gone.append(_gone(track))
            continue
        _check_frames(gt, track, kept)
        relabelled += _relabel(gt, track, kept)
        moved += _moves(gt, track, kept)
    return [*gone, *relabelled, *moved]  # a move names its track by the box's old place: last


def gt_file(path: Path) -> Path:
    if path.is_dir():
        for candidate in (path / "gt" / "gt.txt", path / "gt.txt"):
            if candidate.is_file():
                return candidate
        raise AnnotationError(path, "", "no gt/gt.txt in this folder (a MOT sequence has one)")
    if path.name.lower() == "seqinfo.ini":
        return gt_file(path.parent)
    return path


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise AnnotationError(path, "", exc.strerror or str(exc)) from None
    except UnicodeDecodeError:
        raise AnnotationError(path, "", "not UTF-8 text") from None


def _check_seqinfo(analysis: Analysis, path: Path) -> None:
    fields = {}
    for line in _read_text(path).splitlines():
        key, sep, value = line.partition("=")
        if sep:
            fields[key.strip().lower()] = value.strip()

    def whole(key: str) -> int | None:
        try:
            return int(fields[key]) if key in fields else None
        except ValueError:
            raise AnnotationError(path, key, f"{fields[key]!r} is not a whole number") from None

    check_video(analysis, path, "", whole("imwidth"), whole("imheight"), whole("seqlength"))


def _labels(analysis: Analysis, path: Path) -> list[str]:
    if not path.is_file():
        return labels(analysis)
    return [line.strip() for line in _read_text(path).splitlines() if line.strip()]


def _rows(analysis: Analysis, gt: Path, names: list[str], by_id: dict[int, Track]) -> dict[int, list[Row]]:
    rows: dict[int, list[Row]] = {}
    seen: set[tuple[int, int]] = set()
    # Plain comma-separated numbers, no quoting: split, not csv (whose field limit a damaged file trips)
    for line, text in enumerate(_read_text(gt).splitlines(), start=1):
        fields = text.split(",")
        if not text.strip():
            continue
        ident, row = _row(analysis, gt, line, fields, names)
        if ident not in by_id:
            raise AnnotationError(gt, f"line {line}", f"track {ident} is not one of this analysis's tracks "
                                                      "(new tracks are not read)")
        if (ident, row.frame) in seen:
            raise AnnotationError(gt, f"line {line}", f"track {ident} has a second box at frame {row.frame + 1}")
        seen.add((ident, row.frame))
        rows.setdefault(ident, []).append(row)
    return rows


def _row(analysis: Analysis, gt: Path, line: int, fields: list[str], names: list[str]) -> tuple[int, Row]:
    where = f"line {line}"
    if len(fields) < 6:
        raise AnnotationError(gt, where, f"{len(fields)} fields; a MOT line has at least 6 "
                                         "(frame, id, x, y, w, h)")
    try:
        frame, ident = int(fields[0]), int(fields[1])
        box = tuple(float(v) for v in fields[2:6])
        label = int(fields[7]) if len(fields) > 7 and fields[7].strip() else -1
    except ValueError:
        raise AnnotationError(gt, where, "the frame, id, box and class must be numbers") from None
    info = analysis.video
    if not 1 <= frame <= info.frame_count:
        raise AnnotationError(gt, where, f"frame {frame} is outside the video (frames 1 to {info.frame_count})")
    x, y, w, h = box
    if not all(map(math.isfinite, box)) or w <= 0 or h <= 0 or x < -SLACK or y < -SLACK \
            or x + w > info.width + SLACK or y + h > info.height + SLACK:
        raise AnnotationError(gt, where, f"the box {x:g},{y:g} {w:g}x{h:g} is not within the "
                                         f"{info.width}x{info.height} picture")
    if label != -1 and not 1 <= label <= len(names):
        raise AnnotationError(gt, where, f"class {label} is not in labels.txt (classes 1 to {len(names)})")
    return ident, Row(line, frame - 1, box, names[label - 1] if label != -1 else None)


def _name(track: Track) -> str:
    return f"{TRACK_NAMES[track.capability]} track {track.id} ({track.label})"


def _gone(track: Track) -> Edit:
    """A track whose lines are all gone: deleted; a face track: not a face."""
    if track.capability == "faces":
        return Edit(f"MOT: not a face: {_name(track)}", partial(edits.not_a_face, track=track.id))
    return Edit(f"MOT: delete {_name(track)}", partial(edits.delete_track, capability=track.capability,
                                                       frame=track.first, box=track.boxes[track.first]))


def _check_frames(gt: Path, track: Track, rows: list[Row]) -> None:
    """A kept track has its boxes at the frames it had: none added, none taken away."""
    name = _name(track)
    for row in rows:
        if row.frame not in track.boxes:
            raise AnnotationError(gt, f"line {row.line}", f"{name} has no box at frame {row.frame + 1}; "
                                                          "boxes are not added")
    kept = {row.frame for row in rows}
    missing = [frame for frame in track.boxes if frame not in kept]
    if missing:
        raise AnnotationError(gt, f"frame {missing[0] + 1}", f"{name}'s box there is gone; a track is deleted "
                                                             "whole (all its lines), not box by box")


def _relabel(gt: Path, track: Track, rows: list[Row]) -> list[Edit]:
    name = _name(track)
    given = {row.label for row in rows if row.label is not None}
    if not given or given == {track.label}:
        return []
    changed = next(row for row in rows if row.label not in (None, track.label))
    where = f"line {changed.line}"
    if track.capability == "faces":
        raise AnnotationError(gt, where, f"{name}: a face's class cannot change in MOT "
                                         "(not a face: delete its lines; who it is: rename it in the app)")
    if track.capability == "poses":
        raise AnnotationError(gt, where, f"{name}: a body is a person; its class cannot change")
    if len(given) > 1:
        raise AnnotationError(gt, where, f"{name} has more than one class; a track has one")
    label = given.pop()
    if label == FACE:
        raise AnnotationError(gt, where, f"{name}: an object track cannot become a face")
    first = track.first
    return [Edit(f"MOT: relabel {name} as {label}", partial(edits.relabel_track, capability="objects", frame=first,
                                                            box=track.boxes[first], label=label))]


def _moves(gt: Path, track: Track, rows: list[Row]) -> list[Edit]:
    name, found = _name(track), []
    for row in rows:
        old = track.boxes[row.frame]
        if all(abs(a - b) < SAME for a, b in zip(old, row.box)):
            continue
        if track.capability == "faces":
            raise AnnotationError(gt, f"line {row.line}", f"{name}: a face's box cannot be moved in MOT")
        found.append(Edit(f"MOT: move {name}'s box at frame {row.frame}",
                          partial(edits.move_box, capability=track.capability, frame=row.frame, box=old, to=row.box)))
    return found
