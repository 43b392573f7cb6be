"""A reviewer's corrections of object and body tracks (pipeline/stages/track_edits.py):
relabel, delete, move a box, each finding its track by the box it named at its frame, and
replayed on a re-analysis whose tracks have other ids and slightly other boxes."""

from __future__ import annotations

from dataclasses import replace

import pytest

from videoreview.pipeline import edits
from videoreview.pipeline.stages.track_edits import found_track, replayed
from videoreview.records import Analysis, ObjectDetection, ObjectTrack, PoseSample, PoseTrack, TrackEdit, VideoInfo

FPS = 25.0
# track -> (label, {frame: box}): a person walking right, a car beside them, a dog far off
TRACKS = {0: ("person", {0: (100.0, 50.0, 80.0, 200.0), 25: (120.0, 50.0, 80.0, 200.0),
                         50: (140.0, 50.0, 80.0, 200.0)}),
          1: ("car", {0: (150.0, 100.0, 200.0, 120.0), 25: (150.0, 100.0, 200.0, 120.0)}),
          2: ("dog", {25: (500.0, 250.0, 60.0, 40.0)})}


def analysis_of(ids: dict[int, int], shift: float = 0.0) -> Analysis:
    """The tracks above under the ids ``ids`` gives them, each box moved ``shift`` pixels
    right: what the engines find when the video is analysed again."""
    video = VideoInfo(path="walk.mp4", duration=4.0, fps=FPS, frame_count=100, width=640, height=360)
    objects, object_tracks = [], []
    for old, (label, boxes) in TRACKS.items():
        new = ids[old]
        for frame, (x, y, w, h) in boxes.items():
            objects.append(ObjectDetection(frame / FPS, frame, label, (x + shift, y, w, h), 0.9, new))
        object_tracks.append(ObjectTrack(new, label, min(boxes) / FPS, max(boxes) / FPS + 1, 0.9, len(boxes)))
    person = TRACKS[0][1]
    samples = [PoseSample(f / FPS, f, ids[0], (x + shift, y, w, h), 0.8, (0.0,) * 51)
               for f, (x, y, w, h) in person.items()]
    poses = [PoseTrack(ids[0], 0.0, 3.0, 0.8, len(samples), person[25])]
    return Analysis(video=video, objects=tuple(sorted(objects, key=lambda d: d.frame)),
                    object_tracks=tuple(object_tracks), poses=tuple(poses), pose_samples=tuple(samples))


def labels(analysis: Analysis) -> dict[int, str]:
    return {t.id: t.label for t in analysis.object_tracks}


def box_at(analysis: Analysis, track: int, frame: int):
    return next(d.box for d in analysis.objects if d.track == track and d.frame == frame)


def test_edits_find_their_track_by_its_box_and_are_recorded():
    analysis = analysis_of({0: 0, 1: 1, 2: 2})
    edited = edits.relabel_track(analysis, "objects", 25, TRACKS[0][1][25], "mannequin", author="ann")
    edited = edits.delete_track(edited, "objects", 0, TRACKS[1][1][0])
    edited = edits.move_box(edited, "objects", 50, TRACKS[0][1][50], (150.0, 60.0, 70.0, 190.0))
    assert labels(edited) == {0: "mannequin", 2: "dog"}
    assert {d.label for d in edited.objects if d.track == 0} == {"mannequin"}
    assert not [d for d in edited.objects if d.track == 1]
    assert box_at(edited, 0, 50) == (150.0, 60.0, 70.0, 190.0) and box_at(edited, 0, 25) == TRACKS[0][1][25]
    assert [(e.op, e.author) for e in edited.track_edits] == [("relabel", "ann"), ("delete", ""), ("move", "")]
    assert analysis.track_edits == () and labels(analysis) == {0: "person", 1: "car", 2: "dog"}  # untouched


def test_the_best_overlap_is_the_track_and_a_box_found_nowhere_changes_nothing():
    analysis = analysis_of({0: 0, 1: 1, 2: 2})
    # the person's and the car's boxes overlap at frame 0: each edit finds its own
    assert found_track(analysis, TrackEdit("delete", "objects", 0, TRACKS[0][1][0])) == 0
    assert found_track(analysis, TrackEdit("delete", "objects", 0, TRACKS[1][1][0])) == 1
    # at another frame, or far from every box, there is no track
    assert found_track(analysis, TrackEdit("delete", "objects", 10, TRACKS[0][1][0])) is None
    nowhere = edits.relabel_track(analysis, "objects", 0, (600.0, 300.0, 20.0, 20.0), "cat")
    assert labels(nowhere) == labels(analysis) and len(nowhere.track_edits) == 1


def test_edits_are_replayed_after_a_reanalysis_with_other_ids():
    analysis = analysis_of({0: 0, 1: 1, 2: 2})
    edited = edits.relabel_track(analysis, "objects", 25, TRACKS[0][1][25], "mannequin")
    edited = edits.delete_track(edited, "objects", 0, TRACKS[1][1][0])
    edited = edits.move_box(edited, "objects", 50, TRACKS[0][1][50], (150.0, 60.0, 70.0, 190.0))
    # the engines run again: other ids, every box 3 px off; the reviewer's edits are kept
    fresh = replace(analysis_of({0: 7, 1: 3, 2: 5}, shift=3.0), track_edits=edited.track_edits)
    again = replayed(fresh, "objects")
    assert labels(again) == {7: "mannequin", 5: "dog"}
    assert box_at(again, 7, 50) == (150.0, 60.0, 70.0, 190.0) and box_at(again, 7, 0) == (103.0, 50.0, 80.0, 200.0)
    assert replayed(again, "objects") == again  # replaying twice is replaying once
    assert replayed(fresh, "poses") == fresh  # the edits are the objects'


def test_body_edits_name_who_it_is_move_and_delete():
    analysis = analysis_of({0: 0, 1: 1, 2: 2})
    box = TRACKS[0][1][0]
    named = edits.relabel_track(analysis, "poses", 0, box, "P1")
    assert [t.identity for t in named.poses] == ["P1"]
    assert [t.identity for t in edits.relabel_track(named, "poses", 0, box, "").poses] == [None]  # nobody known
    moved = edits.move_box(named, "poses", 25, TRACKS[0][1][25], (10.0, 10.0, 50.0, 100.0))
    assert [s.box for s in moved.pose_samples if s.frame == 25] == [(10.0, 10.0, 50.0, 100.0)]
    assert labels(moved) == labels(analysis)  # the objects' person is another track
    fresh = replace(analysis_of({0: 4, 1: 1, 2: 2}, shift=2.0), track_edits=moved.track_edits)
    again = replayed(fresh, "poses")
    assert [(t.id, t.identity) for t in again.poses] == [(4, "P1")]
    assert [s.box for s in again.pose_samples if s.frame == 25] == [(10.0, 10.0, 50.0, 100.0)]
    gone = edits.delete_track(again, "poses", 50, (142.0, 50.0, 80.0, 200.0))
    assert gone.poses == () and gone.pose_samples == ()


@pytest.mark.parametrize("capability", ["objects", "poses"])
def test_an_edit_survives_the_json_round_trip(capability, tmp_path):
    edited = edits.move_box(analysis_of({0: 0, 1: 1, 2: 2}), capability, 0, TRACKS[0][1][0], (1.0, 2.0, 3.0, 4.0))
    edited.save(tmp_path / "a.json")
    assert Analysis.load(tmp_path / "a.json").track_edits == edited.track_edits
