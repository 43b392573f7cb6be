"""The objects stage's people shared with the poses and faces stages (pipeline/stages/people_seen.py):
where their readers look, that they wait for the detector whatever order their batches come in,
and that without the detector in the pass (objects off, its result from the cache, or no objects
stage) they look as before; then with the real models on clips of photographed people (marked
``models``), counting the calls of each engine."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from videoreview.media.source import FrameBatch
from videoreview.pipeline.stages.people_seen import HeldFrames, PeopleSeen, SharedPeople, share_people
from videoreview.records import VideoInfo

FPS = 100  # every sample time of these tests falls on a frame
INFO = VideoInfo(path="v.mp4", duration=10.0, fps=FPS, frame_count=10 * FPS, width=320, height=180)


def batch(times) -> FrameBatch:
    """Frames at ``times`` that carry their index in their first pixels."""
    indices = np.round(np.asarray(times, np.float64) * FPS).astype(np.int64)
    frames = np.zeros((len(indices), 4, 4, 3), np.uint8)
    frames[:, 0, 0, 0], frames[:, 0, 0, 1] = indices % 256, indices // 256
    return FrameBatch(indices, indices / FPS, frames)


def time_of(frame) -> float:
    return (int(frame[0, 0, 0]) + 256 * int(frame[0, 0, 1])) / FPS


def test_people_seen_says_where_a_person_was_and_how_far_it_knows():
    seen = PeopleSeen()
    assert not seen.fed and not seen.knows(0.0)
    for t in (0.0, 1.0, 2.0, 3.0):
        seen.looked(t, [(0, 0, 10, 20)] if t == 2.0 else [])
        seen.known_to(t + 0.75)
    assert seen.looks == [0.0, 1.0, 2.0, 3.0] and seen.boxes[2] == [(0, 0, 10, 20)]
    assert seen.knows(3.75) and not seen.knows(3.8)
    assert [t for t in np.arange(0, 4, 0.5) if seen.near(t, 1.0)] == [1.0, 1.5, 2.0, 2.5, 3.0]
    seen.finish()
    assert seen.knows(math.inf)


def test_held_frames_wait_for_the_detector_and_never_more_than_the_limit():
    held = HeldFrames(limit=3)
    held.add(batch([0.0, 0.5, 1.0, 1.5]))
    assert [t for _, t, _, gated in held.ready(None, 1.0)] == [0.0, 0.5, 1.0, 1.5]  # nothing gates it
    seen = PeopleSeen()
    seen.attach()
    held.add(batch([2.0, 2.5, 3.0]))
    assert held.ready(seen, 1.0) == [] and len(held) == 3  # the detector has seen nothing yet
    seen.known_to(3.0)
    assert [(t, gated) for _, t, _, gated in held.ready(seen, 1.0)] == [(2.0, True)]
    held.add(batch([3.5, 4.0, 4.5]))  # five held: the oldest two go ungated
    assert [(t, gated) for _, t, _, gated in held.ready(seen, 1.0)] == [(2.5, False), (3.0, False)]
    seen.known_to(4.6)
    assert [(t, gated) for _, t, _, gated in held.rest(seen, 1.0)] == [(3.5, True), (4.0, False), (4.5, False)]


def stages_for(engines: dict[str, str]) -> dict:
    from videoreview.pipeline.stages import build_stages

    return {stage.name: stage for stage in build_stages(engines)}


def test_build_stages_shares_the_objects_stages_people_and_the_cache_key_names_the_detector():
    from videoreview.pipeline.runner import stage_key
    from videoreview.pipeline.stages.faces import FaceStage
    from videoreview.pipeline.stages.poses import PoseStage

    shared = stages_for({"faces": "blazeface", "objects": "nanodet", "poses": "movenet"})
    people = shared["objects"].people
    assert isinstance(people, SharedPeople) and shared["faces"].people is people and shared["poses"].people is people
    detector = f"{shared['objects'].engine_tag}~{shared['objects'].revision}"
    assert detector.startswith("nanodet@")
    assert shared["faces"].revision == f"{FaceStage.revision}+people:{detector}"
    assert shared["poses"].revision == f"{PoseStage.revision}+people:{detector}"
    assert stage_key(shared["faces"], "h")[3].endswith(f"~{FaceStage.revision}+people:{detector}")
    for engines in ({"faces": "blazeface", "objects": "none", "poses": "movenet"},
                    {"faces": "blazeface", "poses": "movenet"}):
        alone = stages_for(engines)
        assert alone["faces"].people is None and alone["poses"].people is None
        assert alone["faces"].revision == FaceStage.revision and alone["poses"].revision == PoseStage.revision
        assert stage_key(alone["faces"], "h") != stage_key(shared["faces"], "h")
    assert stages_for({"objects": "nanodet"})["objects"].people is None  # nobody to share with


class Source(SimpleNamespace):
    """A stand-in FrameSource: its samples over INFO's 10 s (hashable, as a pass is)."""

    __hash__ = object.__hash__

    def __init__(self) -> None:
        super().__init__(info=INFO)

    def sample_indices(self, rate: float) -> np.ndarray:
        return np.unique(np.round(np.arange(0, INFO.duration, 1 / rate) * FPS).astype(np.int64))


def readers_with(person_at, face_at, shared: bool = True, objects: bool = True, body_at=None):
    """The objects, faces and poses readers of one pass (``objects``: with the objects reader;
    without, as where its result comes from the cache), their engines stand-ins that see a
    person (objects) where ``person_at(time)``, a face where ``face_at(time)``, and a body
    where ``body_at(time)`` (default: where there is a person); and the times each engine
    was asked about."""
    body_at = body_at or person_at
    from videoreview.pipeline.stages.faces import FaceReader, FaceStage
    from videoreview.pipeline.stages.objects import ObjectReader, ObjectStage
    from videoreview.pipeline.stages.poses import PoseReader, PoseStage

    asked = {"objects": [], "faces": [], "poses": []}

    def detect(frame):
        asked["objects"].append(time_of(frame))
        return [("person", 0.8, (10.0, 10.0, 40.0, 100.0))] if person_at(time_of(frame)) else []

    def faces(frame):
        asked["faces"].append(time_of(frame))
        return [SimpleNamespace(box=(5.0, 5.0, 20.0, 20.0), score=0.9)] if face_at(time_of(frame)) else []

    def people(frame):
        asked["poses"].append(time_of(frame))
        return [SimpleNamespace(score=0.9, box=(10, 10, 40, 100), keypoints=np.zeros((17, 3)))] \
            if body_at(time_of(frame)) else []

    face_engine = SimpleNamespace(detect=faces, crops=lambda frame, found: [np.zeros((8, 8, 3), np.uint8)] * len(found),
                                  embed=lambda frame, found: [np.zeros(4, np.float32)] * len(found))
    stages = [FaceStage(face_engine), ObjectStage(SimpleNamespace(detect=detect)),
              PoseStage(SimpleNamespace(people=people))]
    for stage in stages:
        stage.engine.name, stage.engine.version = stage.name, "1"
    if shared:
        share_people(stages)
    source = Source()
    faces_reader = FaceReader(stages[0], source)  # made first, as in the run order
    objects_reader = [ObjectReader(stages[1], source)] if objects else []
    return [*objects_reader, faces_reader, PoseReader(stages[2], source)], asked


def run_pass(readers, order: str) -> list[dict]:
    """Feed the readers their frames: "objects last" gives each of the others (after the
    first, the objects reader) all its frames before the detector takes any (a pass where
    its batches fill last); "together" in batches of a second, in time order."""
    if order == "objects last":
        for reader in [*readers[1:], readers[0]]:
            reader.take(batch(reader.indices / FPS))
    else:
        for second in range(10):
            for reader in readers:
                times = reader.indices / FPS
                reader.take(batch(times[(times >= second) & (times < second + 1)]))
    return [reader.result() for reader in readers]


def test_poses_and_faces_look_only_near_the_detectors_people_whatever_order_frames_come_in():
    from videoreview.pipeline.stages.faces import NEAR_PERSON

    def person_at(t):
        return 4.0 <= t < 6.0  # the detector sees the person at 4, 4.25 (looking closer) and 5.25 s

    def face_at(t):
        return 4.0 <= t < 8.5  # the face stays after the detector loses the person

    assert NEAR_PERSON == 2.0
    results = []
    for order in ("together", "objects last"):
        readers, asked = readers_with(person_at, face_at)
        results.append(run_pass(readers, order))
        # within a second of the detector's person (3 to 6.25 s), and of MoveNet's own (to 6.8 s)
        assert asked["poses"] == [round(3.0 + k / 5, 1) for k in range(20)], order
        # within NEAR_PERSON of the person (2 to 7.25 s), then while a face is found (to 8.5 s)
        assert asked["faces"] == [2.0 + k / 2 for k in range(14)], order
    assert results[0] == results[1]  # the same, however the frames came
    objects, faces, poses = results[0]
    assert [len(s["faces"]) for s in faces.samples].count(1) == 9 and len(faces.samples) == 20
    assert len(poses.samples) == 50


def test_movenet_looks_once_a_second_where_it_keeps_missing_the_detectors_person():
    from videoreview.pipeline.stages.poses import MISSES

    readers, asked = readers_with(lambda t: 2.0 <= t < 8.0, lambda t: False, body_at=lambda t: False)
    run_pass(readers, "together")
    # from a second before the detector's first person (2 s), MISSES looks; then once a second
    # to a second after its last (7.25 s)
    assert asked["poses"] == [round(1.0 + k / 5, 1) for k in range(MISSES)] + [3.8, 4.8, 5.8, 6.8, 7.8]


def test_without_the_detector_in_the_pass_they_look_as_before():
    def person_at(t):
        return 4.0 <= t < 6.0

    readers, asked = readers_with(person_at, person_at, shared=False)
    run_pass(readers, "together")
    assert asked["faces"] == [t / 2 for t in range(20)]  # every sample
    assert asked["poses"][:5] == [0.0, 1.0, 2.0, 3.0, 4.0]  # once a second until MoveNet sees someone
    # shared, but the objects reader is not in the pass (its result came from the cache)
    readers, asked = readers_with(person_at, person_at, objects=False)
    run_pass(readers, "together")
    assert asked["faces"] == [t / 2 for t in range(20)]
    assert asked["poses"][:5] == [0.0, 1.0, 2.0, 3.0, 4.0]


# -- with the real models


class Counted:
    """An engine whose detect/people/embed calls are counted in ``calls`` ("stage.method"); the
    rest is the engine's (engines are shared in a process, so the engine itself is left as it is)."""

    def __init__(self, engine, stage: str, calls: dict) -> None:
        self._engine, self._stage, self._calls = engine, stage, calls

    def __getattr__(self, name: str):
        found = getattr(self._engine, name)
        if name not in ("detect", "people", "embed"):
            return found

        def counted(*args, **kwargs):
            key = f"{self._stage}.{name}"
            self._calls[key] = self._calls.get(key, 0) + 1
            return found(*args, **kwargs)

        return counted


def counted(stages: list, calls: dict) -> list:
    """``stages`` with their engines' calls counted in ``calls``."""
    for stage in stages:
        stage.engine = Counted(stage.engine, stage.name, calls)
    return stages


@pytest.fixture(scope="module")
def nobody_then_grace(tmp_path_factory):
    """6 s of an empty gradient, 4 s of Grace Hopper's photograph (a 110 px face), 6 s empty."""
    from faces import Placement, Shot, make_face_video

    path = tmp_path_factory.mktemp("people") / "nobody-then-grace.mp4"
    empty = Shot(6.0, (), (60, 80, 100))
    return make_face_video(path, [empty, Shot(4.0, (Placement("grace", 0.5, 0.45, 110),), (60, 80, 100)), empty])


ENGINES = {"faces": "blazeface", "objects": "nanodet", "poses": "movenet"}


def analysed(path, engines: dict[str, str], cache, use_cache: bool = True):
    from videoreview.pipeline import analyze
    from videoreview.pipeline.stages import build_stages

    calls: dict[str, int] = {}
    analysis = analyze(path, stages=counted(build_stages(engines), calls), cache=cache, use_cache=use_cache)
    return analysis, calls


@pytest.mark.models
def test_movenet_and_the_face_detector_run_only_where_nanodet_sees_the_person(nobody_then_grace, tmp_path, home):
    from videoreview.pipeline import StageCache
    from videoreview.pipeline.stages.faces import NEAR_PERSON
    from videoreview.pipeline.stages.poses import PROBE

    cache = StageCache(tmp_path / "c")
    shared, calls = analysed(nobody_then_grace.path, ENGINES, cache)
    people = [d.time for d in shared.objects if d.label == "person"]
    assert people and 6.0 <= min(people) and max(people) < 10.0, people  # NanoDet sees her, and only her
    assert calls["objects.detect"] >= 16
    # her 4 s and NEAR_PERSON either side, at 2 a second, and one more while a face is found
    assert 0 < calls["faces.detect"] <= 2 * (4 + 2 * NEAR_PERSON) + 1, calls
    assert 0 < calls["poses.people"] <= 5 * (4 + 2 * PROBE) + 5, calls
    # and nothing is lost where she is: the same faces and identity as looking everywhere
    alone, calls_alone = analysed(nobody_then_grace.path, {**ENGINES, "objects": "none"}, cache)
    assert calls_alone["faces.detect"] == 32 and calls_alone["poses.people"] >= 16
    assert [(f.frame, f.box) for f in shared.faces] == [(f.frame, f.box) for f in alone.faces]
    assert len(shared.identities) == len(alone.identities) == 1


@pytest.mark.models
def test_a_cached_objects_result_leaves_faces_and_poses_looking_everywhere(nobody_then_grace, tmp_path, home):
    from videoreview.pipeline import StageCache

    cache = StageCache(tmp_path / "c")
    analysed(nobody_then_grace.path, {"objects": "nanodet"}, cache)  # objects cached
    analysis, calls = analysed(nobody_then_grace.path, ENGINES, cache)
    assert "objects.detect" not in calls  # from the cache: its reader is not in the pass
    assert calls["faces.detect"] == 32  # every sample, as without a detector
    assert calls["poses.people"] >= 16  # once a second at least
    assert analysis.face_tracks and analysis.objects


@pytest.mark.models
def test_on_a_real_clip_without_people_neither_movenet_nor_the_face_detector_runs(tmp_path, home):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from real_corpus import corpus, present
    from videoreview.pipeline import StageCache

    clips = [c for c in present(corpus()) if c.name == NOBODY_CLIP]
    if not clips:
        pytest.skip(f"{NOBODY_CLIP} is not fetched (scripts/fetch-real-clips)")
    analysis, calls = analysed(clips[0].path, ENGINES, StageCache(tmp_path / "c"))
    assert not any(d.label == "person" for d in analysis.objects)
    assert calls["objects.detect"] > 0 and "faces.detect" not in calls and "poses.people" not in calls, calls


NOBODY_CLIP = "kampos-drop-water.mp4"  # the tuning part: water drops, nobody in it
