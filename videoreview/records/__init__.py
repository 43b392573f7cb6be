"""The canonical records and their JSON form.

Every record is a frozen dataclass with ``to_dict`` / ``from_dict``. Times are seconds
(float) together with the index of the decoded frame they came from. One ``Analysis``
per video holds everything the engines and the reviewer produced; its JSON is a public
format carrying ``schema_version``. Reviewer corrections are ordinary records with
``edited=True`` so that re-running a model never overwrites them silently.

    base.py    the JSON form every record shares, reading and writing JSON files
    notes.py   the reviewer's notes (comments, ranges, drawings)
    here       the Analysis and what the engines make
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ..errors import RecordError
from .base import _Record, one_of, read_json, write_atomic  # noqa: F401  (read_json re-exported)
from .notes import NOTE_STATUSES, NOTE_TAG_COLOURS, NOTE_TAGS, SHAPE_KINDS, Note, NoteDeletion, Shape  # noqa: F401  (re-exported)

# 2: faces became a flat list of detections; face_tracks, identity appearances and edits added.
# 3: speech (transcript segments with words, what the audio held) and on-screen text spans.
# 4: the reviewer's notes (time-coded comments, ranges and drawings).
# 5: objects (COCO detections in sampled frames) and object tracks.
# 6: people's bodies followed through shots, with what each is doing (person tracks).
# 7: shot tags (what an image-text model names in each shot).
# 8: each capability's records under its one name: person_tracks became poses; expressions;
#    bodies per sample (pose_samples); reviewers' track edits.
SCHEMA_VERSION = 8
RENAMED = {"person_tracks": "poses"}  # old Analysis key -> its name since schema 8

BoundaryKind = Literal["cut", "gradual", "event"]
BOUNDARY_KINDS: tuple[str, ...] = ("cut", "gradual", "event")
SUMMARY_FORMATS: tuple[str, ...] = ("text", "keyframes+text", "keyframes")
SHOT_CHANGE_KINDS: tuple[str, ...] = ("cut", "gradual")  # boundaries that start a new shot
# What a person is doing, from their body's keypoints (engines/poses/status.py)
PERSON_STATUSES: tuple[str, ...] = ("standing", "sitting", "lying", "bending", "arms raised", "walking", "running")


@dataclass(frozen=True)
class VideoInfo(_Record):
    """What the probe found. width/height are as displayed (rotation applied)."""

    path: str
    duration: float
    fps: float
    frame_count: int  # frames that actually decode, not what the container header says
    width: int
    height: int
    rotation: int = 0  # degrees clockwise the decoded frames are turned for display
    has_audio: bool = False
    codec: str = ""
    container: str = ""
    header_frame_count: int | None = None  # what the container claims, for the record
    variable_frame_rate: bool = False
    size_bytes: int = 0


@dataclass(frozen=True)
class FrameCaption(_Record):
    time: float
    frame: int
    text: str
    engine: str = ""
    edited: bool = False
    # The builtin classifier's top labels at this frame with their probabilities (what the
    # builtin ViSIL scorer reads); empty for VLM captions and analyses saved before them.
    labels: tuple[tuple[str, float], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "labels", tuple((str(n), float(p)) for n, p in self.labels))


@dataclass(frozen=True)
class BoundaryCaption(_Record):
    """Kinetic-GEB+ style: the dominant subject and its status before and after."""

    subject: str
    before: str  # the subject's status before the boundary
    after: str  # and after it
    engine: str = ""


@dataclass(frozen=True)
class Boundary(_Record):
    time: float
    frame: int
    kind: str  # one of BOUNDARY_KINDS
    confidence: float
    caption: BoundaryCaption | None = None
    engine: str = ""
    edited: bool = False


    def __post_init__(self) -> None:
        one_of("boundary kind", self.kind, BOUNDARY_KINDS)


@dataclass(frozen=True)
class FaceDetection(_Record):
    """One face in one sampled frame."""

    time: float
    frame: int
    box: tuple[float, float, float, float]  # x, y, w, h in display pixels
    score: float  # detector confidence (comparable only within one detector)
    track: int = -1  # FaceTrack.id
    identity: str | None = None  # "P1", ... or None while unassigned


@dataclass(frozen=True)
class FaceTrack(_Record):
    """Faces of one person linked over consecutive samples of one shot."""

    id: int
    start: float  # time of its first face
    end: float  # time of its last face
    shot: int  # index of the shot (0 before the first cut)
    faces: int  # number of detections
    size: float  # median face height, display pixels
    score: float  # mean detector confidence
    blur: float  # median variance of the Laplacian of the aligned face: higher is sharper
    quality: float  # 0..1 from size, sharpness and length; weak tracks do not shape clusters
    embedding: tuple[float, ...] = ()  # mean identity vector (for clustering across videos)
    identity: str | None = None


@dataclass(frozen=True)
class Appearance(_Record):
    start: float
    end: float


@dataclass(frozen=True)
class Identity(_Record):
    id: str  # "P1", "P2", ... in order of first appearance (over the video set)
    name: str | None = None  # given by a reviewer
    appearances: tuple[Appearance, ...] = ()  # when any of its faces is on screen
    track_ids: tuple[int, ...] = ()
    exemplar: FaceDetection | None = None  # the face to show for it (largest sharp face)
    edited: bool = False  # renamed, merged or split by a reviewer



IDENTITY_EDIT_OPS: tuple[str, ...] = ("rename", "merge", "split", "not_a_face")


@dataclass(frozen=True)
class IdentityEdit(_Record):
    """A reviewer's correction, replayed after every clustering so it survives re-analysis.

    Tracks are named by one of their faces (frame and box), not by track id or P-id,
    which may change when the engines run again: the edit applies to whichever track
    then has a face at that frame overlapping that box. ``video`` is the content hash of
    the video the face is in (clustering may span several videos)."""

    op: str  # one of IDENTITY_EDIT_OPS
    frame: int
    box: tuple[float, float, float, float]
    video: str = ""
    name: str | None = None  # rename: the new name (None clears it)
    other_frame: int | None = None  # merge: a face of the other identity
    other_box: tuple[float, float, float, float] | None = None
    other_video: str = ""


@dataclass(frozen=True)
class Keyframe(_Record):
    time: float
    frame: int
    score: float = 0.0
    reason: str = ""
    edited: bool = False


@dataclass(frozen=True)
class Summary(_Record):
    format: str  # one of SUMMARY_FORMATS
    text: str
    keyframe_frames: tuple[int, ...] = ()
    engine: str = ""
    edited: bool = False


@dataclass(frozen=True)
class Word(_Record):
    start: float
    end: float
    text: str
    probability: float = 0.0


SPEAKER_SOURCES: tuple[str, ...] = ("", "alone", "mouth", "reviewer")


@dataclass(frozen=True)
class TranscriptSegment(_Record):
    """A stretch of speech: its text, each word with its times, and who says it."""

    start: float
    end: float
    text: str
    words: tuple[Word, ...] = ()
    language: str = ""
    engine: str = ""
    # The identity speaking ("P1"), or None when nobody can be told. ``speaker_by`` says
    # how it was decided: "alone" (the only face on screen), "mouth" (the face whose
    # mouth moves), "reviewer".
    speaker: str | None = None
    speaker_by: str = ""
    edited: bool = False  # text or speaker set by a reviewer: a re-run keeps it


    def __post_init__(self) -> None:
        one_of("speaker_by", self.speaker_by, SPEAKER_SOURCES)


@dataclass(frozen=True)
class SpeechInfo(_Record):
    """What the audio held, said even when nothing was transcribed."""

    audio: str  # "none" (no audio stream), "silent", "no speech", "speech"
    language: str = ""  # ISO 639-1 code of the detected language
    language_probability: float = 0.0
    duration: float = 0.0  # seconds of audio read
    note: str = ""  # what the user should know: damage, sound shorter or longer than the picture
    engine: str = ""


@dataclass(frozen=True)
class ScreenText(_Record):
    """One piece of on-screen text, read the same in neighbouring samples."""

    start: float  # the first sample it was read in
    end: float  # the first sample after that without it
    text: str
    box: tuple[float, float, float, float]  # x, y, w, h in display pixels
    score: float = 0.0  # the recogniser's confidence
    frame: int = 0  # the frame it was first read in
    engine: str = ""


@dataclass(frozen=True)
class ObjectDetection(_Record):
    """One object (a COCO class) seen in one sampled frame."""

    time: float
    frame: int
    label: str  # "car", "dog", "cup", ...
    box: tuple[float, float, float, float]  # x, y, w, h in display pixels
    score: float
    track: int = -1  # the id of its ObjectTrack; -1 when it is in none


@dataclass(frozen=True)
class ObjectTrack(_Record):
    """One object followed through a shot: detections of one label whose boxes overlap
    from sample to sample."""

    id: int
    label: str
    start: float  # the first sample it was seen in
    end: float  # the first sample after the last one it was seen in (or the video's end)
    score: float  # its detections' mean score
    detections: int
    engine: str = ""


@dataclass(frozen=True)
class StatusSpan(_Record):
    """What a person is doing from ``start`` until ``end``."""

    start: float
    end: float
    status: str  # one of PERSON_STATUSES


@dataclass(frozen=True)
class PoseTrack(_Record):
    """One person's body followed through a shot (the poses stage), with what they do."""

    id: int
    start: float  # the first sample they were seen in
    end: float  # the first sample after the last one (or the video's end)
    score: float  # the pose detector's mean person score
    samples: int  # samples they were seen in
    box: tuple[float, float, float, float]  # x, y, w, h, display pixels: their median box
    identity: str | None = None  # "P1": the identity of the face seen in their body's box most often
    statuses: tuple[StatusSpan, ...] = ()  # in time order, covering start..end where a status is known
    engine: str = ""


    def status_at(self, time: float) -> str | None:
        return next((s.status for s in self.statuses if s.start <= time < s.end), None)


@dataclass(frozen=True)
class PoseSample(_Record):
    """One body in one sampled frame (the poses stage), with its keypoints."""

    time: float
    frame: int
    track: int  # PoseTrack.id
    box: tuple[float, float, float, float]  # x, y, w, h in display pixels
    score: float
    keypoints: tuple[float, ...] = ()  # 17 x (x, y, score), COCO's order, display pixels


TRACK_EDIT_OPS: tuple[str, ...] = ("relabel", "delete", "move")


@dataclass(frozen=True)
class TrackEdit(_Record):
    """A reviewer's correction of an object or body track, replayed after every re-analysis
    (pipeline/edits.py) so it survives it. As an IdentityEdit, the track is named by one of
    its boxes (``frame``, ``box``), not by its id, which may change when the engines run
    again: the edit applies to whichever track then has a box at that frame overlapping it."""

    op: str  # one of TRACK_EDIT_OPS
    capability: str  # "objects" or "poses"
    frame: int
    box: tuple[float, float, float, float]
    label: str | None = None  # relabel: the new label
    to: tuple[float, float, float, float] | None = None  # move: the box at ``frame`` from now on
    author: str = ""


@dataclass(frozen=True)
class Expression(_Record):
    """What one face shows over a span of its face track (the expressions stage): one of
    engines/expressions.py's LABELS, the likeliest over the span."""

    track: int  # FaceTrack.id
    start: float
    end: float
    label: str
    score: float  # the model's mean probability of it over the span
    identity: str | None = None  # the track's, when the analysis ran
    engine: str = ""


@dataclass(frozen=True)
class ShotTag(_Record):
    """A thing or scene an image-text model (SigLIP) names in one shot.

    ``name`` is the vocabulary's plain words ("parrot", "race car", "crowd"); ``score`` is the
    model's own match probability, the mean sigmoid of its logit over the shot's scored frames
    (engines/embeddings/naming.py says when a name counts as seen)."""

    start: float  # the shot's span, seconds
    end: float
    frame: int  # the shot's first frame
    name: str
    score: float
    engine: str = ""  # "siglip:NAME@version"
    edited: bool = False


CAPTION_PLAN_MODES: tuple[str, ...] = ("per-shot", "dense")


@dataclass(frozen=True)
class CaptionPlan(_Record):
    """Which frames the captioning VLM saw (pipeline/caption_plan.py): every sample
    ("dense", on CUDA and model servers) or a few windows a shot within a budget of
    seconds ("per-shot", on a CPU). Captions at the other frames are the builtin's."""

    mode: str  # one of CAPTION_PLAN_MODES
    budget: float | None = None  # per-shot: the VLM's seconds for this video; None: no limit (dense)
    frames: tuple[int, ...] = ()  # the sampled frames the VLM saw, in order
    windows: tuple[tuple[int, ...], ...] = ()  # each caption window's frames, in the order asked
    boundaries: tuple[int, ...] = ()  # the frames of the boundaries it captioned, in the order asked
    estimated: float | None = None  # per-shot: the seconds the plan expected, at its last revision
    spent: float = 0.0  # seconds the VLM's requests took (decoding their frames included)
    engine: str = ""

    def __post_init__(self) -> None:
        one_of("caption plan mode", self.mode, CAPTION_PLAN_MODES)
        object.__setattr__(self, "windows", tuple(tuple(int(f) for f in w) for w in self.windows))


@dataclass(frozen=True)
class StagePlan(_Record):
    """One stage in the plan of an analysis (pipeline/plan.py)."""

    stage: str
    rate: float | None = None  # samples a second it was given; None: not sampled (every frame, the sound)
    default_rate: float | None = None  # its rate without a budget
    needs: str = ""  # what must be seen or heard where it looks (pipeline/stages/cost.py NEEDS)
    note: str = ""  # why it does not run, or runs coarse: "from the cache", "no sound track", ...
    estimated: float = 0.0  # seconds the plan expected
    spent: float | None = None  # seconds inside its work; None: it did not run (cached, or not yet)
    beside: bool = False  # it runs in a thread beside the frame pass (speech)


@dataclass(frozen=True)
class AnalysisPlan(_Record):
    """What an analysis planned to do and what it spent: the budget, and a row per stage."""

    cores: int
    device: str = "cpu"
    budget: float | None = None  # seconds the analysis was to take at most; None: no budget
    estimated: float = 0.0  # seconds: decoding plus the frame pass's stages
    decode_estimated: float = 0.0
    stages: tuple[StagePlan, ...] = ()
    spent: float | None = None  # the whole analysis's seconds, probe to the last stage
    # "full": every stage as planned. "coarse": the window's first look at the whole video
    # (pipeline/coarse.py), shown until the full pass lands; never saved, cached or indexed.
    level: str = "full"



@dataclass(frozen=True)
class Analysis(_Record):
    video: VideoInfo
    content_hash: str = ""  # SHA-256 of the file: finds the video again after a move
    engines: dict[str, str] = field(default_factory=dict)  # stage -> "engine@version"
    devices: dict[str, str] = field(default_factory=dict)  # stage -> where it ran: "cuda", "cpu"
    boundaries: tuple[Boundary, ...] = ()
    captions: tuple[FrameCaption, ...] = ()
    faces: tuple[FaceDetection, ...] = ()
    face_tracks: tuple[FaceTrack, ...] = ()
    identities: tuple[Identity, ...] = ()
    identity_edits: tuple[IdentityEdit, ...] = ()
    track_edits: tuple[TrackEdit, ...] = ()  # the reviewer's, in the order made
    keyframes: tuple[Keyframe, ...] = ()
    summaries: tuple[Summary, ...] = ()
    # Frames of engine boundaries a reviewer deleted (or moved away): a re-run drops them.
    removed_boundaries: tuple[int, ...] = ()
    speech: SpeechInfo | None = None  # None: speech was not analysed
    transcript: tuple[TranscriptSegment, ...] = ()
    screen_text: tuple[ScreenText, ...] = ()
    objects: tuple[ObjectDetection, ...] = ()
    object_tracks: tuple[ObjectTrack, ...] = ()
    poses: tuple[PoseTrack, ...] = ()
    pose_samples: tuple[PoseSample, ...] = ()  # in time order
    expressions: tuple[Expression, ...] = ()  # in time order
    shot_tags: tuple[ShotTag, ...] = ()  # what an image-text model names in each shot, in time order
    caption_plan: CaptionPlan | None = None  # which frames a VLM captioned; None: no VLM did
    plan: AnalysisPlan | None = None  # what the analysis planned and spent (pipeline/plan.py)
    notes: tuple[Note, ...] = ()  # the reviewer's, in time order; never touched by analysis
    # Notes a reviewer deleted, and when: merging another copy (the team library's) leaves them out.
    deleted_notes: tuple[NoteDeletion, ...] = ()
    schema_version: int = SCHEMA_VERSION


    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        # schema_version first: readers look at it before anything else.
        return {"schema_version": data.pop("schema_version"), **data}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Analysis:
        if not isinstance(data, dict):
            raise RecordError(None, "an Analysis must be a JSON object")
        version = data.get("schema_version")
        if not isinstance(version, int):
            raise RecordError(None, "not a videoreview Analysis (no schema_version)")
        if version > SCHEMA_VERSION:
            raise RecordError(
                None, f"schema_version {version} was written by a newer videoreview "
                      f"(this one reads up to {SCHEMA_VERSION})"
            )
        if "video" not in data:
            raise RecordError(None, "Analysis has no 'video'")
        return super().from_dict({RENAMED.get(key, key): value for key, value in data.items()})

    def shot_changes(self) -> list[float]:
        """Times of the cuts and gradual transitions, in order: where a new shot starts."""
        return sorted(b.time for b in self.boundaries if b.kind in SHOT_CHANGE_KINDS)

    def person_name(self, identity_id: str) -> str:
        """What to call an identity: the name a reviewer gave it, else its id ("P1")."""
        named = next((i.name for i in self.identities if i.id == identity_id and i.name), None)
        return named or identity_id

    def with_boundaries(self, boundaries) -> Analysis:
        return replace(self, boundaries=tuple(sorted(boundaries, key=lambda b: b.time)))

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    def save(self, path: str | os.PathLike) -> None:
        write_atomic(Path(path), self.to_json().encode("utf-8"))

    @classmethod
    def load(cls, path: str | os.PathLike) -> Analysis:
        data = read_json(path)
        try:
            return cls.from_dict(data)
        except RecordError as exc:
            raise RecordError(path, exc.reason) from None
