"""Label Studio's JSON tasks for video: the analysis as one task to correct there, and the
project's JSON export read back as reviewer edits (label_studio_read.py reads it).

Written into the folder:

    tasks.json        a list of one task, Label Studio's own layout: ``data`` (the video,
                      its size, frame count, rate and length) and ``predictions``
    label_config.xml  the labelling configuration to make the project with (<Video>,
                      <VideoRectangle>, <Labels>, <TimelineLabels>, <TextArea>)

The analysis goes in as a **prediction**, not an annotation: Label Studio shows a
prediction as pre-annotations for the annotator to correct, and their corrections are
saved as their annotation, with their name (``completed_by``). An imported annotation
would be recorded as made by whoever imported it, and Label Studio would count the task
as done before anyone looked at it.

The prediction's regions, each with an id saying what it is, so that an export read back
names the same things:

- ``objects-<id>``, ``faces-<id>``, ``poses-<id>``: a track as a ``videorectangle`` (from
  ``box``), labelled with ``labels`` (``label``: the COCO label, "face", "person"), its
  ``sequence`` one keyframe per sampled box (frame from 1, x, y, width, height in percent
  of the picture, time in seconds, enabled; the last disabled, so the box ends there), and
  a face's or body's identity (the reviewer's name, else its P-id) in a ``textarea``
  (``identity``) of the same id;
- ``boundary-<frame>``: a boundary as ``timelinelabels`` (``timeline``: cut, gradual,
  event) over its one frame, its Kinetic-GEB+ caption in the textareas ``subject``,
  ``before`` and ``after`` of the same id;
- ``caption-<frame>``: a frame caption, labelled "caption" over its frame, its words in
  ``text``;
- ``speech-<n>``: the n-th speech segment, labelled "speech" over its frames, its words in
  ``text`` and who says it in ``identity``.

Label Studio serves a local video from ``/data/local-files/?d=PATH`` (PATH from its
LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT, here ``/``) once local files serving is on and a
local storage names the video's folder; ``data.path`` keeps the video's own path.

Left out: on-screen text, shot tags, expressions, summaries and notes (none is a region
of a video in Label Studio's templates), the detectors' scores, body keypoints (Label
Studio's video tags have no points over time) and boxes between samples (Label Studio
interpolates between keyframes itself).
"""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import quoteattr

from .. import timecode
from ..coco_kinds import COCO_KINDS
from ..records import Analysis, write_atomic
from ..timecode import frame_time
from . import Options
from .json_files import dump
from .tracks import Track, tracks

MODEL_VERSION = "videoreview"
BOUNDARY_LABELS = ("cut", "gradual", "event")
TIMELINE_LABELS = (*BOUNDARY_LABELS, "caption", "speech")
CAPTION_PARTS = ("subject", "before", "after")
TRACK_LABELS = ("face",)  # beside COCO's 80 ("person" is a body's, and one of COCO's)


def box_labels(analysis: Analysis) -> list[str]:
    """The labels a track may have: COCO's, any other an object track has, "face"."""
    names = list(COCO_KINDS)
    names += sorted({t.label for t in tracks(analysis)} - set(names) - set(TRACK_LABELS))
    return [*names, *TRACK_LABELS]


# -- writing ---------------------------------------------------------------------------------

def write(analysis: Analysis, folder: Path, options: Options) -> list[str]:
    """Write ``tasks.json`` and ``label_config.xml`` into ``folder``; the warnings."""
    dump(folder / "tasks.json", [task(analysis)])
    write_atomic(folder / "label_config.xml", label_config(analysis).encode("utf-8"))
    warnings = []
    if options.frames:
        warnings.append("label-studio: no pictures are written; Label Studio plays the video itself")
    if not tracks(analysis) and not analysis.boundaries and not analysis.captions and not analysis.transcript:
        warnings.append("label-studio: the analysis has no tracks, boundaries, captions or speech; "
                        "the task has no regions")
    return warnings


def label_config(analysis: Analysis) -> str:
    """The labelling configuration for this video (its frame rate, the labels)."""
    boxes = "\n".join(f"    <Label value={quoteattr(name)}/>" for name in box_labels(analysis))
    timeline = "\n".join(f"    <Label value={quoteattr(name)}/>" for name in TIMELINE_LABELS)
    areas = "\n".join(f'  <TextArea name="{name}" toName="video" perRegion="true" editable="true" '
                      f'placeholder="{name}"/>' for name in ("identity", "text", *CAPTION_PARTS))
    return (f'<View>\n  <Video name="video" value="$video" framerate="{analysis.video.fps:g}"/>\n'
            f'  <VideoRectangle name="box" toName="video"/>\n'
            f'  <Labels name="label" toName="video" allowEmpty="true">\n{boxes}\n  </Labels>\n'
            f'  <TimelineLabels name="timeline" toName="video">\n{timeline}\n  </TimelineLabels>\n'
            f'{areas}\n</View>\n')


def video_url(path: str) -> str:
    """Where Label Studio serves a local file from (its document root being ``/``)."""
    return "/data/local-files/?d=" + Path(path).resolve().as_posix().lstrip("/")


def task(analysis: Analysis) -> dict:
    info = analysis.video
    return {"data": {"video": video_url(info.path), "path": info.path, "width": info.width, "height": info.height,
                     "frames": info.frame_count, "fps": info.fps, "duration": info.duration},
            "predictions": [{"model_version": MODEL_VERSION, "result": results(analysis)}]}


def results(analysis: Analysis) -> list[dict]:
    """Every region of the prediction, in the order written: tracks, boundaries, captions, speech."""
    found: list[dict] = []
    for track in tracks(analysis):
        found += track_regions(analysis, track)
    for boundary in analysis.boundaries:
        caption = boundary.caption
        parts = (caption.subject, caption.before, caption.after) if caption else ("",) * 3
        rid = f"boundary-{boundary.frame}"
        found.append(span(rid, boundary.kind, boundary.frame, boundary.frame))
        found += [textarea(rid, name, part) for name, part in zip(CAPTION_PARTS, parts) if part]
    for caption in analysis.captions:
        rid = f"caption-{caption.frame}"
        found += [span(rid, "caption", caption.frame, caption.frame), textarea(rid, "text", caption.text)]
    for n, segment in enumerate(analysis.transcript):
        rid = f"speech-{n}"
        found += [span(rid, "speech", frame_at(analysis, segment.start), frame_at(analysis, segment.end)),
                  textarea(rid, "text", segment.text)]
        if segment.speaker:
            found.append(textarea(rid, "identity", analysis.person_name(segment.speaker)))
    return found


def frame_at(analysis: Analysis, seconds: float) -> int:
    return timecode.frame_at(seconds, analysis.video.fps, analysis.video.frame_count)


def region_id(track: Track) -> str:
    return f"{track.capability}-{track.id}"


def track_regions(analysis: Analysis, track: Track) -> list[dict]:
    info = analysis.video
    frames = list(track.boxes)
    sequence = [{"frame": frame + 1, **percent(analysis, track.boxes[frame]), "rotation": 0,
                 "enabled": frame != frames[-1], "time": frame_time(frame, info.fps)} for frame in frames]
    region = {"id": region_id(track), "from_name": "box", "to_name": "video", "type": "videorectangle",
              "value": {"framesCount": info.frame_count, "duration": info.duration, "sequence": sequence,
                        "labels": [track.label]}}
    identity = track.attributes.get("identity", "")
    return [region, textarea(region_id(track), "identity", identity)] if identity else [region]


def percent(analysis: Analysis, box) -> dict:
    x, y, w, h = box
    width, height = analysis.video.width, analysis.video.height
    return {"x": round(100 * x / width, 5), "y": round(100 * y / height, 5),
            "width": round(100 * w / width, 5), "height": round(100 * h / height, 5)}


def span(rid: str, label: str, first: int, last: int) -> dict:
    """A timeline region over frames ``first``..``last`` (the app's, from 0; Label Studio's from 1)."""
    return {"id": rid, "from_name": "timeline", "to_name": "video", "type": "timelinelabels",
            "value": {"ranges": [{"start": first + 1, "end": last + 1}], "timelinelabels": [label]}}


def textarea(rid: str, name: str, text: str) -> dict:
    return {"id": rid, "from_name": name, "to_name": "video", "type": "textarea", "value": {"text": [text]}}

