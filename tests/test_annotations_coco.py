"""COCO instances and person keypoints (annotations/coco.py): the real street clip's
exports as Datumaro's coco importers read them, and with --frames the pictures Datumaro
finds, each the frame the app decodes."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from tool_readers import datumaro_read
from videoreview.annotations import Options, export_annotations, read_annotations
from videoreview.annotations.coco import COCO_IDS, KEYPOINT_SCORE, SKELETON
from videoreview.annotations.tracks import body_tracks, face_tracks, object_tracks
from videoreview.engines.objects.decode import KEYPOINTS
from videoreview.errors import VideoReviewError
from videoreview.media import open_video


def _close(a, b, tolerance: float = 0.01) -> bool:
    return len(a) == len(b) and all(abs(x - y) <= tolerance for x, y in zip(a, b))


def _by_box(read: dict, kind: str) -> dict[tuple[str, str, int], dict]:
    """Datumaro's annotations of ``kind`` by (item id, label, track id)."""
    found = {}
    for item in read["items"]:
        for ann in item["annotations"]:
            if ann["type"] == kind:
                key = (item["id"], ann["label"], ann["attributes"]["track_id"])
                assert key not in found
                found[key] = ann
    return found


def test_instances_as_datumaro_reads_them(street, tmp_path):
    _, analysis = street
    assert export_annotations(analysis, "coco_instances", tmp_path) == []
    read = datumaro_read("coco_instances", tmp_path)
    assert read["labels"][:80] == list(COCO_IDS) and read["labels"][-1] == "face"
    tracks = [*object_tracks(analysis), *face_tracks(analysis)]
    expected = {(f"frame_{frame:06d}", t.label, t.id): box for t in tracks for frame, box in t.boxes.items()}
    got = _by_box(read, "bbox")
    assert set(got) == set(expected)
    assert all(_close(got[key]["bbox"], box) for key, box in expected.items())
    assert all(ann["attributes"]["is_crowd"] is False for ann in got.values())
    people = {t.id for t in tracks if t.label == "person"}
    assert len(people) > 10 and {key[2] for key in got if key[1] == "person"} == people  # every person track
    frames = sorted({frame for t in tracks for frame in t.boxes})
    assert [item["id"] for item in sorted(read["items"], key=lambda i: i["id"])] == [f"frame_{f:06d}" for f in frames]

    written = json.loads((tmp_path / "annotations" / "instances_default.json").read_text(encoding="utf-8"))
    assert {c["name"]: c["id"] for c in written["categories"]}["toothbrush"] == 90  # COCO's own ids
    assert {(i["id"], i["width"], i["height"]) for i in written["images"]} == {(f + 1, 768, 576) for f in frames}
    assert all(a["area"] == pytest.approx(a["bbox"][2] * a["bbox"][3], abs=0.01) for a in written["annotations"])


def test_person_keypoints_as_datumaro_reads_them(street, tmp_path):
    _, analysis = street
    assert export_annotations(analysis, "coco_person_keypoints", tmp_path) == []
    read = datumaro_read("coco_person_keypoints", tmp_path)
    assert read["labels"] == ["person"]
    bodies = body_tracks(analysis)
    assert len(bodies) > 5
    boxes, points = _by_box(read, "bbox"), _by_box(read, "points")
    keys = {(f"frame_{frame:06d}", "person", t.id): (t.boxes[frame], t.keypoints[frame])
            for t in bodies for frame in t.boxes}
    assert set(boxes) == set(points) == set(keys)
    seen = hidden = 0
    for key, (box, keypoints) in keys.items():
        assert _close(boxes[key]["bbox"], box)
        for k in range(17):
            x, y, score = keypoints[3 * k:3 * k + 3]
            got = points[key]["points"][2 * k:2 * k + 2]
            if score >= KEYPOINT_SCORE:
                assert points[key]["visibility"][k] == 2 and _close(got, (x, y))
                seen += 1
            else:
                assert points[key]["visibility"][k] == 0 and got == [0, 0]
                hidden += 1
    assert seen > 10 * hidden > 0  # MoveNet scores most points of a walker: both kinds are here

    written = json.loads((tmp_path / "annotations" / "person_keypoints_default.json").read_text(encoding="utf-8"))
    (person,) = written["categories"]
    assert person["keypoints"] == list(KEYPOINTS) and person["skeleton"] == [list(pair) for pair in SKELETON]
    assert all(a["num_keypoints"] == sum(v > 0 for v in a["keypoints"][2::3]) for a in written["annotations"])


def test_frames_are_the_pictures_the_app_decodes(street, tmp_path):
    path, analysis = street
    assert export_annotations(analysis, "coco_person_keypoints", tmp_path, Options(video=path, frames=True)) == []
    read = datumaro_read("coco_person_keypoints", tmp_path)
    frames = sorted({frame for t in body_tracks(analysis) for frame in t.boxes})
    images = {item["id"]: item["image"] for item in read["items"]}
    assert sorted(images) == [f"frame_{f:06d}" for f in frames]
    last = analysis.video.frame_count - 1
    with open_video(path) as source:
        decoded = source.frames_at_indices(frames).frames
        beside = source.frames_at_indices([f + 1 if f < last else f - 1 for f in frames]).frames

    def difference(on_disk, rgb) -> float:
        return float(np.abs(on_disk.astype(int) - cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR).astype(int)).mean())

    for frame, own, next_one in zip(frames, decoded, beside):
        on_disk = cv2.imread(images[f"frame_{frame:06d}"])
        assert on_disk is not None and on_disk.shape == (576, 768, 3)
        # JPEG at quality 95 is within 2 levels of the decoded frame (1.4 at most, measured), and
        # nearer it than the frame beside it (2.1 at least on this slow street): the right frame.
        assert difference(on_disk, own) < min(2.0, difference(on_disk, next_one)), frame


def test_coco_is_written_not_read(street, tmp_path):
    _, analysis = street
    export_annotations(analysis, "coco_instances", tmp_path)
    with pytest.raises(VideoReviewError, match="coco_instances files are written, not read back"):
        read_annotations(analysis, tmp_path / "annotations" / "instances_default.json", "coco_instances")


def test_frames_of_another_video_are_refused(street, tmp_path):
    from videos import make_index_video

    _, analysis = street
    other = make_index_video(tmp_path, frames=20).path
    with pytest.raises(VideoReviewError, match="made for a .* this one is 768x576, 795 frames"):
        export_annotations(analysis, "coco_instances", tmp_path / "out", Options(video=other, frames=True))
