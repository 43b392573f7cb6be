"""Notes as markers for Final Cut Pro 7 XML (``.xml``; Premiere Pro and Resolve import it)
and FCPXML (``.fcpxml``; Final Cut Pro 10+, Resolve): the video as one clip in a sequence,
a marker per note.

Written with the standard library's XML writer rather than OpenTimelineIO's fcp_xml and
fcpx_xml adapters: the first drops each marker's comment, the second writes an empty
frameDuration and marks green markers completed, which Final Cut refuses or misreads.
The tests read our FCP 7 XML back through OpenTimelineIO's fcp_xml adapter, an
independent reader. FCPXML markers are to-do markers: a resolved note is ``completed``.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path

from ..records import Analysis, Note, write_atomic
from ..smpte import NTSC, exact_rate, is_drop_frame, nominal_rate


def _sub(parent: ET.Element, tag: str, text: object = None, **attributes) -> ET.Element:
    element = ET.SubElement(parent, tag, {k: str(v) for k, v in attributes.items()})
    if text is not None:
        element.text = str(text)
    return element


def _name(note: Note) -> str:
    first = note.text.split("\n")[0] if note.text else "(drawing)"
    return first if len(first) <= 60 else first[:59] + "…"


def _write(root: ET.Element, doctype: str, path) -> None:
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    write_atomic(Path(path), f'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE {doctype}>\n{body}\n'.encode())


# -- Final Cut Pro 7 XML (xmeml) ---------------------------------------------------------

def _rate(parent: ET.Element, fps: float) -> None:
    rate = _sub(parent, "rate")
    _sub(rate, "timebase", nominal_rate(fps))
    _sub(rate, "ntsc", "TRUE" if exact_rate(fps) != nominal_rate(fps) else "FALSE")


def write_fcp7(analysis: Analysis, notes: tuple[Note, ...], path: str | os.PathLike) -> None:
    info = analysis.video
    fps, frames = info.fps, info.frame_count
    root = ET.Element("xmeml", version="4")
    sequence = _sub(root, "sequence", id="sequence-1")
    _sub(sequence, "name", f"{Path(info.path).stem} notes")
    _sub(sequence, "duration", frames)
    _rate(sequence, fps)
    code = _sub(sequence, "timecode")
    _rate(code, fps)
    _sub(code, "string", "00:00:00;00" if is_drop_frame(fps) else "00:00:00:00")
    _sub(code, "frame", 0)
    _sub(code, "displayformat", "DF" if is_drop_frame(fps) else "NDF")
    track = _sub(_sub(_sub(sequence, "media"), "video"), "track")
    clip = _sub(track, "clipitem", id="clipitem-1")
    _sub(clip, "name", Path(info.path).name)
    _sub(clip, "duration", frames)
    _rate(clip, fps)
    for tag, value in (("start", 0), ("end", frames), ("in", 0), ("out", frames)):
        _sub(clip, tag, value)
    file = _sub(clip, "file", id="file-1")
    _sub(file, "name", Path(info.path).name)
    _sub(file, "pathurl", Path(info.path).resolve().as_uri())
    _rate(file, fps)
    _sub(file, "duration", frames)
    size = _sub(_sub(_sub(file, "media"), "video"), "samplecharacteristics")
    _sub(size, "width", info.width)
    _sub(size, "height", info.height)
    for n in notes:  # sequence markers: the timeline's own, which Premiere and Resolve show
        marker = _sub(sequence, "marker")
        _sub(marker, "name", _name(n))
        _sub(marker, "comment", n.text)
        _sub(marker, "in", n.frame)
        _sub(marker, "out", n.last_frame + 1 if n.is_range else -1)  # -1: a point marker
    _write(root, "xmeml", path)


# -- FCPXML ------------------------------------------------------------------------------

def _frame_duration(fps: float) -> Fraction:
    rate = exact_rate(fps)
    if rate in NTSC:
        return Fraction(1001, round(rate * 1001))
    return 1 / Fraction(rate).limit_denominator(100000)


def _seconds(value: Fraction) -> str:
    return f"{value.numerator}s" if value.denominator == 1 else f"{value.numerator}/{value.denominator}s"


def write_fcpxml(analysis: Analysis, notes: tuple[Note, ...], path: str | os.PathLike) -> None:
    info = analysis.video
    step = _frame_duration(info.fps)
    length = _seconds(step * info.frame_count)
    tc_format = "DF" if is_drop_frame(info.fps) else "NDF"
    root = ET.Element("fcpxml", version="1.9")
    resources = _sub(root, "resources")
    _sub(resources, "format", id="r1", frameDuration=_seconds(step), width=info.width, height=info.height)
    asset = _sub(resources, "asset", id="r2", name=Path(info.path).stem, start="0s", duration=length,
                 hasVideo=1, hasAudio=int(info.has_audio), format="r1")
    _sub(asset, "media-rep", kind="original-media", src=Path(info.path).resolve().as_uri())
    event = _sub(_sub(root, "library"), "event", name="videoreview")
    project = _sub(event, "project", name=f"{Path(info.path).stem} notes")
    sequence = _sub(project, "sequence", format="r1", duration=length, tcStart="0s", tcFormat=tc_format)
    clip = _sub(_sub(sequence, "spine"), "asset-clip", ref="r2", offset="0s", name=Path(info.path).stem,
                duration=length, format="r1", tcFormat=tc_format)
    for n in notes:
        attributes = {"start": _seconds(step * n.frame), "duration": _seconds(step * (n.last_frame - n.frame + 1)),
                      "value": _name(n), "completed": int(n.status == "resolved")}
        if n.text and n.text != attributes["value"]:
            attributes["note"] = n.text
        _sub(clip, "marker", **attributes)
    _write(root, "fcpxml", path)
