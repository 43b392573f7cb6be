"""People followed through shots and what they do (pipeline/stages/poses.py): the tracking, status spans
and status boundaries on hand-made samples, the captions that say them, and the whole pipeline
with MoveNet on the drawn figure of tests/pose_clips.py (marked ``models``)."""

from __future__ import annotations

import numpy as np
import pytest

from test_poses import STANDING, person
from videoreview.engines.captions.builtin import State, caption, unnamed_people
from videoreview.pipeline.stages.poses import link_people, pose_tracks, with_status_boundaries
from videoreview.records import Analysis, Boundary, FaceDetection, PoseTrack, StatusSpan, VideoInfo

INFO = VideoInfo(path="v.mp4", duration=10.0, fps=25.0, frame_count=250, width=640, height=360)


def body(x: float, score: float = 0.8, posture=STANDING, **changes) -> list:
    """One person of a stage result, 200 px tall, shifted ``x`` px right."""
    kps = person(posture, score, **changes)
    kps[:, 0] += x
    return [score, [x + 70, 10, 60, 190], kps.tolist()]


def samples_of(people_at, seconds: float = 6.0, rate: float = 5.0) -> list[dict]:
    times = np.arange(0, seconds, 1 / rate)
    return [{"time": round(float(t), 6), "frame": int(round(t * 25)), "people": people_at(float(t))} for t in times]


def test_people_stay_apart_through_a_fast_run_and_a_cut_ends_them():
    # one runs right at 300 px/s (1.5 body heights a second: boxes 60 px wide never overlap
    # from sample to sample), one stands; a cut at 4 s
    samples = samples_of(lambda t: [body(300 * t), body(500)])
    tracks = link_people(samples, cuts=[100])
    assert [len(t) for t in tracks] == [20, 20, 10, 10]
    assert all(samples[i]["people"][j][1][0] > 400 for i, j in tracks[1])  # the one standing stays one


def test_a_status_change_is_a_boundary_with_a_geb_caption_named_by_the_face():
    # standing until 3 s, then sitting: hips lowered to the knees' height
    sat = {"left_hip": (110, 140), "right_hip": (90, 140), "left_shoulder": (123, 82), "right_shoulder": (77, 82),
           "nose": (100, 64), "left_eye": (104, 60), "right_eye": (96, 60), "left_ear": (109, 62),
           "right_ear": (91, 62), "left_elbow": (127, 116), "right_elbow": (73, 116), "left_wrist": (129, 140),
           "right_wrist": (71, 140)}
    samples = samples_of(lambda t: [body(100, posture={**STANDING, **sat} if t >= 3 else STANDING)])
    face = FaceDetection(time=1.0, frame=25, box=(190, 5, 20, 20), score=0.9, identity="P1")
    engine_event = Boundary(time=2.6, frame=65, kind="event", confidence=0.4, engine="builtin")
    far_event = Boundary(time=5.5, frame=138, kind="event", confidence=0.4, engine="builtin")
    analysis = Analysis(video=INFO, faces=(face,), boundaries=(engine_event, far_event))
    tracks = pose_tracks(samples, [], 0.2, analysis, "movenet@1")
    assert len(tracks) == 1 and tracks[0].identity == "P1"
    assert [(s.status, s.start, s.end) for s in tracks[0].statuses] == [("standing", 0.0, 2.9), ("sitting", 2.9, 6.0)]
    out = with_status_boundaries(Analysis(video=INFO, boundaries=analysis.boundaries, poses=tuple(tracks)),
                                 samples, "movenet@1")
    changed = [b for b in out.boundaries if b.engine == "movenet@1"]
    assert [(b.time, b.frame, b.kind) for b in changed] == [(2.9, 72, "event")]
    assert (changed[0].caption.subject, changed[0].caption.before, changed[0].caption.after) == \
        ("P1", "standing", "sitting")
    assert engine_event not in out.boundaries and far_event in out.boundaries  # the same event, said better


def test_a_reviewers_deletion_stands():
    track = PoseTrack(id=0, start=0.0, end=6.0, score=0.7, samples=30, box=(0, 0, 60, 190),
                        statuses=(StatusSpan(0.0, 3.0, "walking"), StatusSpan(3.0, 6.0, "running")))
    samples = samples_of(lambda t: [])
    analysis = Analysis(video=INFO, poses=(track,), removed_boundaries=(75,))
    assert with_status_boundaries(analysis, samples, "movenet@1").boundaries == ()
    kept = with_status_boundaries(Analysis(video=INFO, poses=(track,)), samples, "movenet@1")
    assert [(b.frame, b.caption.subject, b.caption.after) for b in kept.boundaries] == [(75, "a person", "running")]


def test_captions_say_what_people_do():
    def scene(people=(), doing=()):
        return State(shot=1, view="wide shot", people=people, unknown_faces=0, subject=None, text=False,
                     camera="is still", moving=False, doing=doing).scene()

    assert scene(doing=(("", "walking"),)) == "a person walking in a wide shot"
    assert scene(people=(("P1", "left"),), doing=(("", "arms raised"),)) == \
        "P1 in a wide shot on the left, with arms raised"  # one face, one body: the same person
    assert scene(people=(("P1", "left"), ("P2", "right")), doing=(("P2", "sitting"),)) == \
        "P1 (left) and P2 (right, sitting) in a wide shot"
    assert unnamed_people(["standing", "running", "standing"]) == "three people: two standing and one running"
    assert unnamed_people(["sitting", "sitting"]) == "two people sitting"
    assert unnamed_people(["walking"], seen=6) == "six people, one walking"  # the detector saw more


def test_a_caption_says_a_change_of_status_of_someone_it_can_point_to():
    def state(doing, persons=1):
        return State(shot=1, view="", people=(), unknown_faces=0, subject=None, text=False, camera="is still",
                     moving=False, doing=doing, objects=(("person", persons),))

    assert "The person is now sitting." in caption(state((("", "sitting"),)), state((("", "standing"),)))
    assert "P1 raises their arms." in caption(state((("P1", "arms raised"),)), state((("P1", "standing"),)))
    # one of six people stops: "the person" would be any of them
    assert "now" not in caption(state((("", "standing"),), 6), state((("", "walking"),), 6))


@pytest.mark.models
def test_the_pipeline_says_when_the_figure_sits_down_and_stands_up(tmp_path, home):
    from pose_clips import CLIPS
    from videoreview.pipeline import StageCache, analyze

    clip = CLIPS["stand-sit"](tmp_path)
    analysis = analyze(clip.path, {"boundaries": "builtin", "faces": "blazeface", "poses": "movenet",
                                   "captions": "builtin"}, cache=StageCache(tmp_path / "c"))
    said = [(b.time, b.caption.subject, b.caption.before, b.caption.after) for b in analysis.boundaries
            if b.engine.startswith("movenet@")]
    assert [s[1:] for s in said] == [("a person", "standing", "sitting"), ("a person", "sitting", "standing")]
    assert all(abs(s[0] - t) <= 0.5 for s, (t, _, _) in zip(said, clip.changes)), (said, clip.changes)
    assert any("sitting" in c.text for c in analysis.captions if 4.5 <= c.time <= 6.5)
    assert Analysis.from_dict(analysis.to_dict()) == analysis


def test_the_reader_looks_once_a_second_until_it_sees_someone():
    """Wiring of PoseReader's schedule (the engine is a stand-in that says who is there)."""
    from types import SimpleNamespace

    from videoreview.media.source import FrameBatch
    from videoreview.pipeline.stages.poses import PoseReader, PoseStage

    asked = []

    def people(frame):
        t = float(frame[0, 0, 0]) / 10  # the test writes each frame's time into its first pixel
        asked.append(round(t, 1))
        return [SimpleNamespace(score=0.9, box=(0, 0, 10, 20), keypoints=np.zeros((17, 3)))] if 3.0 <= t < 4.5 else []

    times = np.round(np.arange(0, 8, 0.2), 6)
    source = SimpleNamespace(info=INFO, sample_indices=lambda rate: np.round(times * 25).astype(int))
    reader = PoseReader(PoseStage(SimpleNamespace(people=people)), source)
    frames = np.zeros((len(times), 4, 4, 3), np.uint8)
    frames[:, 0, 0, 0] = np.round(times * 10)
    reader.take(FrameBatch(np.round(times * 25).astype(np.int64), times, frames))
    # once a second while nobody is there; from 3 s (seen) every sample until a second after
    # the last one seen (4.4 s); then once a second again
    assert asked == [0.0, 1.0, 2.0, 3.0, 3.2, 3.4, 3.6, 3.8, 4.0, 4.2, 4.4, 4.6, 4.8, 5.0, 5.2, 5.4, 6.4, 7.4]
    assert len(reader.result().samples) == len(times)
    assert sum(bool(s["people"]) for s in reader.result().samples) == 8
