"""Records round-trip through JSON; bad or future files fail with a clear message."""

import json
from dataclasses import dataclass

import pytest

from videoreview.errors import RecordError
from videoreview.records import (
    SCHEMA_VERSION,
    Analysis,
    Appearance,
    Boundary,
    BoundaryCaption,
    FaceDetection,
    FaceTrack,
    FrameCaption,
    Identity,
    IdentityEdit,
    Keyframe,
    Summary,
    VideoInfo,
)
from videoreview.records.base import _Record


def sample_analysis() -> Analysis:
    info = VideoInfo(path="/videos/a b/é.mp4", duration=10.0, fps=25.0, frame_count=250, width=640, height=360,
                     rotation=90, has_audio=True, codec="h264", container="mp4", header_frame_count=251)
    det = FaceDetection(time=1.0, frame=25, box=(1.0, 2.0, 30.0, 40.0), score=0.9, track=3, identity="P1")
    return Analysis(
        video=info,
        content_hash="ab" * 32,
        engines={"boundaries": "builtin@1"},
        boundaries=(
            Boundary(time=2.0, frame=50, kind="cut", confidence=0.98),
            Boundary(time=5.5, frame=137, kind="event", confidence=0.6,
                     caption=BoundaryCaption("the man", "standing", "running", engine="builtin"), edited=True),
        ),
        captions=(FrameCaption(time=0.0, frame=0, text="P1 picks up a cup", engine="x"),),
        faces=(det,),
        face_tracks=(FaceTrack(id=3, start=1.0, end=1.0, shot=0, faces=1, size=40.0, score=0.9, blur=120.0,
                               quality=0.7, embedding=(0.1, 0.2), identity="P1"),),
        identities=(Identity(id="P1", name="Ann", appearances=(Appearance(1.0, 1.5),), track_ids=(3,),
                             exemplar=det, edited=True),),
        identity_edits=(IdentityEdit(op="rename", frame=25, box=(1.0, 2.0, 30.0, 40.0), video="ab" * 32,
                                     name="Ann"),),
        keyframes=(Keyframe(time=5.5, frame=137, score=0.8, reason="progression"),),
        summaries=(Summary(format="keyframes+text", text="[KEYFRAME1] ...", keyframe_frames=(137,)),),
    )


def test_round_trip_through_json(tmp_path):
    analysis = sample_analysis()
    path = tmp_path / "out.analysis.json"
    analysis.save(path)
    assert Analysis.load(path) == analysis


def test_public_json_layout():
    data = json.loads(sample_analysis().to_json())
    assert list(data)[0] == "schema_version" and data["schema_version"] == SCHEMA_VERSION
    for key in ("video", "boundaries", "captions", "faces", "identities", "keyframes"):
        assert key in data
    for key in ("path", "duration", "fps", "frame_count", "width", "height"):
        assert key in data["video"]
    b0, b1 = data["boundaries"]
    assert set(b0) >= {"time", "frame", "kind", "confidence", "caption"}
    assert b0["caption"] is None and b0["kind"] == "cut"
    assert b1["caption"] == {"subject": "the man", "before": "standing", "after": "running", "engine": "builtin"}
    face = data["faces"][0]
    assert {k: face[k] for k in ("time", "frame", "box", "score", "track", "identity")} == {
        "time": 1.0, "frame": 25, "box": [1.0, 2.0, 30.0, 40.0], "score": 0.9, "track": 3, "identity": "P1"}
    person = data["identities"][0]
    assert person["id"] == "P1" and person["name"] == "Ann"
    assert person["appearances"] == [{"start": 1.0, "end": 1.5}]


def test_unknown_keys_are_ignored_for_forward_compatible_readers():
    data = sample_analysis().to_dict()
    data["boundaries"][0]["added_later"] = 1
    assert Analysis.from_dict(data).boundaries[0].time == 2.0


def test_older_files_are_read_under_the_capabilities_names():
    data = sample_analysis().to_dict()
    data["schema_version"] = 7
    data["person_tracks"] = [{"id": 0, "start": 0.0, "end": 2.0, "score": 0.6, "samples": 10, "box": [1, 2, 3, 4]}]
    del data["poses"]
    loaded = Analysis.from_dict(data)
    assert loaded.poses[0].box == (1, 2, 3, 4) and loaded.poses[0].samples == 10


@pytest.mark.parametrize("content, reason", [
    ("{", "not valid JSON"),
    ("[]", "must be a JSON object"),
    ('{"video": {}}', "no schema_version"),
    ('{"schema_version": 99, "video": {}}', "newer videoreview"),
    ('{"schema_version": 1}', "no 'video'"),
    ('{"schema_version": 1, "video": {"path": "x"}}', "VideoInfo"),
])
def test_bad_files_fail_clearly(tmp_path, content, reason):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(RecordError) as err:
        Analysis.load(path)
    assert str(path) in str(err.value) and reason in str(err.value)


def test_bad_boundary_kind_is_refused():
    with pytest.raises(RecordError, match="kind"):
        Boundary(time=1.0, frame=1, kind="scene", confidence=1.0)


def test_missing_file(tmp_path):
    with pytest.raises(RecordError, match="file not found"):
        Analysis.load(tmp_path / "nope.json")


def test_save_is_atomic_on_failure(tmp_path, monkeypatch):
    path = tmp_path / "a.json"
    sample_analysis().save(path)
    before = path.read_bytes()
    import os
    monkeypatch.setattr(os, "replace", lambda *a: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError):
        sample_analysis().save(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]


@dataclass(frozen=True)
class _Part(_Record):
    name: str


@dataclass(frozen=True)
class _Whole(_Record):
    one: _Part
    maybe: _Part | None = None
    many: tuple[_Part, ...] = ()


def test_records_inside_a_record_load_by_their_annotated_type():
    """No table to keep: a new record's nested fields read back as records, not dicts."""
    whole = _Whole(_Part("a"), None, (_Part("b"), _Part("c")))
    assert _Whole.from_dict(json.loads(json.dumps(whole.to_dict()))) == whole
    assert _Whole.from_dict({"one": {"name": "a"}, "maybe": {"name": "m"}}).maybe == _Part("m")
