"""MOT Challenge sequences (annotations/mot.py): the real street clip's tracks as Datumaro's
mot_seq importer reads them, a reviewed gt.txt read back as exactly the edits made in it,
and files that cannot be read refused in one line naming the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from faces import SCENE, make_face_video
from fake_engines import WITH_PEOPLE
from tool_readers import datumaro_read
from videoreview.annotations import AnnotationError, export_annotations, guess_format, read_annotations
from videoreview.annotations.mot import ID_BASE, labels, mot_id
from videoreview.annotations.tracks import tracks
from videoreview.pipeline import StageCache, analyze


def _rows(folder: Path) -> list[list[str]]:
    return [line.split(",") for line in (folder / "gt" / "gt.txt").read_text(encoding="utf-8").splitlines()]


def _write_rows(folder: Path, rows: list[list[str]]) -> None:
    (folder / "gt" / "gt.txt").write_text("".join(",".join(row) + "\n" for row in rows), encoding="utf-8")


@pytest.fixture(scope="module")
def exported(street, tmp_path_factory):
    _, analysis = street
    folder = tmp_path_factory.mktemp("mot") / "street"
    assert export_annotations(analysis, "mot_seq", folder) == []
    return analysis, folder


def test_datumaro_reads_every_track_as_written(exported):
    analysis, folder = exported
    found = tracks(analysis)
    assert {t.capability for t in found} >= {"objects", "poses"}  # the street has people boxed and posed
    read = datumaro_read("mot_seq", folder)
    assert read["labels"] == labels(analysis)
    assert len(read["items"]) == analysis.video.frame_count  # seqinfo.ini's seqLength: every frame an item
    got = {(int(item["id"]), ann["attributes"]["track_id"]): (ann["label"], [round(v, 2) for v in ann["bbox"]])
           for item in read["items"] for ann in item["annotations"]}
    expected = {(frame + 1, mot_id(t)): (t.label, [round(v, 2) for v in box])
                for t in found for frame, box in t.boxes.items()}
    assert got == expected
    people = [t for t in found if t.label == "person"]
    assert len({mot_id(t) for t in people}) == len(people) > 10  # every person track, each its own id
    assert {ident for _, ident in got} == {mot_id(t) for t in found}


def test_the_files_say_the_video(exported):
    analysis, folder = exported
    info = (folder / "seqinfo.ini").read_text(encoding="utf-8").splitlines()
    assert info == ["[Sequence]", "name=vtest", "imDir=img1", "frameRate=10", f"seqLength={analysis.video.frame_count}",
                    "imWidth=768", "imHeight=576", "imExt=.jpg"]
    assert guess_format(folder).name == guess_format(folder / "gt" / "gt.txt").name == "mot_seq"
    assert read_annotations(analysis, folder) == []  # as written: nothing to change


def test_edits_made_in_gt_come_back_exactly(exported, tmp_path):
    analysis, written = exported
    found = tracks(analysis)
    people = [t for t in found if t.capability == "objects" and t.label == "person"]
    objects = sorted(people, key=lambda t: -len(t.boxes))
    bodies = [t for t in found if t.capability == "poses"]
    gone, moved, relabelled = objects[0], objects[1], objects[2]
    gone_body, moved_body = bodies[0], bodies[1]
    move_at, body_at = list(moved.boxes)[1], list(moved_body.boxes)[0]
    new_box, new_body_box = ["100", "120.5", "40", "90.25"], ["10", "20", "30", "60"]
    bicycle = str(labels(analysis).index("bicycle") + 1)
    rows = []
    for row in _rows(written):
        frame, ident = int(row[0]) - 1, int(row[1])
        if ident in (mot_id(gone), mot_id(gone_body)):
            continue
        if (ident, frame) == (mot_id(moved), move_at):
            row[2:6] = new_box
        if (ident, frame) == (mot_id(moved_body), body_at):
            row[2:6] = new_body_box
        if ident == mot_id(relabelled):
            row[7] = bicycle
        rows.append(row)
    folder = tmp_path / "edited"
    for name in ("seqinfo.ini", "gt/labels.txt"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes((written / name).read_bytes())
    _write_rows(folder, rows)

    edits = read_annotations(analysis, folder / "gt" / "gt.txt")
    assert [e.text for e in edits] == [
        f"MOT: delete object track {gone.id} (person)", f"MOT: delete body track {gone_body.id} (person)",
        f"MOT: relabel object track {relabelled.id} (person) as bicycle",
        f"MOT: move object track {moved.id} (person)'s box at frame {move_at}",
        f"MOT: move body track {moved_body.id} (person)'s box at frame {body_at}"]
    edited = analysis
    for edit in edits:
        edited = edit.change(edited)
    assert [(e.op, e.capability) for e in edited.track_edits] == [
        ("delete", "objects"), ("delete", "poses"), ("relabel", "objects"), ("move", "objects"), ("move", "poses")]
    after = {(t.capability, t.id): t for t in tracks(edited)}
    before = {(t.capability, t.id): t for t in found}
    assert set(before) - set(after) == {("objects", gone.id), ("poses", gone_body.id)}
    assert after["objects", relabelled.id].label == "bicycle"
    assert after["objects", moved.id].boxes[move_at] == tuple(map(float, new_box))
    assert after["poses", moved_body.id].boxes[body_at] == tuple(map(float, new_body_box))
    changed = {("objects", relabelled.id), ("objects", moved.id), ("poses", moved_body.id)}
    assert all(after[key] == track for key, track in before.items() if key in after and key not in changed)

    again = tmp_path / "again"
    export_annotations(edited, "mot_seq", again)
    for name in ("gt/gt.txt", "gt/labels.txt", "seqinfo.ini"):
        assert (again / name).read_text(encoding="utf-8") == (folder / name).read_text(encoding="utf-8"), name
    assert read_annotations(edited, again) == []


def _bad(written: Path, folder: Path, change) -> Path:
    for name in ("seqinfo.ini", "gt/labels.txt", "gt/gt.txt"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes((written / name).read_bytes())
    rows = _rows(folder)
    change(rows)
    _write_rows(folder, rows)
    return folder / "gt" / "gt.txt"


def _set(row: int, column: int, value: str):
    def change(rows):
        rows[row][column] = value
    return change


def _first_frame_of(rows, ident: int) -> int:
    return next(k for k, row in enumerate(rows) if int(row[1]) == ident)


BAD = {
    "damaged": (lambda rows: rows.__setitem__(4, ["5", "2", "12.5x"]), "line 5: 3 fields; a MOT line has at least 6"),
    "not a number": (_set(6, 3, "abc"), "line 7: the frame, id, box and class must be numbers"),
    "past the end": (_set(2, 0, "796"), "line 3: frame 796 is outside the video (frames 1 to 795)"),
    "frame 0": (_set(2, 0, "0"), "line 3: frame 0 is outside the video"),
    "outside the picture": (_set(3, 2, "760"), "line 4: the box 760,"),
    "no size": (_set(3, 4, "0"), "line 4: the box"),
    "unknown class": (_set(1, 7, "200"), "line 2: class 200 is not in labels.txt (classes 1 to 81)"),
    "a new track": (_set(0, 1, "999"), "line 1: track 999 is not one of this analysis's tracks"),
    "twice at a frame": (lambda rows: rows.insert(1, list(rows[0])), "line 2: track 1 has a second box at frame 1"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_lines_are_refused_naming_the_line(exported, tmp_path, case):
    analysis, written = exported
    change, message = BAD[case]
    path = _bad(written, tmp_path, change)
    with pytest.raises(AnnotationError) as error:
        read_annotations(analysis, path)
    assert str(error.value).startswith(f"{path}: {message}"), str(error.value)
    assert "\n" not in str(error.value)


def test_boxes_are_neither_added_nor_dropped_one_by_one(exported, tmp_path):
    analysis, written = exported
    track = next(t for t in tracks(analysis) if len(t.boxes) > 2)
    path = _bad(written, tmp_path / "dropped", lambda rows: rows.pop(_first_frame_of(rows, mot_id(track))))
    with pytest.raises(AnnotationError, match=rf"frame {track.first + 1}: .*a track is deleted whole"):
        read_annotations(analysis, path)
    free = next(f for f in range(analysis.video.frame_count) if f not in track.boxes)

    def added(rows):
        row = list(rows[_first_frame_of(rows, mot_id(track))])
        rows.append([str(free + 1), *row[1:]])
    path = _bad(written, tmp_path / "added", added)
    with pytest.raises(AnnotationError, match=rf"has no box at frame {free + 1}; boxes are not added"):
        read_annotations(analysis, path)


def test_a_body_keeps_its_class(exported, tmp_path):
    analysis, written = exported
    body = next(t for t in tracks(analysis) if t.capability == "poses")
    path = _bad(written, tmp_path, _set_class(mot_id(body), "3"))
    with pytest.raises(AnnotationError, match="a body is a person; its class cannot change"):
        read_annotations(analysis, path)


def test_a_track_has_one_class(exported, tmp_path):
    analysis, written = exported
    track = next(t for t in tracks(analysis) if t.capability == "objects" and len(t.boxes) > 1)

    def change(rows):
        rows[_first_frame_of(rows, mot_id(track))][7] = "3"
    with pytest.raises(AnnotationError, match=f"object track {track.id} .* has more than one class; a track has one"):
        read_annotations(analysis, _bad(written, tmp_path, change))


def test_an_object_does_not_become_a_face(exported, tmp_path):
    analysis, written = exported
    track = next(t for t in tracks(analysis) if t.capability == "objects")
    path = _bad(written, tmp_path, _set_class(mot_id(track), str(len(labels(analysis)))))
    with pytest.raises(AnnotationError, match="an object track cannot become a face"):
        read_annotations(analysis, path)


def _set_class(ident: int, value: str):
    def change(rows):
        for row in rows:
            if int(row[1]) == ident:
                row[7] = value
    return change


def test_another_videos_sequence_is_refused(exported, tmp_path):
    analysis, written = exported
    path = _bad(written, tmp_path, lambda rows: None)
    info = tmp_path / "seqinfo.ini"
    info.write_text(info.read_text(encoding="utf-8").replace("imWidth=768", "imWidth=1920"), encoding="utf-8")
    with pytest.raises(AnnotationError) as error:
        read_annotations(analysis, path)
    assert str(error.value) == (f"{info}: made for a 1920x576 video of 795 frames; this one is 768x576, 795 frames")


# -- face tracks: deleted they are not faces; their boxes and class stay ---------------------

@pytest.fixture(scope="module")
def with_faces(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mot faces")
    clip = make_face_video(folder / "scene.mp4", SCENE)
    analysis = analyze(clip.path, WITH_PEOPLE, cache=StageCache(folder / "cache"))
    assert analysis.face_tracks
    export_annotations(analysis, "mot_seq", folder / "out")
    return analysis, folder / "out"


def test_a_face_track_deleted_is_not_a_face(with_faces, tmp_path):
    analysis, written = with_faces
    face = next(t for t in tracks(analysis) if t.capability == "faces")
    assert mot_id(face) == ID_BASE["faces"] + face.id + 1
    path = _bad(written, tmp_path, lambda rows: rows.__setitem__(slice(None), [
        row for row in rows if int(row[1]) != mot_id(face)]))
    edits = read_annotations(analysis, path)
    assert [e.text for e in edits] == [f"MOT: not a face: face track {face.id} (face)"]
    edited = edits[0].change(analysis)
    assert face.id not in {t.id for t in edited.face_tracks}
    assert [e.op for e in edited.identity_edits] == ["not_a_face"]


@pytest.mark.parametrize("column, value, message", [
    (2, "11", "a face's box cannot be moved in MOT"),
    (7, "1", "a face's class cannot change in MOT"),
])
def test_a_face_keeps_its_box_and_class(with_faces, tmp_path, column, value, message):
    analysis, written = with_faces
    face = next(t for t in tracks(analysis) if t.capability == "faces")

    def change(rows):
        rows[_first_frame_of(rows, mot_id(face))][column] = value
    with pytest.raises(AnnotationError, match=message):
        read_annotations(analysis, _bad(written, tmp_path, change))
    with pytest.raises(AnnotationError, match=message):  # every line of it alike
        read_annotations(analysis, _bad(written, tmp_path / "all", _set_class(mot_id(face), "1") if column == 7
                                        else lambda rows: change(rows)))
