"""CVAT for video 1.1 XML (``annotations.xml``), as CVAT's own "interpolation" dump writes it,
and read back as reviewer edits (cvat_edits.py).

Written:
- ``<meta><task>``: size (the video's frame count), mode "interpolation", start_frame 0,
  stop_frame, the labels with their attributes, original_size (the display picture). No
  dates or owner, so an unchanged analysis exports byte for byte the same file.
- object tracks: label the COCO label; face tracks: label "face", attribute ``identity``
  (the reviewer's name for it, else its P-id); body tracks: label "person", attribute
  ``identity``. Each box the analysis has (a sampled frame the track was seen in) is a
  keyframe; after the last one a box with outside="1", as CVAT ends a track. CVAT
  interpolates between keyframes; nothing is made up here.
- a body's 17 keypoints (COCO's order) as a ``points`` track beside its box track, in the
  same group (``group_id``), each point clamped to the picture. Not a skeleton: Datumaro's
  CVAT reader (1.13) has no skeletons and fails on their element points (no ``frame``), and
  a skeleton's points cannot be told in the file from other shapes without the task's
  label tree. Keypoints are not read back (the analysis has no edit for them).
- every object, face and body track carries the attribute ``track`` ("objects 3", "faces 0",
  "poses 2"): the analysis's capability and track id. The reader matches tracks by it, not by
  the XML's track id (written 0, 1, ... in file order, as CVAT does): CVAT numbers tracks
  again on every export, so after a track is deleted there the ids of the later ones shift.
- boundaries and captions: CVAT for video has no tags (its interpolation dump writes none),
  so each is a one-frame track of a box over the whole picture on its frame: label
  "boundary" (attributes kind, subject, before, after) or "caption" (attribute text). On
  its frame is where CVAT shows it and where Datumaro reads it; one track each, so deleting,
  adding or editing one in CVAT is one edit here, and no caption seems to hold between samples.
- ``labels.json``: the same labels for CVAT's raw label editor, to make the task with.

Reviewed edits are in (the analysis holds them); what a reviewer removed is not.
Left out: speech, on-screen text, notes, expressions (no place for text over time).
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

from ..records import Analysis, write_atomic
from . import Options
from .cvat_layout import (
    BOUNDARY,
    BOUNDARY_FIELDS,
    CAPTION,
    FILE,
    LABELS_FILE,
    PERSON,
    TEXT,
    TRACK,
    VERSION,
    corners,
    labels,
    track_key,
)
from .tracks import tracks


def write(analysis: Analysis, folder: str | os.PathLike, options: Options | None = None) -> list[str]:
    """Write ``folder/annotations.xml`` and ``folder/labels.json``; no warnings."""
    root = ET.Element("annotations")
    ET.SubElement(root, "version").text = VERSION
    root.append(_meta(analysis))
    for number, (element, shapes) in enumerate(_tracks(analysis)):
        element.attrib = {"id": str(number), **element.attrib}
        root.append(element)
        element.extend(shapes)
    ET.indent(root, "  ")
    folder = Path(folder)
    write_atomic(folder / FILE, ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n")
    write_atomic(folder / LABELS_FILE, (json.dumps(_label_spec(), indent=2) + "\n").encode("utf-8"))
    return []


def _meta(analysis: Analysis) -> ET.Element:
    video = analysis.video
    meta = ET.Element("meta")
    task = ET.SubElement(meta, "task")
    name = Path(video.path).name
    for tag, value in (("name", name), ("size", video.frame_count), ("mode", "interpolation"), ("overlap", 0),
                       ("start_frame", 0), ("stop_frame", max(0, video.frame_count - 1)), ("frame_filter", "")):
        ET.SubElement(task, tag).text = str(value)
    listed = ET.SubElement(task, "labels")
    for label, attributes in labels().items():
        element = ET.SubElement(listed, "label")
        ET.SubElement(element, "name").text = label
        ET.SubElement(element, "type").text = "any" if label == PERSON else "rectangle"
        declared = ET.SubElement(element, "attributes")
        for attribute, kind, values in attributes:
            entry = ET.SubElement(declared, "attribute")
            for tag, value in (("name", attribute), ("mutable", "False"), ("input_type", kind),
                               ("default_value", values[0] if values else ""), ("values", "\n".join(values))):
                ET.SubElement(entry, tag).text = value
    size = ET.SubElement(task, "original_size")
    ET.SubElement(size, "width").text = str(video.width)
    ET.SubElement(size, "height").text = str(video.height)
    ET.SubElement(meta, "source").text = name
    return meta


def _label_spec() -> list[dict]:
    return [{"name": label, "type": "any" if label == PERSON else "rectangle",
             "attributes": [{"name": name, "mutable": False, "input_type": kind,
                             "default_value": values[0] if values else "", "values": list(values) or [""]}
                            for name, kind, values in attributes]}
            for label, attributes in labels().items()]


def _tracks(analysis: Analysis):
    """(the <track> element without its id, its shapes) for everything written, in file order."""
    video = analysis.video
    last = video.frame_count - 1
    spec = labels()
    bodies = 0
    for track in tracks(analysis):
        values = {TRACK: track_key(track), **track.attributes}
        attributes = [(name, values.get(name, "")) for name, _, _ in spec[track.label]]
        element = ET.Element("track", {"label": track.label, "source": "auto"})
        boxes = {frame: corners(box, video.width, video.height) for frame, box in track.boxes.items()}
        if track.capability != "poses":
            yield element, _shapes("box", boxes, attributes, last)
            continue
        bodies += 1
        element.set("group_id", str(bodies))
        yield element, _shapes("box", boxes, attributes, last)
        points = {frame: {"points": _points(values, video.width, video.height)}
                  for frame, values in track.keypoints.items() if frame in track.boxes}
        if points:
            yield (ET.Element("track", {"label": track.label, "source": "auto", "group_id": str(bodies)}),
                   _shapes("points", points, attributes, last))
    whole = corners((0, 0, video.width, video.height), video.width, video.height)
    for boundary in analysis.boundaries:
        caption = boundary.caption
        said = (boundary.kind, *((caption.subject, caption.before, caption.after) if caption else ("", "", "")))
        yield (ET.Element("track", {"label": BOUNDARY, "source": "auto"}),
               _shapes("box", {boundary.frame: whole}, list(zip(BOUNDARY_FIELDS, said)), last))
    for caption in analysis.captions:
        yield (ET.Element("track", {"label": CAPTION, "source": "auto"}),
               _shapes("box", {caption.frame: whole}, [(TEXT, caption.text)], last))


def _shapes(kind: str, by_frame: dict[int, dict[str, str]], attributes, last: int) -> list[ET.Element]:
    """Keyframes at ``by_frame``'s frames, then the last one again outside, on the frame after it."""
    shapes = [_shape(kind, frame, where, attributes) for frame, where in by_frame.items()]
    final = next(reversed(by_frame), None)
    if final is not None and final < last:
        shapes.append(_shape(kind, final + 1, by_frame[final], attributes, outside=True))
    return shapes


def _shape(kind: str, frame: int, where: dict[str, str], attributes, outside: bool = False) -> ET.Element:
    shape = ET.Element(kind, {"frame": str(frame), "keyframe": "1", "outside": str(int(outside)), "occluded": "0",
                              **where, "z_order": "0"})
    for name, value in attributes:
        ET.SubElement(shape, "attribute", {"name": name}).text = value
    return shape


def _points(keypoints: tuple[float, ...], width: int, height: int) -> str:
    """17 x (x, y, score) as CVAT's "x,y;x,y;..." in the picture (the scores are not carried)."""
    pairs = zip(keypoints[0::3], keypoints[1::3])
    return ";".join(f"{min(max(x, 0.0), width):.2f},{min(max(y, 0.0), height):.2f}" for x, y in pairs)


def read(analysis: Analysis, path: str | os.PathLike):
    """The reviewer edits that bring ``analysis`` to what the CVAT file at ``path`` says."""
    from .cvat_edits import read as read_edits

    return read_edits(analysis, Path(path))
