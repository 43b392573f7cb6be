"""Label Studio's JSON tasks for video, checked by a real Label Studio (1.23.2, its own
virtualenv, tests/tool_readers.py) started on 127.0.0.1 for this module: a project made
through its HTTP API with the exported label_config.xml, the exported tasks.json imported
(with its prediction checks on, so every region must fit the configuration), the project
exported back as its Export button does, and what comes back compared with what was
written. An annotator's corrections, saved through the API as their annotation, and a hand
edit of the exported JSON come back into the analysis as reviewer edits.

The analysis is the real street clip's (tests/conftest.py's ``street``: object and body
tracks, boundaries with captions, frame captions), with one speech segment added, as the
clip has no sound."""

from __future__ import annotations

import copy
import json
from dataclasses import replace

import pytest

import tool_readers
from helpers import assert_refused
from videoreview.annotations import export_annotations, read_annotations
from videoreview.records import TranscriptSegment


@pytest.fixture(scope="module")
def analysis(street):
    _, found = street
    return replace(found, transcript=(TranscriptSegment(10.0, 12.5, "keep to the left"),))


@pytest.fixture(scope="module")
def written(analysis, tmp_path_factory):
    folder = tmp_path_factory.mktemp("label-studio")
    assert export_annotations(analysis, "label-studio", folder) == []
    return folder


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from tool_readers.start_label_studio(tmp_path_factory.mktemp("label-studio-data"))


@pytest.fixture(scope="module")
def project(server, written):
    """A project made with the exported configuration, the exported task imported: (its id,
    the task's id, the project's export)."""
    made = server.call("POST", "/api/projects", {"title": "street review",
                                                 "label_config": (written / "label_config.xml").read_text()})
    tasks = json.loads((written / "tasks.json").read_text())
    imported = server.call("POST", f"/api/projects/{made['id']}/import", tasks)
    assert (imported["task_count"], imported["prediction_count"]) == (1, 1)
    exported = server.export(made["id"])
    return made["id"], exported[0]["id"], exported


def regions(result: list, renamed: dict | None = None) -> dict:
    """Each region's value by (id, control), numbers to 4 places; ``renamed``: ids changed."""
    def rounded(value):
        if isinstance(value, float):
            return round(value, 4)
        if isinstance(value, dict):
            return {k: rounded(v) for k, v in value.items()}
        return [rounded(v) for v in value] if isinstance(value, list) else value

    renamed = renamed or {}
    return {(renamed.get(r["id"], r["id"]), r["from_name"]): rounded(r["value"]) for r in result}


def test_label_studio_gives_back_what_was_written(project, written, analysis):
    _, _, exported = project
    ours = json.loads((written / "tasks.json").read_text())[0]
    assert len(exported) == 1 and exported[0]["data"] == ours["data"]
    back = regions(exported[0]["predictions"][0]["result"])
    assert back == regions(ours["predictions"][0]["result"])
    kinds = {rid.split("-")[0] for rid, _ in back}
    assert kinds == {"objects", "poses", "boundary", "caption", "speech"}
    assert len([1 for rid, name in back if name == "box"]) == len(analysis.object_tracks) + len(analysis.poses)
    boundary = analysis.boundaries[0]
    assert back[(f"boundary-{boundary.frame}", "timeline")] == {
        "ranges": [{"start": boundary.frame + 1, "end": boundary.frame + 1}], "timelinelabels": [boundary.kind]}
    assert back[(f"boundary-{boundary.frame}", "subject")] == {"text": [boundary.caption.subject]}
    assert back[("speech-0", "text")] == {"text": ["keep to the left"]}
    # and its export, unchanged, reads back as no change
    (written / "export.json").write_text(json.dumps(exported))
    assert read_annotations(analysis, written / "export.json") == []


def test_a_hand_edit_of_the_export_comes_back(project, written, analysis):
    _, _, exported = project
    edited = copy.deepcopy(exported)
    result = edited[0]["predictions"][0]["result"]
    caption = analysis.captions[3]
    for region in result:
        if region["id"] == f"caption-{caption.frame}" and region["from_name"] == "text":
            region["value"]["text"] = ["A street with people walking."]
    (written / "hand.json").write_text(json.dumps(edited, indent=1))
    found = read_annotations(analysis, written / "hand.json", "label-studio")
    assert [(e.text, e.author) for e in found] == [
        (f"Label Studio: the caption at frame {caption.frame}: A street with people walking.", "")]
    after = found[0].change(analysis)
    assert next(c for c in after.captions if c.frame == caption.frame).text == "A street with people walking."


def corrected(result: list, analysis) -> tuple[list, dict]:
    """The prediction as an annotator corrects it: an object track relabelled, a body's box
    moved, an object track deleted, a boundary moved (its caption cleared), another's caption
    rewritten, a frame caption rewritten. (The result, what was changed.)"""
    result = copy.deepcopy(result)
    car, gone = analysis.object_tracks[:2]
    body = analysis.poses[0]
    moved_boundary, captioned = analysis.boundaries[1], analysis.boundaries[2]
    caption = analysis.captions[5]
    kept = []
    for region in result:
        rid, name, value = region["id"], region["from_name"], region["value"]
        if rid == f"objects-{gone.id}" or (rid == f"boundary-{moved_boundary.frame}" and name != "timeline"):
            continue
        if rid == f"objects-{car.id}":
            value["labels"] = ["truck" if car.label != "truck" else "bus"]
        if rid == f"poses-{body.id}" and name == "box":
            value["sequence"][0]["x"] += 2.0 if value["sequence"][0]["x"] < 50 else -2.0
        if rid == f"boundary-{moved_boundary.frame}":
            value["ranges"] = [{"start": moved_boundary.frame + 4, "end": moved_boundary.frame + 4}]
        if rid == f"boundary-{captioned.frame}" and name in ("subject", "before", "after"):
            value["text"] = [{"subject": "a man in a dark coat", "before": "standing by the car",
                              "after": "crossing the street"}[name]]
        if rid == f"caption-{caption.frame}" and name == "text":
            value["text"] = ["People cross a wet street."]
        kept.append(region)
    return kept, {"car": car, "gone": gone, "body": body, "moved": moved_boundary, "captioned": captioned,
                  "caption": caption}


def test_an_annotators_corrections_come_back_as_their_edits(server, project, written, analysis):
    project_id, task_id, exported = project
    result, changed = corrected(exported[0]["predictions"][0]["result"], analysis)
    server.call("POST", f"/api/tasks/{task_id}/annotations", {"result": result, "was_cancelled": False})
    export = server.export(project_id)
    assert export[0]["annotations"][0]["completed_by"]["email"] == tool_readers.LABEL_STUDIO_USER
    (written / "annotated.json").write_text(json.dumps(export))
    found = read_annotations(analysis, written / "annotated.json")  # the format guessed
    assert {e.author for e in found} == {tool_readers.LABEL_STUDIO_USER}
    assert len(found) == 6, [e.text for e in found]
    after = analysis
    for edit in found:
        after = edit.change(after)
    car, gone, body = changed["car"], changed["gone"], changed["body"]
    assert next(t for t in after.object_tracks if t.id == car.id).label in ("truck", "bus") != car.label
    assert gone.id not in {t.id for t in after.object_tracks}
    first = min(s.frame for s in analysis.pose_samples if s.track == body.id)
    was = next(s.box for s in analysis.pose_samples if s.track == body.id and s.frame == first)
    now = next(s.box for s in after.pose_samples if s.track == body.id and s.frame == first)
    assert abs(now[0] - was[0]) == pytest.approx(0.02 * analysis.video.width, abs=0.01) and now[1:] == was[1:]
    frames = {b.frame: b for b in after.boundaries}
    assert changed["moved"].frame not in frames and changed["moved"].frame + 3 in frames
    assert frames[changed["captioned"].frame].caption.subject == "a man in a dark coat"
    assert next(c for c in after.captions if c.frame == changed["caption"].frame).text == "People cross a wet street."
    assert [e.op for e in after.track_edits] == ["delete", "relabel", "move"]
    # exported again, the analysis is what the annotator left
    export_annotations(after, "label-studio", written / "again")
    ours = json.loads((written / "again" / "tasks.json").read_text())[0]["predictions"][0]["result"]
    moved = changed["moved"].frame
    assert regions(ours) == regions(result, {f"boundary-{moved}": f"boundary-{moved + 3}"})


def test_bad_files_are_refused_in_one_line(written, analysis, tmp_path):
    task = json.loads((written / "tasks.json").read_text())
    box = next(r for r in task[0]["predictions"][0]["result"] if r["type"] == "videorectangle")

    def refused(given, text: str, where: str = "") -> None:
        assert_refused(analysis, tmp_path / "tasks.json", given, "label-studio", text, where)

    refused('[{"data": {"video": "x"},\n "predictions": [}', "damaged JSON", "line 2 column 18")
    label = copy.deepcopy(task)
    next(r for r in label[0]["predictions"][0]["result"] if r["id"] == box["id"])["value"]["labels"] = ["unicorn"]
    refused(label, "unknown label 'unicorn'", f"task 1 region {box['id']}")
    past = copy.deepcopy(task)
    next(r for r in past[0]["predictions"][0]["result"] if r["id"] == box["id"])["value"]["sequence"][0]["frame"] = 9999
    refused(past, "outside the video (frames 1 to 795)", f"task 1 region {box['id']} frame 9999")
    outside = copy.deepcopy(task)
    next(r for r in outside[0]["predictions"][0]["result"] if r["id"] == box["id"])["value"]["sequence"][0]["x"] = 150
    refused(outside, "not within the picture", f"task 1 region {box['id']} frame")
    other = copy.deepcopy(task)
    other[0]["data"]["frames"] = 250
    refused(other, "made for a 768x576 video of 250 frames; this one is 768x576, 795 frames", "task 1")
    refused({"vtest": [{"boundary_id": "vtest_0A", "timestamp": 1.0}]}, "not Label Studio's JSON export")
