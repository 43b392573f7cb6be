"""CVAT for video 1.1 out and back (annotations/cvat.py, cvat_edits.py): the face scene
analysed by the fake engines (object "person" boxes over the pasted pictures, their faces
and bodies, the cuts, the captions) exported, corrected in the XML as CVAT would write it,
and read back as reviewer edits that survive a re-analysis; the real street clip's export
read by Datumaro; a hand-edited file brought back by ``videoreview import``; bad files
refused in one line that names them, the analysis unchanged."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from fake_engines import WITH_PEOPLE
from helpers import run_process
from tool_readers import datumaro_read
from videoreview.annotations import AnnotationError, export_annotations, read_annotations
from videoreview.annotations.tracks import tracks
from videoreview.pipeline import StageCache, analyze
from videoreview.records import Analysis


@pytest.fixture(scope="module")
def analysed(scene, tmp_path_factory):
    cache = StageCache(tmp_path_factory.mktemp("cvat cache"))
    analysis = analyze(scene.path, WITH_PEOPLE, cache=cache)
    assert {t.capability for t in tracks(analysis)} == {"objects", "faces", "poses"}
    return analysis, cache


def exported(analysis: Analysis, folder: Path) -> Path:
    assert export_annotations(analysis, "cvat", folder) == []
    return folder / "annotations.xml"


def key_of(track) -> str | None:
    """A <track>'s ``track`` attribute ("objects 3"); None for boundaries and captions."""
    named = track.find("*/attribute[@name='track']")
    return None if named is None else named.text


def track_element(root, key: str):
    return next(t for t in root.iter("track") if key_of(t) == key)


def applied(analysis: Analysis, path) -> tuple[Analysis, list[str]]:
    found = read_annotations(analysis, path)
    for edit in found:
        analysis = edit.change(analysis)
    return analysis, [e.text for e in found]


def canonical(path) -> str:
    """The file as XML means it: no layout whitespace, attributes in order."""
    return ET.canonicalize(from_file=str(path), strip_text=True)


def renumbered(root) -> None:
    """Track ids 0, 1, ... in file order, as CVAT writes them on every export."""
    for number, track in enumerate(root.iter("track")):
        track.set("id", str(number))


def test_round_trip_brings_back_the_corrections_and_they_survive_reanalysis(scene, analysed, tmp_path):
    analysis, cache = analysed
    path = exported(analysis, tmp_path / "first")
    again = exported(analysis, tmp_path / "again")
    assert path.read_bytes() == again.read_bytes()  # deterministic
    assert read_annotations(analysis, path) == []  # an untouched export says nothing changed

    objects = [t for t in tracks(analysis) if t.capability == "objects"]
    relabel, move, delete = objects[0], objects[1], objects[2]
    caption = analysis.captions[1]
    tree = ET.parse(path)
    root = tree.getroot()
    # CVAT: the track relabelled (the new label's attributes only), a box dragged, a track deleted.
    element = track_element(root, f"objects {relabel.id}")
    element.set("label", "dog")
    for box in element:
        box.remove(box.find("attribute[@name='identity']"))
    moved_frame = next(iter(move.boxes))
    box = track_element(root, f"objects {move.id}").find(f"box[@frame='{moved_frame}']")
    x, y, w, h = move.boxes[moved_frame]
    box.set("xtl", f"{x + 20:.2f}")
    box.set("xbr", f"{x + w + 20:.2f}")
    root.remove(track_element(root, f"objects {delete.id}"))
    for track in root.iter("track"):
        if track.get("label") == "caption" and track.find("box").get("frame") == str(caption.frame):
            for shape in track:
                shape.find("attribute[@name='text']").text = "A dog runs past."
    renumbered(root)
    tree.write(path, encoding="utf-8", xml_declaration=True)

    edited, said = applied(analysis, path)
    assert len(said) == 4, said
    by_id = {t.id: t for t in tracks(edited) if t.capability == "objects"}
    assert by_id[relabel.id].label == "dog" and delete.id not in by_id
    assert by_id[move.id].boxes[moved_frame] == pytest.approx((round(x + 20, 2), y, w, h), abs=0.011)
    assert [t.label for t in by_id.values()].count("dog") == 1
    assert next(c for c in edited.captions if c.frame == caption.frame).text == "A dog runs past."
    assert [t for t in tracks(edited) if t.capability != "objects"] == \
           [t for t in tracks(analysis) if t.capability != "objects"]
    assert edited.boundaries == analysis.boundaries and len(edited.track_edits) == 3

    # What the format carries comes out as the reviewer left it (CVAT renumbers the tracks).
    second = exported(edited, tmp_path / "second")
    assert canonical(second) == canonical(path)

    rerun = analyze(scene.path, WITH_PEOPLE, cache=cache, previous=edited)
    kept = {t.id: t for t in tracks(rerun) if t.capability == "objects"}
    assert kept[relabel.id].label == "dog" and delete.id not in kept
    assert kept[move.id].boxes[moved_frame] == by_id[move.id].boxes[moved_frame]
    assert next(c for c in rerun.captions if c.frame == caption.frame).text == "A dog runs past."


def test_identities_boundaries_and_bodies_come_back(analysed, tmp_path):
    analysis, _ = analysed
    path = exported(analysis, tmp_path)
    tree = ET.parse(path)
    root = tree.getroot()
    faces = [t for t in tracks(analysis) if t.capability == "faces"]
    second = [t for t in faces if t.attributes["identity"] == "P2"]
    for track in second:  # every face of P2 says who it is: P2 is renamed
        for shape in track_element(root, f"faces {track.id}"):
            shape.find("attribute[@name='identity']").text = "Eileen Collins"
    body = next(t for t in tracks(analysis) if t.capability == "poses")
    for element in [t for t in root.iter("track") if key_of(t) == f"poses {body.id}"]:
        root.remove(element)  # the body's box and keypoints tracks
    first, *rest = analysis.boundaries
    for track in [t for t in root.iter("track") if t.get("label") == "boundary"]:
        shape = track.find("box")
        if shape.get("frame") == str(first.frame):
            root.remove(track)
        elif shape.get("frame") == str(rest[0].frame):
            shape.find("attribute[@name='kind']").text = "event"
    added = ET.SubElement(root, "track", {"id": "99", "label": "boundary", "source": "manual"})
    ET.SubElement(added, "box", {"frame": "30", "keyframe": "1", "outside": "0", "occluded": "0", "xtl": "0",
                                 "ytl": "0", "xbr": "640", "ybr": "360", "z_order": "0"})
    for name, value in (("kind", "event"), ("subject", "P1"), ("before", "still"), ("after", "moving")):
        ET.SubElement(added[0], "attribute", {"name": name}).text = value
    tree.write(path, encoding="utf-8", xml_declaration=True)

    edited, said = applied(analysis, path)
    assert len(said) == 5, said
    assert [i.name for i in edited.identities if i.id == "P2"] == ["Eileen Collins"]
    assert body.id not in {t.id for t in edited.poses}
    frames = {b.frame: b for b in edited.boundaries}
    assert first.frame not in frames and frames[rest[0].frame].kind == "event"
    assert frames[30].kind == "event" and frames[30].caption.subject == "P1" and frames[30].edited


def test_datumaro_reads_the_street_clip_export(street, tmp_path):
    """Every track of the real street clip (people walking: objects, faces, bodies), as Datumaro reads it."""
    _, analysis = street
    written = [t for t in tracks(analysis)]
    assert sum(t.label == "person" for t in written) >= 4, "the street clip has people"
    exported(analysis, tmp_path)
    read = datumaro_read("cvat", tmp_path)
    assert {"person", "face", "boundary", "caption"} <= set(read["labels"])
    boxes: dict[str, dict[int, list[float]]] = {}
    labels: dict[str, str] = {}
    for item in read["items"]:
        assert item["id"] == f"frame_{item['frame']:06d}"
        for ann in item["annotations"]:
            key = ann["attributes"].get("track")
            if ann["type"] == "bbox" and key and not ann["attributes"]["outside"]:
                boxes.setdefault(key, {})[item["frame"]] = ann["bbox"]
                labels[key] = ann["label"]
    width, height = analysis.video.width, analysis.video.height
    for track in written:
        key = f"{track.capability} {track.id}"
        assert labels[key] == track.label and sorted(boxes[key]) == sorted(track.boxes), key
        for frame, (x, y, w, h) in track.boxes.items():
            x1, y1 = max(x, 0), max(y, 0)
            x2, y2 = min(x + w, width), min(y + h, height)
            assert boxes[key][frame] == pytest.approx([x1, y1, x2 - x1, y2 - y1], abs=0.02), (key, frame)


def test_a_hand_edited_file_comes_back_through_the_command(analysed, tmp_path):
    analysis, _ = analysed
    saved = tmp_path / "scene.json"
    analysis.save(saved)
    path = exported(analysis, tmp_path / "cvat")
    track = next(t for t in tracks(analysis) if t.capability == "objects")
    text = path.read_text(encoding="utf-8")
    head = '<track id="0" label="person" source="auto">'
    assert text.count(head) == 1
    path.write_text(text.replace(head, '<track id="0" label="bicycle" source="auto">'), encoding="utf-8")

    done = run_process("import", path, "--into", saved)
    assert done.returncode == 0, done.stderr
    assert "bicycle" in done.stderr and "1 edit" in done.stderr
    back = Analysis.load(saved)
    assert next(t for t in back.object_tracks if t.id == track.id).label == "bicycle"
    assert [e.op for e in back.track_edits] == ["relabel"]


def damaged(text: str) -> str:
    return text[: len(text) // 2]


def doctype(text: str) -> str:
    return text.replace("<annotations>", '<!DOCTYPE a [<!ENTITY x "boom">]>\n<annotations>', 1)


def unknown_label(text: str) -> str:
    return text.replace('<track id="0" label="person"', '<track id="0" label="unicorn"', 1)


def past_the_end(text: str) -> str:
    return text.replace('<box frame="0" ', '<box frame="900" ', 1)


def outside_the_picture(text: str) -> str:
    return text.replace('xbr="640.00"', 'xbr="1640.00"', 1)


def another_video(text: str) -> str:
    return text.replace("<width>640</width>", "<width>1920</width>", 1)


def for_images(text: str) -> str:
    return text.replace("</meta>", '</meta>\n  <image id="0" name="frame_000000.png" width="640" height="360" />', 1)


def other_format(text: str) -> str:
    return '<?xml version="1.0"?>\n<dataset>\n  <item />\n</dataset>\n'


BAD = {damaged: "damaged XML", doctype: "document type", unknown_label: "unknown label 'unicorn'",
       past_the_end: "past the video's end", outside_the_picture: "not inside the 640x360 picture",
       another_video: "made for a 1920x360 video", for_images: "CVAT for images", other_format: "not CVAT XML"}


@pytest.mark.parametrize("spoil", BAD, ids=[f.__name__ for f in BAD])
def test_bad_files_are_refused_in_one_line(analysed, tmp_path, spoil):
    analysis, _ = analysed
    path = exported(analysis, tmp_path)
    path.write_text(spoil(path.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(AnnotationError) as error:
        read_annotations(analysis, path)
    message = str(error.value)
    assert message.startswith(f"{path}: ") and "\n" not in message and BAD[spoil] in message, message
    assert "line " in message or spoil is another_video, message


def test_the_command_leaves_the_analysis_alone_on_a_bad_file(analysed, tmp_path):
    analysis, _ = analysed
    saved = tmp_path / "scene.json"
    analysis.save(saved)
    before = saved.read_bytes()
    path = exported(analysis, tmp_path / "cvat")
    path.write_text(unknown_label(path.read_text(encoding="utf-8")), encoding="utf-8")
    done = run_process("import", path, "--into", saved)
    assert done.returncode != 0 and str(path) in done.stderr and "unicorn" in done.stderr
    assert saved.read_bytes() == before
