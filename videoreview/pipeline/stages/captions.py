"""The captions stage: frame captions at 1 fps, a caption for every boundary, keyframes.

``compute`` (cached) measures each sampled frame: classifier labels, an appearance
vector, camera and subject motion. ``apply`` (every time, cheap) writes the builtin
captions from those measurements plus the faces, identities and shots already in the
Analysis, captions each boundary, and picks keyframes; records a reviewer edited are kept.
"""

from __future__ import annotations

import base64
import bisect
from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from ...engines.captions.builtin import Person, Sample, boundary_status, describe, measure_motion
from ...engines.captions.looks import look
from ...engines.captions.phrases import said, sentence, written
from ...engines.embeddings.naming import ShotNamer, keep_edited_tags
from ...media import FrameSource, scaled_size, short_side_size
from ...records import Analysis, BoundaryCaption, FrameCaption, Keyframe
from ...summary.keyframes import Candidate, progression_keyframes
from ...tracking import cut_frames
from . import label_vote
from .base import SampledStage
from .cost import StageCost
from .result import StageResult

TOP_LABELS = 10
CROP = 224  # the classifier's input: square crops of the picture scaled to this height
LINE_HEIGHT = 0.25  # a line of on-screen text is at most this share of the picture high
FEATURE_LONG_SIDE = 224  # the whole picture at this size, for appearance features (keyframes)
# An image-text model sees a sample every NAME_SECONDS: SigLIP 2 base takes 0.3 s a frame on
# 2 cores (benchmarks/bench_vlm_shot.py), 54 s of a 3-minute clip at every sample, half that
# at every other; a shot's names need only a few of its frames (naming.MATCH_SHARE).
NAME_SECONDS = 2.0


def square_crops(frame: np.ndarray) -> list[np.ndarray]:
    """Three squares along the long side of ``frame`` (start, middle, end), or the middle
    one alone when the picture is nearly square."""
    h, w = frame.shape[:2]
    side = min(h, w)
    room = max(h, w) - side
    offsets = [room // 2] if room < side * 0.2 else [0, room // 2, room]
    if w >= h:
        return [frame[:, x:x + side] for x in offsets]
    return [frame[y:y + side, :] for y in offsets]


@dataclass(frozen=True)
class CaptionResult(StageResult):
    """Per sample (a dict: ``time``, ``frame``, ``labels``, ``whole``, ``camera``, ``zoom``,
    ``motion``, ``feature``, ``look``, and ``image_text`` where an image-text model saw it)
    what was measured (CaptionReader._measure; measured_sample reads it)."""

    sample_rate: float
    samples: tuple[dict, ...]


class CaptionReader:
    """Each sampled frame and the one after it (for motion), at the crop size
    (media/shared_pass.py); measured 16 samples at a time."""

    CHUNK = 16

    def __init__(self, stage: CaptionStage, source: FrameSource) -> None:
        info = source.info
        self.stage = stage
        self.last = info.frame_count - 1
        self.sampled = source.sample_indices(stage.sample_rate)
        self.indices = np.unique(np.concatenate([self.sampled, np.minimum(self.sampled + 1, self.last)]))
        self.size = short_side_size(info.width, info.height, CROP)
        self.batch = self.CHUNK
        self.flow_size = scaled_size(info.width, info.height, 160)
        self.feature_size = scaled_size(info.width, info.height, FEATURE_LONG_SIDE)
        self.frames: dict[int, tuple[float, np.ndarray]] = {}  # decoded, not yet measured
        self.next = 0  # position in self.sampled of the next sample to complete
        self.ready: list[tuple[int, float, np.ndarray, np.ndarray]] = []  # frame, time, picture, next picture
        self.samples: list[dict] = []
        self.named_at: float | None = None  # the time of the last sample the image-text model saw

    def status(self) -> str:
        return ""  # the pass says "frame N/TOTAL"

    def take(self, batch) -> None:
        for index, time, frame in zip(batch.indices, batch.times, batch.frames):
            self.frames[int(index)] = (float(time), frame)
        while self.next < len(self.sampled):
            i = int(self.sampled[self.next])
            j = min(i + 1, self.last)
            if j not in self.frames:
                break
            time, frame = self.frames[i]
            self.ready.append((i, time, frame, self.frames[j][1]))
            self.next += 1
            for done in [k for k in self.frames if k < j]:
                del self.frames[done]
        while len(self.ready) >= self.CHUNK:
            self._measure(self.ready[:self.CHUNK])
            del self.ready[:self.CHUNK]

    def result(self) -> CaptionResult:
        if self.ready:
            self._measure(self.ready)
        if self.stage.namer is not None:  # its vocabulary, embedded on a model's first run: here, not in apply
            self.stage.namer.text_embeddings()
        return CaptionResult(self.stage.sample_rate, tuple(self.samples))

    def _measure(self, chunk: list[tuple[int, float, np.ndarray, np.ndarray]]) -> None:
        extract = self.stage.engine.extract
        sampled = [picture for _, _, picture, _ in chunk]
        # Appearance (keyframes) and labels from the whole picture, and labels again from
        # square crops at the classifier's own scale: a subject is said only where the
        # two views agree (a classifier sure and wrong is seldom so in both).
        features, whole = extract.features_and_probabilities(
            np.stack([cv2.resize(f, self.feature_size, interpolation=cv2.INTER_AREA) for f in sampled]))
        crops = np.stack([c for f in sampled for c in square_crops(f)])
        named = self._name_frames(chunk)
        _, crop_probs = extract.features_and_probabilities(crops)
        probs = crop_probs.reshape(len(chunk), -1, crop_probs.shape[1]).mean(axis=1)
        for k, (frame, time, picture, after) in enumerate(chunk):
            small, small_after = (cv2.resize(f, self.flow_size, interpolation=cv2.INTER_AREA) for f in (picture, after))
            camera, zoom, motion = measure_motion(small, small_after)
            self.samples.append({
                "time": round(time, 6), "frame": frame, "labels": self.stage._top(probs[k]),
                "whole": self.stage._top(whole[k]),
                "camera": [round(camera[0], 3), round(camera[1], 3)], "zoom": round(zoom, 5),
                "motion": round(motion, 3), "feature": pack_feature(features[k]), "look": look(picture),
            })
            if k in named:
                self.samples[-1]["image_text"] = pack_feature(named[k])

    def _name_frames(self, chunk: list[tuple[int, float, np.ndarray, np.ndarray]]) -> dict[int, np.ndarray]:
        """An image-text model's view of the samples of ``chunk`` NAME_SECONDS apart (what
        their shots show: apply), by position in the chunk; none without a model."""
        namer = self.stage.namer
        if namer is None:
            return {}
        chosen = []
        for k, (_, time, _, _) in enumerate(chunk):
            if self.named_at is None or time - self.named_at >= NAME_SECONDS - 1e-6:
                chosen.append(k)
                self.named_at = time
        if not chosen:
            return {}
        return dict(zip(chosen, namer.embed_frames([chunk[k][2] for k in chosen])))


class CaptionStage(SampledStage):
    name = "captions"
    cost = StageCost(0.046, load=0.3, coarse_rate=0.5)
    revision = 0
    Reader = CaptionReader
    Result = CaptionResult
    namer: ShotNamer | None = None  # where an image-text model is chosen: names what each shot shows (name_shots)

    def _top(self, probabilities: np.ndarray) -> list:
        top = np.argsort(-probabilities)[:TOP_LABELS]
        return [[self.engine.labels[i], round(float(probabilities[i]), 4)] for i in top]

    def apply(self, analysis: Analysis, result: CaptionResult, previous: Analysis | None) -> Analysis:
        raw = result.samples
        samples = [measured_sample(s) for s in raw]
        cuts = sorted(cut_frames(analysis.boundaries))
        analysis = self._shot_tags(analysis, raw, previous)  # before the vote, which they take part in

        def shot_of(frame: int) -> int:
            return shot_number(cuts, frame)

        # what the models agree on, shot by shot (label_vote.py): the object tracks and bodies
        # kept, the shots where someone is, each shot's subject
        shots = label_vote.shots_of(analysis, samples, shot_of)
        # the only shots said to have "no people": before the vote drops the bodies nobody is sure of
        checked_empty = label_vote.nobody_seen(analysis, shots)
        analysis = label_vote.keep_agreed_tracks(analysis, shots, shot_of)
        subjects = {k: label_vote.subject(shot) for k, shot in shots.items()}
        nobody = label_vote.nobody(shots)
        seen = _SeenAt(analysis, nobody, shot_of, 0.5 / self.sample_rate)

        info = analysis.video
        described = describe(samples, seen.faces, shot_of, info.width, info.height,
                             text_share=text_coverage(analysis, 0.5 / self.sample_rate), objects_at=seen.objects,
                             doing_at=seen.doing, subject_of=subjects.get, nobody_in=checked_empty.__contains__)
        engine = self.engine_tag
        heard = heard_and_read(analysis, [s.time for s in samples], 0.5 / self.sample_rate)
        captions = [FrameCaption(time=s.time, frame=s.frame, text=f"{text} {extra}".strip(), engine=engine,
                                 labels=s.labels)
                    for s, (_, text), extra in zip(samples, described, heard)]
        captions = _keep_edited(captions, previous.captions if previous else ())

        states = [state for state, _ in described]
        boundaries = _boundary_captions(analysis, samples, states, engine)
        keyframes = keep_edited_keyframes(_keyframes(analysis, samples, states, raw),
                                          previous.keyframes if previous else ())
        return replace(analysis.with_boundaries(boundaries), captions=tuple(captions), keyframes=tuple(keyframes))

    def _shot_tags(self, analysis: Analysis, raw: Sequence[dict], previous: Analysis | None) -> Analysis:
        """``analysis`` with what the image-text model names in each shot (none without one),
        and the tags a reviewer edited."""
        tags: tuple = ()
        if self.namer is not None:
            named = [r for r in raw if "image_text" in r]
            vectors = np.array([unpack_feature(r["image_text"]) for r in named], np.float32)
            tags = self.namer.shot_tags(analysis, [r["frame"] for r in named], vectors)
        return replace(analysis, shot_tags=keep_edited_tags(tags, previous.shot_tags if previous else ()))


def name_shots(stage, namer: ShotNamer) -> None:
    """Have a captions stage (the builtin one, or a VLM's, which measures frames with one)
    also name what each shot shows with ``namer``. Its model joins the stage's cache key
    (the revision), so that another model, or none, computes the stage again."""
    builtin = getattr(stage, "builtin", stage)
    builtin.namer = namer
    for each in dict.fromkeys([stage, builtin]):
        each.revision = f"{type(each).revision}+{namer.tag}/{NAME_SECONDS:g}s"


def measured_sample(raw: dict) -> Sample:
    """A sample as the cache keeps it (CaptionReader), as the captioner reads it; ``look``
    and its measurements are missing in results cached before them."""
    looks = raw.get("look", {})
    return Sample(time=raw["time"], frame=raw["frame"], labels=tuple((n, p) for n, p in raw["labels"]),
                  camera=tuple(raw["camera"]), motion=raw["motion"], zoom=raw["zoom"],
                  whole=tuple((n, p) for n, p in raw["whole"]), light=looks.get("light"),
                  colours=tuple((c, p) for c, p in looks.get("colours", ())), saturation=looks.get("saturation"),
                  flat=looks.get("flat"))


def pack_feature(vector: np.ndarray) -> str:
    """A feature vector as base64 of its float16 bytes: 3.4 kB of JSON for 1280 values, and
    one string in memory until the stage ends, where a list of floats took ~40 kB (a 20
    minute video samples 1200 of them)."""
    return base64.b64encode(np.asarray(vector, "<f2").tobytes()).decode("ascii")


def unpack_feature(packed: str | list) -> np.ndarray:
    """``pack_feature``'s vector; also a list of floats, as results cached before held them."""
    if isinstance(packed, list):
        return np.asarray(packed, np.float32)
    return np.frombuffer(base64.b64decode(packed), "<f2").astype(np.float32)


def heard_and_read(analysis: Analysis, times: list[float], window: float) -> list[str]:
    """For each sample time, what starts being said or shown within ``window`` of it, as
    sentences ("P2 says “…”. On screen: “Chapter 3”."); empty where nothing starts."""
    segments = sorted(analysis.transcript, key=lambda s: s.start)
    spans = sorted(analysis.screen_text, key=lambda s: s.start)
    segment_starts, span_starts = [s.start for s in segments], [s.start for s in spans]

    def starting(items, starts, time):  # those starting in [time - window, time + window)
        return items[bisect.bisect_left(starts, time - window):bisect.bisect_left(starts, time + window)]

    out = []
    for time in times:
        sentences = [said(analysis, s) for s in starting(segments, segment_starts, time)]
        shown = starting(spans, span_starts, time)
        if shown:
            sentences.append(written(shown[:2]))
        out.append(" ".join(map(sentence, sentences)))
    return out


def text_coverage(analysis: Analysis, window: float):
    """A function of time: the share of the picture that lines of on-screen text read
    within ``window`` of it cover (their boxes' areas over the picture's, at most 1).
    Only line-shaped reads count: a box most of the picture high around a word or two is
    the recogniser seeing text in texture."""
    width, height = analysis.video.width, analysis.video.height
    spans = sorted((s for s in analysis.screen_text if s.box[3] <= LINE_HEIGHT * height and len(s.text.strip()) >= 4),
                   key=lambda s: s.start)
    starts = [s.start for s in spans]
    longest = max((s.end - s.start for s in spans), default=0.0)
    area = float(max(1, width * height))

    def share(time: float) -> float:
        # Only spans starting at most the longest span's length before can still be on.
        nearby = spans[bisect.bisect_left(starts, time - window - longest):bisect.bisect_right(starts, time + window)]
        covered = sum(s.box[2] * s.box[3] for s in nearby if s.start - window <= time < s.end + window)
        return min(1.0, covered / area)

    return share


def shot_number(cuts: list[int], frame: int) -> int:
    """1-based number of the shot ``frame`` is in, given the sorted frames where shots start."""
    return bisect.bisect_right(cuts, frame) + 1


def keep_edited_keyframes(keyframes, previous) -> list[Keyframe]:
    """The engine's keyframes plus the reviewer's (which win at their frame), in time order."""
    edited = [k for k in previous if k.edited]
    taken = {k.frame for k in edited}
    return sorted(edited + [k for k in keyframes if k.frame not in taken], key=lambda k: k.time)


def _keep_edited(captions: list[FrameCaption], previous) -> list[FrameCaption]:
    """A reviewer's caption replaces the engine's at its frame."""
    edited = {c.frame: c for c in previous if c.edited}
    return [edited.pop(c.frame, c) for c in captions] + sorted(edited.values(), key=lambda c: c.time)


class _SeenAt:
    """Who and what is seen near a sample's time (within ``window`` seconds): the faces,
    outside the shots where nobody is; the object tracks; the people's statuses."""

    def __init__(self, analysis: Analysis, nobody, shot_of, window: float) -> None:
        self.analysis, self.window = analysis, window
        self.faces_by_time: dict[float, list] = {}
        for face in (f for f in analysis.faces if shot_of(f.frame) not in nobody):
            self.faces_by_time.setdefault(face.time, []).append(face)
        self.face_times = np.array(sorted(self.faces_by_time))

    def faces(self, time: float) -> list[Person]:
        if not len(self.face_times):
            return []
        nearest = float(self.face_times[np.argmin(np.abs(self.face_times - time))])
        if abs(nearest - time) > self.window:
            return []
        return [Person(f.identity, f.box) for f in self.faces_by_time[nearest]]

    def objects(self, time: float) -> list[tuple[str, int]]:
        """(label, how many) of the object tracks seen at ``time`` (all sure: pipeline/stages/objects.py)."""
        counts: dict[str, int] = {}
        for track in self.analysis.object_tracks:
            if track.start - self.window <= time < track.end:
                counts[track.label] = counts.get(track.label, 0) + 1
        return list(counts.items())

    def doing(self, time: float) -> list[tuple[str, str]]:
        """(identity or "", status) of the people whose bodies are seen at ``time`` (poses.py)."""
        found = [(track.identity or "", track.status_at(max(time, track.start)))
                 for track in self.analysis.poses if track.start - self.window <= time < track.end]
        return [(who, status) for who, status in found if status]


def _boundary_captions(analysis: Analysis, samples, states, engine: str) -> list:
    """The boundaries, each without a caption given one from the states of the samples
    either side of it."""
    times = np.array([s.time for s in samples])
    boundaries = []
    for b in analysis.boundaries:
        if b.caption is not None:  # a reviewer's, or a change of a person's status (poses.py)
            boundaries.append(b)
            continue
        first_after = int(np.searchsorted(times, b.time, side="left"))  # first sample at or after it
        before = states[first_after - 1] if first_after > 0 else None
        after = states[first_after] if first_after < len(states) else None
        subject, was, now = boundary_status(before, after)
        boundaries.append(replace(b, caption=BoundaryCaption(subject, was, now, engine=engine)))
    return boundaries


def _keyframes(analysis: Analysis, samples, states, raw: Sequence[dict]) -> list:
    """The progression keyframes of the samples (what changed, and where the events are)."""
    events = np.array(sorted(b.frame for b in analysis.boundaries if b.kind == "event"), np.int64)
    candidates = [Candidate(time=s.time, frame=s.frame, shot=st.shot, ids=st.ids,
                            feature=unpack_feature(r["feature"]),
                            events=int(np.searchsorted(events, s.frame, side="right")), subject=st.thing())
                  for s, st, r in zip(samples, states, raw)]
    return progression_keyframes(candidates)
