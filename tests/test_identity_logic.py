"""Tracking, clustering, naming and FITB on hand-made detections (no images): the rules."""

import numpy as np

from videoreview.engines.faces.clustering import TrackInfo, cluster_tracks, name_by_first_appearance
from videoreview.engines.faces.ids_in_captions import fill_in
from videoreview.engines.faces.tracking import Detection, link_tracks

RNG = np.random.default_rng(7)
PEOPLE = {name: RNG.normal(size=128).astype(np.float32) * 0.05 for name in "ABCD"}  # ~0.8 apart


def vec(person: str, noise: float = 0.01) -> np.ndarray:
    return PEOPLE[person] + RNG.normal(size=128).astype(np.float32) * noise


def det(frame: int, x: float, person: str, size: float = 80) -> Detection:
    return Detection(time=frame / 25, frame=frame, box=(x, 50.0, size, size), score=1.0, blur=100.0,
                     embedding=vec(person))


def test_people_apart_by_the_dlib_threshold():
    dist = np.linalg.norm(PEOPLE["A"] - PEOPLE["B"])
    assert 0.6 < dist < 1.2  # like two different people for dlib's descriptor


def test_tracks_follow_each_person_and_stop_at_cuts():
    samples = [[det(f, 100 + f, "A"), det(f, 400, "B")] for f in range(0, 100, 12)]
    samples += [[det(f, 100, "A")] for f in range(108, 150, 12)]  # after the cut at 100
    tracks = link_tracks(samples, cut_frames=[100], same_person=0.6)
    assert len(tracks) == 3
    a1, b, a2 = sorted(tracks, key=lambda t: (t.shot, t.detections[0].box[0]))
    assert len(a1.detections) == len(b.detections) == 9 and a1.shot == 0 and b.shot == 0
    assert a2.shot == 1 and len(a2.detections) == 4


def test_crossing_people_keep_their_tracks_and_gaps_are_bridged():
    samples = []
    for k, f in enumerate(range(0, 120, 12)):
        x = 100 + 30 * k
        faces = [det(f, x, "A"), det(f, 400 - 30 * k, "B")]
        samples.append([] if k == 4 else faces)  # a sample where the detector saw nobody
    tracks = link_tracks(samples, cut_frames=[], same_person=0.6)
    assert len(tracks) == 2
    for track in tracks:
        people = {min(PEOPLE, key=lambda p: np.linalg.norm(PEOPLE[p] - d.embedding)) for d in track.detections}
        assert len(people) == 1 and len(track.detections) == 9


def info(video, track, person, time, frames, shot=0, good=True):
    return TrackInfo(key=(video, track), embedding=vec(person), first_time=time, frames=frozenset(frames),
                     shot=shot, good=good)


def test_clusters_across_shots_and_videos_named_by_first_appearance():
    tracks = [
        info(0, 0, "B", 0.0, {0, 12}), info(0, 1, "A", 0.5, {12, 24}),  # two people in one shot
        info(0, 2, "A", 5.0, {125}, shot=1), info(0, 3, "B", 9.0, {225}, shot=2),
        info(1, 0, "A", 0.0, {0}), info(1, 1, "C", 1.0, {25}),  # second clip of the set
    ]
    labels = cluster_tracks(tracks, threshold=0.6)
    names = name_by_first_appearance(labels, {t.key: (t.key[0], t.first_time) for t in tracks})
    assert names == {(0, 0): "P1", (0, 1): "P2", (0, 2): "P2", (0, 3): "P1", (1, 0): "P2", (1, 1): "P3"}


def test_tracks_seen_together_are_never_one_person():
    # Two tracks with the same vector in the same frames (twins, or a mirror): kept apart.
    a = TrackInfo((0, 0), PEOPLE["A"], 0.0, frozenset({0, 12}), 0, True)
    b = TrackInfo((0, 1), PEOPLE["A"] + 0.001, 0.0, frozenset({12}), 0, True)
    c = TrackInfo((0, 2), PEOPLE["A"], 9.0, frozenset({200}), 1, True)
    labels = cluster_tracks([a, b, c], threshold=0.6)
    assert labels[(0, 0)] != labels[(0, 1)]
    assert labels[(0, 2)] in (labels[(0, 0)], labels[(0, 1)])


def test_weak_tracks_join_only_when_clearly_close():
    strong = [info(0, 0, "A", 0.0, {0}), info(0, 1, "B", 1.0, {25}, shot=1)]
    near = TrackInfo((0, 2), vec("A"), 2.0, frozenset({50}), 2, good=False)
    # Halfway between A and B: would chain the two people together; stays unassigned.
    between = TrackInfo((0, 3), (PEOPLE["A"] + PEOPLE["B"]) / 2, 3.0, frozenset({75}), 3, good=False)
    labels = cluster_tracks(strong + [near, between], threshold=0.6)
    assert labels[(0, 2)] == labels[(0, 0)]
    assert labels[(0, 3)] is None
    assert labels[(0, 0)] != labels[(0, 1)]


def test_fill_in_the_blanks():
    on_screen = {0.0: ["P2", "P1"], 2.0: ["P1"], 4.0: ["P1", "P2"]}
    captions = [
        (0.0, "A man hands a woman a glass."),
        (2.0, "He drinks from it and smiles at her."),
        (4.0, "Someone laughs; the woman takes her coat."),
    ]
    filled = fill_in(captions, lambda t: on_screen[t])
    assert [f.text for f in filled] == [
        "P2 hands P1 a glass.",
        "P1 drinks from it and smiles at P1.",
        "P1 laughs; P1 takes P1's coat.",
    ]
    assert filled[0].original == captions[0][1]
    assert filled[0].ids == ("P2", "P1")


def test_fill_in_leaves_mentions_when_nobody_is_visible():
    filled = fill_in([(0.0, "Someone opens the door.")], lambda t: [])
    assert filled[0].text == "Someone opens the door." and filled[0].ids == (None,)


def test_caption_ids_follow_renumbering():
    from videoreview.pipeline.stages.identities import _id_changes, _rename_ids_in_captions
    from videoreview.records import Analysis, Boundary, BoundaryCaption, FaceTrack, FrameCaption, VideoInfo

    def track(tid, pid, faces=4):
        return FaceTrack(id=tid, start=0, end=1, shot=0, faces=faces, size=100, score=1, blur=50, quality=1,
                         identity=pid)

    old = [track(0, "P1"), track(1, "P2"), track(2, "P2", faces=1), track(3, "P3")]
    new = [track(0, "P2"), track(1, "P1"), track(2, "P4"), track(3, None)]  # swapped, and P3 dropped
    changes = _id_changes(old, new)
    assert changes == {"P1": "P2", "P2": "P1", "P3": None}  # P2's bigger track decides
    analysis = Analysis(video=VideoInfo("v.mp4", 1, 25, 25, 64, 64), captions=(
        FrameCaption(0.0, 0, "P1 hands P2 a cup; P3 and P10 watch."),), boundaries=(
        Boundary(0.5, 12, "event", 1.0, caption=BoundaryCaption("P2", "P2 sits", "P1 stands")),))
    renamed = _rename_ids_in_captions(analysis, changes)
    assert renamed.captions[0].text == "P2 hands P1 a cup; someone and P10 watch."
    assert renamed.boundaries[0].caption == BoundaryCaption("P1", "P1 sits", "P2 stands")
