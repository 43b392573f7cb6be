"""The poses stage: people's bodies in frames sampled five times a second, followed through
each shot, what each is doing, and a boundary wherever that changes.

``compute`` (cached) runs the poses engine (MoveNet multipose) on the sampled frames, read at
most 256 px on its long side (MoveNet's input); boxes and keypoints are kept in display
pixels. It looks at every sample within a second (``PROBE``) of the last person it saw.
Elsewhere, where the objects stage runs in the same pass (people_seen.py), it looks only
within a second of a person that stage's detector saw (once a second there after ``MISSES``
looks that found nobody): on footage without people (an animation, a landscape, a screen)
MoveNet does not run. Without it, once a second, and at every sample again from the first
person it sees. A sample not looked at has no people. ``apply`` (every time, cheap):

* links each sample's people to the person seen nearest before (within ``LINK_DISTANCE`` of
  their body height, ``GAP`` samples missed at most), never across a cut: a running person
  moves a third of their height in a fifth of a second, so boxes need not overlap;
* keeps the tracks seen in ``MIN_SAMPLES`` samples or more and gives each a status per sample
  (engines/poses/status.py), then status spans that last a second or more;
* names a track by the face identity seen in the top of its box most often (the faces stage
  runs first);
* adds an event boundary at each change of status, captioned as Kinetic-GEB+ has it: subject
  ("P1", else "a person"), status before, status after. It takes the place of an event the
  boundaries engine found within ``SAME_EVENT`` seconds (the same moment, said better); a
  reviewer's boundaries and deletions stand.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ...engines.poses.status import status_changes, statuses
from ...media import FrameSource, scaled_size
from ...records import Analysis, Boundary, BoundaryCaption, PoseSample, PoseTrack, StatusSpan
from ...tracking import cut_frames
from . import track_edits
from .base import SampledStage
from .cost import StageCost
from .people_seen import HeldFrames, SharedPeople
from .result import StageResult

SAMPLE_RATE = 5.0  # status.py's motion window (1 s) needs five samples or so
PROBE = 1.0  # seconds between looks while nobody is seen (a person appears a second late at most)
# Where the objects stage shares its people (people_seen.py): MoveNet looks at every sample
# within PROBE of a person the detector saw, until it has looked this many times in a row
# and found nobody; then once a PROBE. Measured on the real-footage corpus's tuning part (41
# clips, benchmarks/real_corpus.py) against MoveNet at every sample (6580 looks, 151 tracks,
# 22 statuses said): once a PROBE where nobody is seen (before) 3457 looks, 133 tracks, 19
# statuses; this 3344, 141, 19; every sample near the detector's people 4205, 146, 20 (a
# person close up or far away that NanoDet sees and MoveNet does not cost five looks a second).
MISSES = 10
LONG_SIDE = 256  # MoveNet's input side: frames are read no larger
LINK_DISTANCE = 0.6  # centres this many body heights apart or nearer: the same person
GAP = 2  # samples a person may be missed in and stay the same track
MIN_SAMPLES = 5  # a track shorter than this (a second) tells no status
MIN_STATUS = 1.0  # seconds a status lasts to be said (status.status_changes)
SAME_EVENT = 1.0  # an engine's event this near a change of status is that change
FACE_TOP = 0.35  # a face whose centre is in this top share of a body's box is that body's


@dataclass(frozen=True)
class PoseResult(StageResult):
    """Per sample (a dict: ``time``, ``frame``, ``people``: [score, box, keypoints] each)
    the bodies MoveNet found; none in a sample it did not look at."""

    sample_rate: float
    samples: tuple[dict, ...]


class PoseReader:
    """The stage's samples at MoveNet's size (media/shared_pass.py)."""

    def __init__(self, stage: PoseStage, source: FrameSource) -> None:
        info = source.info
        self.stage = stage
        self.indices = source.sample_indices(stage.sample_rate)
        self.size = scaled_size(info.width, info.height, min(LONG_SIDE, max(info.width, info.height)))
        self.batch = 16
        self.scale = info.width / self.size[0]  # read pixels -> display pixels
        self.samples: list[dict] = []
        self.looked = 0
        self._last_look = self._last_seen = -np.inf  # seconds
        self._missed = 0  # looks in a row that found nobody
        # the objects stage's people in this pass, where it shares them (people_seen.py)
        self.seen = stage.people.for_source(source) if stage.people is not None else None
        self.held = HeldFrames()

    def take(self, batch) -> None:
        self.held.add(batch)
        self._decide(self.held.ready(self.seen, PROBE))

    def _decide(self, frames) -> None:
        for frame_index, time, frame, gated in frames:
            people = []
            if self._look(time, gated):
                people = self.stage.engine.people(frame)
                self.looked += 1
                self._missed = 0 if people else self._missed + 1
                if people:
                    self._last_seen = time
            self.samples.append({"time": round(time, 6), "frame": frame_index, "people": [
                [round(p.score, 3), [round(v * self.scale, 1) for v in p.box],
                 [[round(float(x) * self.scale, 1), round(float(y) * self.scale, 1), round(float(s), 3)]
                  for x, y, s in p.keypoints]] for p in people]})

    def _look(self, time: float, gated: bool) -> bool:
        """Every sample within PROBE seconds of the last person MoveNet saw. Besides, where
        the objects stage's detector decides (``gated``), those within PROBE of a person it
        detected, but one a PROBE after MISSES looks in a row that found nobody there (a
        person MoveNet does not see as a body: a face close-up, hands); elsewhere none.
        Without the detector, one a PROBE."""
        # 0.9: samples fall on the video's frames, not exactly 1 / SAMPLE_RATE apart
        probe_due = time - self._last_look >= 0.9 * PROBE
        if gated:
            look = time - self._last_seen <= PROBE or (self.seen.near(time, PROBE)
                                                      and (self._missed < MISSES or probe_due))
        else:
            look = time - self._last_seen <= PROBE or probe_due
        if look:
            self._last_look = time
        return look

    def status(self) -> str:
        return f"sample {len(self.samples)}/{len(self.indices)}, {self.looked} looked at"

    def result(self) -> PoseResult:
        self._decide(self.held.rest(self.seen, PROBE))
        return PoseResult(self.stage.sample_rate, tuple(self.samples))


class PoseStage(SampledStage):
    name = "poses"
    # 13 ms a sample where a person is in every frame; status.py wants ~5/s
    cost = StageCost(0.013, load=0.1, needs="person", coarse_rate=3.0)
    # 1: looks once a second where nobody is seen; 2: where the objects stage shares its
    # people, only near them (people_seen.py, which adds the detector to the revision)
    revision = 2
    sample_rate = SAMPLE_RATE
    Reader = PoseReader
    Result = PoseResult
    people: SharedPeople | None = None  # the objects stage's people (people_seen.share_people)

    def apply(self, analysis: Analysis, result: PoseResult, previous: Analysis | None) -> Analysis:
        engine = self.engine_tag
        cuts = cut_frames(analysis.boundaries)
        tracks = pose_tracks(result.samples, cuts, 1.0 / result.sample_rate, analysis, engine)
        bodies = pose_samples(result.samples, cuts)
        analysis = track_edits.replayed(replace(analysis, poses=tuple(tracks), pose_samples=bodies), "poses")
        return with_status_boundaries(analysis, result.samples, engine)


def _centre(box) -> np.ndarray:
    return np.array([box[0] + box[2] / 2, box[1] + box[3] / 2])


def link_people(samples: Sequence[dict], cuts: list[int]) -> list[list[tuple[int, int]]]:
    """Each person followed through the samples: per track, (sample index, person index)."""
    cuts = sorted(cuts)
    tracks: list[list[tuple[int, int]]] = []
    open_tracks: list[dict] = []  # box, last sample index, shot, track number
    for i, sample in enumerate(samples):
        shot = bisect.bisect_right(cuts, sample["frame"])
        live = [t for t in open_tracks if t["shot"] == shot and i - t["last"] <= GAP + 1]
        pairs = []
        for k, t in enumerate(live):
            for j, (_, box, _) in enumerate(sample["people"]):
                height = max(box[3], t["box"][3], 1.0)
                distance = float(np.linalg.norm(_centre(box) - _centre(t["box"]))) / height
                if distance <= LINK_DISTANCE:
                    pairs.append((distance, k, j))
        taken_tracks, taken_people = set(), set()
        for _, k, j in sorted(pairs):  # nearest first
            if k in taken_tracks or j in taken_people:
                continue
            taken_tracks.add(k)
            taken_people.add(j)
            live[k].update(box=sample["people"][j][1], last=i)
            tracks[live[k]["track"]].append((i, j))
        for j, (_, box, _) in enumerate(sample["people"]):
            if j not in taken_people:
                open_tracks.append({"box": box, "last": i, "shot": shot, "track": len(tracks)})
                tracks.append([(i, j)])
        open_tracks = [t for t in open_tracks if i - t["last"] <= GAP]
    return tracks


def kept_people(samples: Sequence[dict], cuts: list[int]) -> list[list[tuple[int, int]]]:
    """link_people's tracks seen long enough to tell what they do: the pose tracks, in id order."""
    return [members for members in link_people(samples, cuts) if len(members) >= MIN_SAMPLES]


def pose_samples(samples: Sequence[dict], cuts: list[int]) -> tuple[PoseSample, ...]:
    """Each kept body in each sample it was seen in, with its keypoints, in time order."""
    bodies = []
    for track, members in enumerate(kept_people(samples, cuts)):
        for i, j in members:
            score, box, keypoints = samples[i]["people"][j]
            bodies.append(PoseSample(samples[i]["time"], samples[i]["frame"], track,
                                     tuple(round(float(v), 1) for v in box), round(float(score), 3),
                                     tuple(round(float(v), 2) for v in np.asarray(keypoints).ravel())))
    return tuple(sorted(bodies, key=lambda b: (b.frame, b.track)))


def pose_tracks(samples: Sequence[dict], cuts: list[int], step: float, analysis: Analysis, engine: str = ""
                  ) -> list[PoseTrack]:
    """The people seen long enough to tell what they do, with their status spans (see above)."""
    out: list[PoseTrack] = []
    faces = _named_faces(analysis)
    for members in kept_people(samples, cuts):
        times = [samples[i]["time"] for i, _ in members]
        people = [samples[i]["people"][j] for i, j in members]
        keypoints = [np.asarray(p[2], np.float32) for p in people]
        said = statuses(times, keypoints)
        last = members[-1][0]
        end = samples[last + 1]["time"] if last + 1 < len(samples) else min(analysis.video.duration,
                                                                             times[-1] + step)
        out.append(PoseTrack(
            id=len(out), start=times[0], end=round(end, 6), score=round(float(np.mean([p[0] for p in people])), 3),
            samples=len(members), box=tuple(round(float(v), 1) for v in np.median([p[1] for p in people], axis=0)),
            identity=_identity(faces, times, [p[1] for p in people]),
            statuses=_spans(times, said, round(end, 6)), engine=engine))
    return out


def _spans(times: list[float], said: list[str | None], end: float) -> tuple[StatusSpan, ...]:
    """The statuses as spans from one change to the next, short ones dropped (status_changes)."""
    changes = status_changes(times, said, MIN_STATUS)
    first = changes[0][1] if changes else next((s for s in said if s is not None), None)
    if first is None:
        return ()
    edges = [times[0], *(round(t, 6) for t, _, _ in changes), end]
    names = [first, *(after for _, _, after in changes)]
    return tuple(StatusSpan(a, b, name) for a, b, name in zip(edges, edges[1:], names))


def _named_faces(analysis: Analysis) -> tuple[np.ndarray, dict[float, list]]:
    """The sample times with faces that have an identity, and those faces by time."""
    faces: dict[float, list] = {}
    for face in analysis.faces:
        if face.identity:
            faces.setdefault(face.time, []).append(face)
    return np.array(sorted(faces)), faces


def _identity(named: tuple[np.ndarray, dict[float, list]], times: list[float], boxes: list) -> str | None:
    """The identity whose face (``_named_faces``) is seen in the top of the body's box most
    often, or None."""
    face_times, faces = named
    if not faces:
        return None
    votes: Counter = Counter()
    for time, (x, y, w, h) in zip(times, boxes):
        nearest = float(face_times[np.argmin(np.abs(face_times - time))])
        if abs(nearest - time) > 0.5:  # faces are sampled more sparsely than bodies
            continue
        for face in faces[nearest]:
            cx, cy = _centre(face.box)
            if x <= cx <= x + w and y <= cy <= y + FACE_TOP * h:
                votes[face.identity] += 1
    return votes.most_common(1)[0][0] if votes else None


def with_status_boundaries(analysis: Analysis, samples: Sequence[dict], engine: str) -> Analysis:
    """``analysis`` with an event boundary at each change of a person's status (see above)."""
    times = [s["time"] for s in samples]
    frames = [s["frame"] for s in samples]
    removed = set(analysis.removed_boundaries)
    reviewed = {b.frame + d for b in analysis.boundaries if b.edited for d in (-1, 0, 1)}
    reviewed |= {f + d for f in removed for d in (-1, 0, 1)}
    added: list[Boundary] = []
    for track in analysis.poses:
        subject = track.identity or "a person"
        for before, after in zip(track.statuses, track.statuses[1:]):
            frame = int(round(np.interp(after.start, times, frames)))
            if frame in reviewed:
                continue
            added.append(Boundary(time=after.start, frame=frame, kind="event", confidence=track.score,
                                  caption=BoundaryCaption(subject, before.status, after.status, engine=engine),
                                  engine=engine))
    if not added:
        return analysis
    said = [b.time for b in added]
    kept = [b for b in analysis.boundaries
            if b.edited or b.kind != "event" or min(abs(b.time - t) for t in said) > SAME_EVENT]
    return analysis.with_boundaries(kept + added)
