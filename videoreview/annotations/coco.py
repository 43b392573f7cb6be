"""COCO per sampled frame: ``coco_instances`` (object and face boxes) and
``coco_person_keypoints`` (bodies with their 17 keypoints), laid out as Datumaro's coco
importer finds them:

    annotations/instances_default.json         coco_instances
    annotations/person_keypoints_default.json  coco_person_keypoints
    images/default/frame_NNNNNN.jpg            with --frames: the pictures, at the video's size

An image is a frame that has a box (the samples the engines looked at), named by its frame
number from 0 and with id frame + 1 (COCO's ids start at 1). Each box is an annotation
with its bbox (x, y, w, h in display pixels, to 0.01), area (w * h), category and
iscrowd 0; its track's id, and the identity where a face named it, are in "attributes",
as Datumaro writes them, so a tool that reads them can follow the track.

Instances: the object tracks under COCO's own category ids (person 1 ... toothbrush 90),
any other label after them, and face tracks as "face" (91). Body tracks are left out
there: a body is a person the object detector boxed already, and its box would count the
person twice; they are the person keypoints file's. Person keypoints: category "person"
(1) with COCO's keypoint names and skeleton; a keypoint is labelled visible (v=2) where
MoveNet scored it at least KEYPOINT_SCORE (0.3, the threshold the app's pose reading
uses: below it MoveNet's points are mostly guesses), else unlabelled (0, 0, 0) as COCO
writes a point it does not know. COCO cannot say "labelled but hidden" from a score, so
v=1 is never written.

Left out: segmentation (no masks; written []), the detectors' scores (a box of ground
truth has none), captions, speech and boundaries (COCO has images, not time). Nothing
is read back: COCO files have no tracks to match a correction to (use mot_seq or cvat).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from ..engines.objects.decode import COCO_LABELS, KEYPOINTS
from ..engines.poses.status import MIN_SCORE as KEYPOINT_SCORE
from ..records import Analysis, write_atomic
from . import AnnotationError, Options, check_video
from .tracks import Track, body_tracks, face_tracks, object_tracks

UNUSED_IDS = (12, 26, 29, 30, 45, 66, 68, 69, 71, 83)  # COCO's category ids no released class has
COCO_IDS = dict(zip(COCO_LABELS, (i for i in range(1, 91) if i not in UNUSED_IDS)))
FACE = "face"
# COCO's person skeleton: pairs of keypoints (1-based, in KEYPOINTS' order) drawn joined.
SKELETON = ((16, 14), (14, 12), (17, 15), (15, 13), (12, 13), (6, 12), (7, 13), (6, 7), (6, 8), (7, 9),
            (8, 10), (9, 11), (2, 3), (1, 2), (1, 3), (2, 4), (3, 5), (4, 6), (5, 7))
IMAGES = Path("images") / "default"
JPEG_QUALITY = 95
BATCH = 32  # frames decoded at a time for --frames


def file_name(frame: int) -> str:
    return f"frame_{frame:06d}.jpg"


def _round(value: float) -> float:
    return round(float(value), 2)


# -- the two writers ---------------------------------------------------------------------------

def write_instances(analysis: Analysis, folder: Path, options: Options) -> list[str]:
    found = [*object_tracks(analysis), *face_tracks(analysis)]
    categories = instance_categories(found)
    ids = {c["name"]: c["id"] for c in categories}
    annotations = [_annotation(track, frame, ids[track.label]) for track in found for frame in track.boxes]
    warnings = [] if found else ["coco_instances: the analysis has no object or face tracks; no boxes are written"]
    return warnings + _write(analysis, folder, options, "instances", categories, annotations)


def write_person_keypoints(analysis: Analysis, folder: Path, options: Options) -> list[str]:
    bodies = body_tracks(analysis)
    category = {"id": 1, "name": "person", "supercategory": "person", "keypoints": list(KEYPOINTS),
                "skeleton": [list(pair) for pair in SKELETON]}
    annotations = [{**_annotation(track, frame, 1), **keypoints(track.keypoints.get(frame, ()))}
                   for track in bodies for frame in track.boxes]
    warnings = [] if bodies else ["coco_person_keypoints: the analysis has no body tracks (poses); "
                                  "no people are written"]
    return warnings + _write(analysis, folder, options, "person_keypoints", [category], annotations)


def instance_categories(found: Iterable[Track]) -> list[dict]:
    """COCO's 80 with their own ids, any other object label after them, then "face"."""
    names = dict(COCO_IDS)
    for track in found:
        if track.label not in names and track.label != FACE:
            names[track.label] = max(91, *names.values()) + 1
    names[FACE] = 91
    return [{"id": ident, "name": name, "supercategory": ""} for name, ident in sorted(names.items(),
                                                                                         key=lambda kv: kv[1])]


def keypoints(points: tuple[float, ...]) -> dict:
    """COCO's keypoints of 17 x (x, y, score): (x, y, 2) where the score is at least
    KEYPOINT_SCORE, else (0, 0, 0); and how many are labelled."""
    flat: list[float] = []
    for k in range(len(KEYPOINTS)):
        x, y, score = points[3 * k:3 * k + 3] if len(points) >= 3 * k + 3 else (0.0, 0.0, 0.0)
        flat += [_round(x), _round(y), 2] if score >= KEYPOINT_SCORE else [0, 0, 0]
    return {"keypoints": flat, "num_keypoints": sum(1 for v in flat[2::3] if v)}


def _annotation(track: Track, frame: int, category: int) -> dict:
    x, y, w, h = (_round(v) for v in track.boxes[frame])
    attributes: dict = {"track_id": track.id, "occluded": False}
    if track.attributes.get("identity"):
        attributes["identity"] = track.attributes["identity"]
    return {"image_id": frame + 1, "category_id": category, "segmentation": [], "area": _round(w * h),
            "bbox": [x, y, w, h], "iscrowd": 0, "attributes": attributes}


# -- the file and the pictures ---------------------------------------------------------------

def _write(analysis: Analysis, folder: Path, options: Options, task: str, categories: list[dict],
           annotations: list[dict]) -> list[str]:
    annotations.sort(key=lambda a: (a["image_id"], a["category_id"], a["attributes"]["track_id"]))
    for number, annotation in enumerate(annotations, start=1):
        annotation["id"] = number
    frames = sorted({a["image_id"] - 1 for a in annotations})
    info = analysis.video
    document = {
        "licenses": [{"name": "", "id": 0, "url": ""}],
        "info": {"contributor": "", "date_created": "", "description": f"{Path(info.path).name}: sampled frames",
                 "url": "", "version": "", "year": ""},
        "categories": categories,
        "images": [{"id": frame + 1, "width": info.width, "height": info.height, "file_name": file_name(frame),
                    "license": 0, "flickr_url": "", "coco_url": "", "date_captured": 0} for frame in frames],
        "annotations": annotations,
    }
    (folder / IMAGES).mkdir(parents=True, exist_ok=True)  # the importer wants the folder, pictures or not
    write_atomic(folder / "annotations" / f"{task}_default.json",
                 json.dumps(document, ensure_ascii=False, indent=1).encode("utf-8"))
    if options.frames:
        write_frames(analysis, Path(options.video or info.path), frames, folder / IMAGES)
    return []


def write_frames(analysis: Analysis, video: Path, frames: list[int], folder: Path) -> None:
    """The ``frames``' pictures as the app decodes them (display size and orientation), JPEG."""
    import cv2

    from ..media import open_video

    with open_video(video) as source:  # MediaError (the file, what is wrong) where it cannot be decoded
        check_video(analysis, video, "", source.info.width, source.info.height, source.info.frame_count)
        for start in range(0, len(frames), BATCH):
            batch = source.frames_at_indices(frames[start:start + BATCH])
            for frame, picture in zip(batch.indices, batch.frames):
                done, data = cv2.imencode(".jpg", cv2.cvtColor(picture, cv2.COLOR_RGB2BGR),
                                          [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
                if not done:
                    raise AnnotationError(folder / file_name(int(frame)), "", "could not encode the picture")
                write_atomic(folder / file_name(int(frame)), data.tobytes())
