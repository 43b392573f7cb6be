"""The faces stage: sample frames, detect and embed faces (cached), link them into tracks.

``compute`` is the slow part and is cached: per sample (``sample_rate`` a second, 2 by
default) the faces' boxes, scores, sharpness and identity vectors; where the objects stage
runs in the same pass, only in samples near a person it saw or after a sample with a face
(``NEAR_PERSON``, people_seen.py), the others with no faces. ``apply`` is cheap and
runs every time: it links faces into tracks inside shots (using the boundaries already
in the Analysis, reviewer edits included), then clusters tracks into identities and
replays the reviewer's identity edits (identities.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from ...engines.faces.tracking import Detection, Track, link_tracks
from ...media import FrameSource, scaled_size
from ...records import Analysis, FaceDetection, FaceTrack
from ...tracking import cut_frames, iou
from .base import SampledStage
from .cost import StageCost
from .identities import assign_identities
from .people_seen import HeldFrames, SharedPeople
from .result import StageResult

SAMPLE_RATE = 2.0  # face samples a second

# A crowd shot can hold hundreds of faces; identities come from the clearest ones.
MAX_FACES_PER_FRAME = 32
# Quality terms reach 1 at these values (display pixels of face height, Laplacian
# variance of the 150 px aligned crop, faces in the track).
FULL_SIZE, FULL_SHARPNESS, FULL_LENGTH = 60.0, 60.0, 3
# A face seen in one sample alone, under this score, is not kept: on the real-footage corpus's
# tuning part (benchmarks/real_labels.py) every face found in clips with nobody in them (an
# abstract visualiser, a screen recording, a logo, a cartoon rabbit) was one lone detection
# scoring 0.60-0.72, while people's faces are mostly seen again half a second later.
LONE_FACE = 0.75
# A face shorter than this in the video's own pixels gets no identity vector: too few pixels
# to tell people apart, and dlib's descriptor costs ~100 ms a face. In a 160x90 music video
# 249 of 344 faces were under 40 px (median 19), and their descriptors were 33 s of its 81 s
# analysis. Its track still shows, as a face nobody is named for.
MIN_EMBED = 32.0
# Where the objects stage shares its people (people_seen.py), faces are looked for in the
# samples this near (seconds, either side) a person it detected, and after a sample with a face
# (close-ups NanoDet misses keep their track). On the real-footage corpus's tuning part (41
# clips), against looking everywhere: 1785 of 2680 samples looked at; of the 1039 faces kept
# in clips with people, 8 lost (6 a Creative Commons logo, 2 faces 8-12 px tall in a 176x144
# video), every identity kept; in clips without people 8 of 16 false faces gone. At 1 s: 1658
# looked at, 25 lost, and a close-up's identity in the 160x90 music video (NanoDet saw the
# person 2 s away); at 2 s without the faces carrying on, 15 lost.
NEAR_PERSON = 2.0


def sharpness(crop: np.ndarray) -> float:
    """Variance of the Laplacian of a face crop: low when blurred (motion, focus)."""
    gray = cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY)
    return float(cv2.Laplacian(gray, cv2.CV_64F).var())


class EmbeddingReuse:
    """Skip the descriptor for a face that looks the same as one of the previous sample.

    dlib's descriptor costs ~100 ms a face on a CPU, most of the stage's time. A face
    in the same place whose aligned crop is nearly identical (normalised correlation of
    32x32 grey crops) to the last sample's is the same person, so its vector is reused;
    a cut or another person changes the crop and gets a fresh vector. Every face is
    embedded afresh at least every ``refresh`` samples so a track's mean still sees it
    change expression and pose."""

    def __init__(self, min_correlation: float = 0.9, min_iou: float = 0.5, refresh: int = 4):
        self.min_correlation, self.min_iou, self.refresh = min_correlation, min_iou, refresh
        self._previous: list[tuple[tuple, np.ndarray, np.ndarray, int]] = []  # box, patch, vector, age
        self.embedded = self.reused = 0

    @staticmethod
    def _patch(crop: np.ndarray) -> np.ndarray:
        gray = cv2.resize(cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY), (32, 32), interpolation=cv2.INTER_AREA)
        gray = gray.astype(np.float32) - gray.mean()
        return gray / (np.linalg.norm(gray) + 1e-6)

    def vectors(self, faces, crops, embed) -> list[np.ndarray]:
        patches = [self._patch(c) for c in crops]
        out: list[np.ndarray | None] = [None] * len(faces)
        ages = [0] * len(faces)
        for i, (face, patch) in enumerate(zip(faces, patches)):
            for box, old_patch, vector, age in self._previous:
                if (age + 1 < self.refresh and iou(box, face.box) >= self.min_iou
                        and float((patch * old_patch).sum()) >= self.min_correlation):
                    out[i], ages[i] = vector, age + 1
                    break
        todo = [i for i, v in enumerate(out) if v is None]
        if todo:
            for i, vector in zip(todo, embed([faces[i] for i in todo])):
                out[i] = vector
        self.embedded += len(todo)
        self.reused += len(faces) - len(todo)
        self._previous = [(f.box, p, v, a) for f, p, v, a in zip(faces, patches, out, ages)]
        return out  # type: ignore[return-value]

    def forget(self) -> None:
        """A sample was not looked at: the next one's faces are compared with none."""
        self._previous = []


def track_quality(size: float, blur: float, faces: int) -> float:
    """0..1: large, sharp, lasting faces are reliable evidence of who someone is."""
    length = min(1.0, faces / FULL_LENGTH)
    return min(1.0, size / FULL_SIZE) * min(1.0, blur / FULL_SHARPNESS) * (0.5 + 0.5 * length)


@dataclass(frozen=True)
class FaceResult(StageResult):
    """Per sample (a dict: ``time``, ``frame``, ``faces``: each face's ``box``, ``score``,
    ``blur``, ``embedding``) the faces found; how many identity vectors were computed and
    how many reused (EmbeddingReuse)."""

    sample_rate: float
    samples: tuple[dict, ...]
    embedded: int = 0
    reused: int = 0


class FaceReader:
    """The stage's samples at detection size (media/shared_pass.py). Where the objects stage
    shares its people (people_seen.py), faces are looked for only in samples within
    NEAR_PERSON seconds of a person it detected, or after a sample where a face was found."""

    def __init__(self, stage: FaceStage, source: FrameSource) -> None:
        info = source.info
        self.engine = stage.engine
        self.sample_rate = stage.sample_rate
        self.indices = source.sample_indices(stage.sample_rate)
        self.size = scaled_size(info.width, info.height, stage.detect_long_side)
        self.batch = 4  # ~0.4 s of detection: cancel is checked between batches
        self.scale = info.width / self.size[0]  # detection pixels -> display pixels
        self.reuse = EmbeddingReuse()
        self.samples: list[dict] = []
        self.looked = 0
        self._found = False  # faces in the last sample
        self.seen = stage.people.for_source(source) if stage.people is not None else None
        self.held = HeldFrames()

    def take(self, batch) -> None:
        self.held.add(batch)
        self._decide(self.held.ready(self.seen, NEAR_PERSON))

    def _decide(self, frames) -> None:
        for frame_index, time, frame, gated in frames:
            faces, crops, vectors = [], [], []
            if not gated or self._found or self.seen.near(time, NEAR_PERSON):
                faces = self.engine.detect(frame)[:MAX_FACES_PER_FRAME]
                crops = self.engine.crops(frame, faces)
                vectors = self._vectors(frame, faces, crops)
                self.looked += 1
            else:
                self.reuse.forget()
            self._found = bool(faces)
            self.samples.append({
                "time": round(time, 6),
                "frame": frame_index,
                "faces": [
                    {"box": [round(v * self.scale, 1) for v in face.box], "score": round(face.score, 4),
                     "blur": round(sharpness(crop), 1), "embedding": [round(float(x), 5) for x in vector]}
                    for face, vector, crop in zip(faces, vectors, crops)
                ],
            })

    def status(self) -> str:
        return f"sample {len(self.samples)}/{len(self.indices)}, {self.looked} looked at"

    def _vectors(self, frame, faces, crops) -> list:
        """Identity vectors of the faces tall enough for one (MIN_EMBED); () for the rest."""
        big = [i for i, face in enumerate(faces) if face.box[3] * self.scale >= MIN_EMBED]
        found = self.reuse.vectors([faces[i] for i in big], [crops[i] for i in big],
                                   lambda todo: self.engine.embed(frame, todo))
        out: list = [()] * len(faces)
        for i, vector in zip(big, found):
            out[i] = vector
        return out

    def result(self) -> FaceResult:
        self._decide(self.held.rest(self.seen, NEAR_PERSON))
        return FaceResult(self.sample_rate, tuple(self.samples), self.reuse.embedded, self.reuse.reused)


class FaceStage(SampledStage):
    """Faces are looked for in frames decoded with the long side at ``detect_long_side``
    (640) px. dlib's detectors upsample once, so the smallest face found is ~40 px there:
    80 px tall in 720p video. Measured on this 2-core CPU: HOG on a 640x360 frame with one
    upsampling 106 ms, on 960x540 without 57 ms (but 107 px faces at 720p), on 960x540 with
    it 230 ms; the descriptor ~100 ms a face whatever the frame size."""

    name = "faces"
    cost = StageCost(0.047, load=0.3, needs="person", coarse_rate=1.0)
    # 1: no identity vector for a face under MIN_EMBED; 2: where the objects stage shares its
    # people, looked for only near them (people_seen.py, which adds the detector to the revision)
    revision = 2
    sample_rate = SAMPLE_RATE
    detect_long_side = 640  # px: the long side of the frames faces are looked for in
    Reader = FaceReader
    Result = FaceResult
    people: SharedPeople | None = None  # the objects stage's people (people_seen.share_people)

    def apply(self, analysis: Analysis, result: FaceResult, previous: Analysis | None) -> Analysis:
        faces, tracks = build_tracks(result.samples, cut_frames(analysis.boundaries), self.engine.same_person)
        edits = previous.identity_edits if previous is not None else analysis.identity_edits
        analysis = replace(analysis, faces=faces, face_tracks=tracks, identity_edits=edits)
        return assign_identities([analysis], self.engine.cluster_distance, 1.0 / result.sample_rate)[0]


def build_tracks(samples: Sequence[dict], cuts: list[int], same_person: float) -> tuple[tuple, tuple]:
    """FaceDetection and FaceTrack records from the cached per-sample faces."""
    per_sample = [
        [Detection(time=s["time"], frame=s["frame"], box=tuple(f["box"]), score=f["score"], blur=f["blur"],
                   embedding=np.asarray(f["embedding"], np.float32)) for f in s["faces"]]
        for s in samples
    ]
    tracks: list[Track] = [t for t in link_tracks(per_sample, cuts, same_person)
                           if len(t.detections) > 1 or t.detections[0].score >= LONE_FACE]
    faces, records = [], []
    for track_id, track in enumerate(tracks):
        dets = track.detections
        size = float(np.median([d.box[3] for d in dets]))
        blur = float(np.median([d.blur for d in dets]))
        records.append(FaceTrack(
            id=track_id, start=dets[0].time, end=dets[-1].time, shot=track.shot, faces=len(dets),
            size=round(size, 1), score=round(float(np.mean([d.score for d in dets])), 4), blur=round(blur, 1),
            quality=round(track_quality(size, blur, len(dets)), 3),
            embedding=tuple(round(float(x), 5) for x in track.mean_embedding()),
        ))
        faces.extend(FaceDetection(time=d.time, frame=d.frame, box=d.box, score=d.score, track=track_id)
                     for d in dets)
    faces.sort(key=lambda f: (f.frame, f.box[0]))
    return tuple(faces), tuple(records)
