"""Faces too small for an identity vector (pipeline/stages/faces.py MIN_EMBED): they are tracked by
place, shown, and named by nobody unless a reviewer names them."""

from __future__ import annotations

import numpy as np

from videoreview.engines.faces.tracking import Detection, link_tracks
from videoreview.pipeline.stages.faces import build_tracks
from videoreview.pipeline.stages.identities import assign_identities
from videoreview.records import Analysis, IdentityEdit, VideoInfo

INFO = VideoInfo(path="v.mp4", duration=4.0, fps=25.0, frame_count=100, width=160, height=90)


def face(t: float, x: float, height: float, vector=()) -> dict:
    return {"box": [x, 10.0, height * 0.8, height], "score": 0.9, "blur": 80.0, "embedding": list(vector)}


def samples(*people) -> list[dict]:
    """Four samples half a second apart, each with every person given: (x, height, vector)."""
    return [{"time": t, "frame": int(t * 25), "faces": [face(t, x + 2 * t, h, v) for x, h, v in people]}
            for t in (0.0, 0.5, 1.0, 1.5)]


def test_faces_without_vectors_link_by_place_and_never_with_each_other():
    small = [[Detection(t, int(t * 25), (x + t, 10, 16, 20), 0.9, 80.0, np.zeros(0, np.float32)) for x in (10, 100)]
             for t in (0.0, 0.5, 1.0)]
    tracks = link_tracks(small, [], same_person=0.6)
    assert [len(t.detections) for t in tracks] == [3, 3]
    assert all(len({round(d.box[0] - d.time) for d in t.detections}) == 1 for t in tracks)
    assert all(t.mean_embedding().size == 0 for t in tracks)


def test_a_small_face_has_no_identity_until_a_reviewer_names_it():
    big = np.zeros(128, np.float32)
    big[0] = 1.0
    faces, tracks = build_tracks(samples((10, 20, ()), (80, 70, big)), [], same_person=0.6)
    assert [t.embedding == () for t in tracks] == [True, False]
    analysis = Analysis(video=INFO, faces=faces, face_tracks=tracks)
    named = assign_identities([analysis], 0.5)[0]
    assert [t.identity for t in named.face_tracks] == [None, "P1"]
    assert [i.id for i in named.identities] == ["P1"]
    small = next(f for f in faces if f.track == 0)
    edit = IdentityEdit(op="rename", frame=small.frame, box=small.box, name="Ann")
    renamed = assign_identities([Analysis(video=INFO, faces=faces, face_tracks=tracks, identity_edits=(edit,))], 0.5)[0]
    assert {i.name for i in renamed.identities} == {"Ann", None}


def test_the_reader_embeds_only_faces_tall_enough():
    """Wiring of FaceReader (the engine is a stand-in that finds two faces, 20 and 60 px tall)."""
    from types import SimpleNamespace

    from videoreview.media.source import FrameBatch
    from videoreview.pipeline.stages.faces import FaceReader, FaceStage

    embedded = []
    engine = SimpleNamespace(
        detect=lambda frame: [SimpleNamespace(box=(5.0, 5.0, 16.0, 20.0), score=0.9),
                              SimpleNamespace(box=(60.0, 5.0, 48.0, 60.0), score=0.9)],
        crops=lambda frame, faces: [np.full((150, 150, 3), 40 * i, np.uint8) for i, _ in enumerate(faces)],
        embed=lambda frame, faces: embedded.extend(faces) or [np.ones(128, np.float32) for _ in faces])
    source = SimpleNamespace(info=VideoInfo(path="v.mp4", duration=1.0, fps=25.0, frame_count=25, width=320,
                                            height=180), sample_indices=lambda rate: np.array([0]))
    reader = FaceReader(FaceStage(engine), source)
    reader.take(FrameBatch(np.array([0]), np.array([0.0]), np.zeros((1, 180, 320, 3), np.uint8)))
    assert [f.box[3] for f in embedded] == [60.0]
    assert [len(f["embedding"]) for f in reader.result().samples[0]["faces"]] == [0, 128]
