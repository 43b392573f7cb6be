"""Kinetic-GEB+ boundaries (written and read back) and MICap's clips and identities
(written): the GEB+ export scored by the app's own GEB+ boundary F1 against the analysis's
boundaries, a hand-edited file read back as exactly its changes, bad files refused in one
line; MICap's clips, sets and ids."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from helpers import assert_refused
from test_fuzz import reviewed_analysis
from videoreview.annotations import AnnotationError, export_annotations, read_annotations
from videoreview.annotations.micap import CLIP_SECONDS, SET_SIZE
from videoreview.metrics.boundaries import TOLERANCES, boundary_f1
from videoreview.records import FrameCaption


@pytest.fixture(scope="module")
def street_geb(street, tmp_path_factory):
    _, analysis = street
    folder = tmp_path_factory.mktemp("geb")
    assert export_annotations(analysis, "kinetic-geb", folder) == []
    return analysis, folder / "kinetic_geb.json"


def test_the_export_scores_f1_one_against_the_same_boundaries(street_geb):
    analysis, path = street_geb
    (vid, entries), = json.loads(path.read_text()).items()
    assert vid == "vtest" and len(entries) == len(analysis.boundaries) > 1
    scores, mean = boundary_f1([e["timestamp"] for e in entries], [b.time for b in analysis.boundaries])
    assert [s.tolerance for s in scores] == list(TOLERANCES) and all(s.f1 == 1.0 for s in scores) and mean == 1.0
    first, boundary = entries[0], analysis.boundaries[0]
    assert first["boundary_id"] == "vtest_0A" and first["prev_timestamp"] == 0
    assert entries[-1]["next_timestamp"] == analysis.video.duration
    assert (first["subject"], first["status_before"], first["status_after"]) == (
        boundary.caption.subject, boundary.caption.before, boundary.caption.after)
    assert first["caption"] == (f"Subject: {boundary.caption.subject} //Status_Before: {boundary.caption.before} "
                                f"//Status_After: {boundary.caption.after}")
    assert first["label"] in ("Change of Action", "Multiple")
    assert read_annotations(analysis, path) == []  # guessed, and no change


def test_a_hand_edited_file_comes_back_as_its_changes(street_geb, tmp_path):
    analysis, path = street_geb
    data = json.loads(path.read_text())
    entries = data["vtest"]
    fps = analysis.video.fps
    moved, deleted, captioned = analysis.boundaries[1], analysis.boundaries[2], analysis.boundaries[3]
    entries[1]["timestamp"] = round(moved.time + 5 / fps, 5)
    entries[1].update(subject="", status_before="", status_after="")  # its caption goes with the move
    del entries[2]
    entries[2].update(subject="a woman in red", status_before="walking left", status_after="stop at the door")
    entries.append({"boundary_id": "vtest_99A", "timestamp": 70.0, "label": "Change of Subject",
                    "subject": "a cyclist", "status_before": "not in the scene", "status_after": "in the scene",
                    "next_timestamp": analysis.video.duration})
    edited = tmp_path / "kinetic_geb.json"
    edited.write_text(json.dumps(data))
    found = read_annotations(analysis, edited, "kinetic-geb")
    assert [e.text for e in found] == [
        f"Kinetic-GEB+: delete the boundary at frame {deleted.frame}",
        f"Kinetic-GEB+: move the boundary at frame {moved.frame} to frame {moved.frame + 5}",
        "Kinetic-GEB+: add a boundary at frame 700",
        f"Kinetic-GEB+: the boundary at frame {captioned.frame}: a woman in red / walking left / stop at the door"]
    after = analysis
    for edit in found:
        after = edit.change(after)
    frames = {b.frame: b for b in after.boundaries}
    assert deleted.frame not in frames and moved.frame not in frames and moved.frame + 5 in frames
    assert frames[700].caption.subject == "a cyclist" and frames[700].kind == "event"
    assert frames[captioned.frame].caption.after == "stop at the door"
    again = tmp_path / "again"
    export_annotations(after, "kinetic-geb", again)
    written = json.loads((again / "kinetic_geb.json").read_text())["vtest"]
    assert [(round(e["timestamp"], 1), e["subject"], e["status_before"], e["status_after"]) for e in written] == sorted(
        (round(e["timestamp"], 1), e["subject"], e["status_before"], e["status_after"]) for e in entries)


def test_bad_files_are_refused_in_one_line(street_geb, tmp_path):
    analysis, path = street_geb
    data = json.loads(path.read_text())

    def refused(given, text: str, where: str = "") -> None:
        assert_refused(analysis, tmp_path / "kinetic_geb.json", given, "kinetic-geb", text, where)

    refused('{"vtest": [\n{"timestamp": }]}', "damaged JSON", "line 2 column 15")
    late = json.loads(json.dumps(data))
    late["vtest"][0]["timestamp"] = 500.0
    refused(late, "timestamp 500 s is outside the video (0 to 79.5 s)", "vtest boundary 1 (vtest_0A)")
    odd = json.loads(json.dumps(data))
    odd["vtest"][0]["label"] = "Change of Mood"
    refused(odd, "unknown boundary type 'Change of Mood'", "vtest boundary 1")
    other = json.loads(json.dumps(data))
    other["vtest"][-1]["next_timestamp"] = 10.0
    refused(other, "made for a video of 10 s; this one is 79.5 s", "vtest")
    refused([{"data": {"video": "x"}}], "not Kinetic-GEB+ boundaries")


def test_micap_clips_sets_and_identities(tmp_path):
    analysis = reviewed_analysis()
    analysis = replace(analysis, captions=(FrameCaption(0.0, 0, "Ada walks to the car."), *analysis.captions[1:]))
    assert export_annotations(analysis, "micap", tmp_path) == []
    data = json.loads((tmp_path / "micap.json").read_text())
    clips = data["videos"]
    # shots 0-1 s, 1-3 s, 3-4 s (cuts at 1 and 3 s), none longer than CLIP_SECONDS
    assert [(c["start"], c["end"]) for c in clips] == [(0.0, 1.0), (1.0, 3.0), (3.0, 4.0)]
    assert all(c["end"] - c["start"] <= CLIP_SECONDS for c in clips)
    assert clips[0]["clip"] == "fuzz_00.00.00.000-00.00.01.000" and clips[0]["movie"] == "fuzz"
    assert clips[0]["caption"] == "P1 walks to the car." and clips[0]["character_id"] == ["P1"]
    assert clips[0]["caption_blanks"] == "_____ walks to the car." and clips[0]["num_blanks"] == 1
    assert clips[0]["identities"] == ["P1"] and clips[1]["identities"] == ["P1"]  # the face at 1.0 s
    assert clips[2]["identities"] == [] and clips[1]["caption"] == "a car passes"
    assert data["groups"] == [{"id": 0, "videos": [0, 1, 2]}] and SET_SIZE == 5
    assert data["people"] == {"P1": {"name": "Ada", "tracks": [0]}}
    with pytest.raises(AnnotationError, match="micap files are written, not read back"):
        read_annotations(analysis, tmp_path / "micap.json", "micap")
