"""The vote of the detector and the classifier (pipeline/stages/label_vote.py), the faces seen once,
and the clues a caption gives where it names nothing (engines/captions/looks.py): each on the
cases of real footage the issue names (a parrot called a teddy bear, a dark board called a
tv, a cartoon's lone face), with the real WordNet hierarchy and ImageNet labels."""

from __future__ import annotations

import numpy as np

from videoreview.engines.captions.looks import flat_share, look, look_phrase, picture_kind
from videoreview.pipeline.stages import label_vote
from videoreview.pipeline.stages.faces import build_tracks
from videoreview.pipeline.stages.label_vote import Shot, agreement, keep_agreed_tracks, kept_track, subject
from videoreview.records import Analysis, Boundary, FaceTrack, ObjectDetection, ObjectTrack, PoseTrack, VideoInfo

PARROT = [("sulphur-crested cockatoo", 0.2), ("macaw", 0.15), ("lorikeet", 0.1), ("teddy", 0.02)]
BOARD = [("chain mail", 0.2), ("doormat", 0.1), ("analog clock", 0.05)]


def track(label: str, score: float, id_: int = 0, detections: int = 4) -> ObjectTrack:
    return ObjectTrack(id=id_, label=label, start=0.0, end=4.0, score=score, detections=detections)


def detection(label: str, score: float, track_id: int = -1, frame: int = 0) -> ObjectDetection:
    return ObjectDetection(time=frame / 25, frame=frame, label=label, box=(10, 10, 50, 50), score=score,
                           track=track_id)


def shot(labels, tracks=(), detections=(), faces=(), bodies=()) -> Shot:
    return Shot(crops=[labels] * 4, whole=[labels] * 4, tracks=list(tracks), detections=list(detections),
                faces=list(faces), bodies=list(bodies))


def test_a_track_the_classifier_does_not_back_is_not_kept_unless_the_detector_is_sure_alone():
    teddy = track("teddy bear", 0.58)  # the parrot's head
    assert agreement(shot(PARROT), "teddy bear") < label_vote.AGREE
    assert not kept_track(shot(PARROT, [teddy]), teddy)
    assert not kept_track(shot(BOARD, [track("tv", 0.57)]), track("tv", 0.57))  # the dark board
    assert kept_track(shot(BOARD, [track("tv", 0.7)]), track("tv", 0.7))  # sure alone
    bird = track("bird", 0.5)
    assert agreement(shot(PARROT), "bird") >= 0.4  # the cockatoo, the macaw and the lorikeet are birds
    assert kept_track(shot(PARROT, [bird]), bird)


def test_someone_is_in_a_shot_where_one_person_detector_is_sure():
    person = track("person", 0.51)  # the parrot's "person": 7 detections, mean 0.51
    assert not kept_track(shot(PARROT, [person], faces=[0.65], bodies=[0.3]), person)
    assert kept_track(shot(PARROT, [person], faces=[0.8]), person)
    assert kept_track(shot(PARROT, [person], bodies=[0.55]), person)
    assert kept_track(shot(PARROT, [track("person", 0.7)]), track("person", 0.7))


def test_the_subject_is_what_the_detector_and_the_classifier_agree_on():
    birds = [detection("bird", 0.45), detection("bird", 0.48, frame=25)]  # unsure, no track
    assert subject(shot(PARROT)) is None  # the classifier alone is not sure enough
    assert subject(shot(PARROT, detections=birds)) == "parrot"  # under "bird", sure together
    assert subject(shot([("macaw", 0.3), ("toucan", 0.2)], detections=birds)) == "bird"  # no one kind
    assert subject(shot(PARROT, detections=birds[:1])) is None  # one detection backs nothing
    assert subject(shot([("tabby", 0.5), ("tiger cat", 0.45)])) == "cat"  # sure alone in both views


def test_the_vote_keeps_the_analysis_consistent():
    info = VideoInfo(path="v.mp4", width=640, height=360, fps=25.0, frame_count=250, duration=10.0)
    analysis = Analysis(
        video=info, boundaries=(Boundary(time=4.0, frame=100, kind="cut", confidence=1.0),),
        objects=(detection("teddy bear", 0.58, 0), detection("bird", 0.6, 1, frame=110)),
        object_tracks=(track("teddy bear", 0.58, 0), ObjectTrack(id=1, label="bird", start=4.4, end=8.0, score=0.6,
                                                                 detections=4)),
        poses=(PoseTrack(id=0, start=0.5, end=3.0, score=0.3, samples=10, box=(0, 0, 10, 30)),
                       PoseTrack(id=1, start=5.0, end=8.0, score=0.6, samples=10, box=(0, 0, 10, 30))))
    shots = {1: shot(BOARD, analysis.object_tracks[:1], analysis.objects[:1], bodies=[0.3]),
             2: shot(PARROT, analysis.object_tracks[1:], analysis.objects[1:], bodies=[0.6])}
    voted = keep_agreed_tracks(analysis, shots, lambda frame: 1 if frame < 100 else 2)
    assert [t.label for t in voted.object_tracks] == ["bird"]
    assert [d.track for d in voted.objects] == [-1, 1]  # the teddy bear's detection stays, in no track
    assert [p.id for p in voted.poses] == [1]  # nobody is sure of the first shot's body


def test_a_face_seen_once_and_weakly_is_not_kept():
    def sample(time, score):
        return {"time": time, "frame": int(time * 25), "faces": [
            {"box": [100, 100, 60, 60], "score": score, "blur": 80.0, "embedding": [0.1] * 128}]}

    faces, tracks = build_tracks([sample(0.0, 0.65)], [], 0.6)
    assert tracks == ()  # a cartoon rabbit's face, a pattern in a visualiser
    faces, tracks = build_tracks([sample(0.0, 0.8)], [], 0.6)
    assert len(tracks) == 1
    faces, tracks = build_tracks([sample(0.0, 0.65), sample(0.5, 0.66)], [], 0.6)
    assert [t.faces for t in tracks] == [2]  # seen again: kept
    assert isinstance(tracks[0], FaceTrack)


def test_the_clues_say_a_graphic_and_black_and_white_where_they_hold():
    rng = np.random.default_rng(0)
    title = np.zeros((180, 320, 3), np.uint8)
    title[60:120, 40:280] = (230, 200, 40)  # a flat yellow title on black
    footage = rng.integers(0, 255, (180, 320, 3), dtype=np.uint8)  # texture and noise everywhere
    grey_film = np.repeat(rng.integers(60, 200, (180, 320, 1), dtype=np.uint8), 3, axis=2)
    assert flat_share(title) > 0.9 and flat_share(footage) < 0.05
    assert look(grey_film)["saturation"] == 0.0 and look(footage)["saturation"] > 0.3
    assert picture_kind(look(title)["flat"], look(title)["saturation"]) == "graphic"
    assert picture_kind(look(grey_film)["flat"], look(grey_film)["saturation"]) == "black-and-white picture"
    assert picture_kind(look(footage)["flat"], look(footage)["saturation"]) == "picture"
    assert picture_kind(None, None) == "picture"  # measured before these measurements existed
    assert look_phrase(0.1, {"yellow": 0.3, "black": 0.7}, "graphic") == "a dark graphic in black and yellow"
    assert look_phrase(0.4, {"grey": 1.0}, "black-and-white picture") == "a black-and-white picture"
