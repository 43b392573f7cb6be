"""The window's first view of a video: a coarse timeline of the whole of it, before the full pass.

The full analysis applies every stage's records only after its one decoding pass has read
the whole video: on a 3-minute clip the window's timeline stayed empty for a minute or
more, then filled at once. Where someone watches (the window's analysis child passes
``coarse_first`` to ``runner.analyze``), ``look_first`` first looks at a few frames spread
over the whole video and sends, through ``on_stage``, an Analysis whose every lane runs to
the end at a coarse level; the full pass then runs exactly as without it, and each stage's
records replace the coarse ones as that stage applies. The command line, the library's
indexer and the cluster never look first: it is extra work, and their speed is the
analysis's whole time.

What the coarse Analysis holds:

* **the frames looked at** (media/keyframes.py): the video's keyframes, at most one each
  4.5 s (40 in 3 minutes), and frames reached by seeking where keyframes are further apart;
* **each frame stage's own records** (faces, objects, captions; not on-screen text, whose
  reading costs most: NOT_LOOKED): its reader, unchanged, reads the looks through a
  LookSource (its ``sample_indices`` gives the looks whatever the rate) in one decoding
  pass, and its own ``apply`` makes the records, so they are of the kinds the full pass
  makes. The result says the looks' mean rate as its ``sample_rate``, where tracks' ends
  and gaps come from. The objects reader's AdaptiveSampling sees every look (each is more
  than its second apart); the faces reader looks where the objects reader of the same
  look saw a person (people_seen.py), as in the full pass. An image-text model's naming
  is left out (0.3 s a frame);
* **shots**: not the boundary engine's (its cut score needs every frame); a cut wherever
  two neighbouring pictures (the looks, and the keyframes between them, which x264 puts at
  most cuts) differ in both colour and layout (``coarse_cuts``), at the later one's time;
* **people**: bodies where the objects stage's detector saw a person (``bodies``). The
  poses stage is not run: its tracks need 5 samples a second (a body in MIN_SAMPLES
  samples, its status from a second of motion), which looks seconds apart never give;
* **speech**: where voice is heard (faster-whisper's bundled Silero VAD, ``heard``), as
  transcript segments with no text and the engine ``VAD_ENGINE``: the speech lane shows
  blocks where words will be. They are added after the captions' apply, so no caption
  quotes an empty line;
* stages whose results the cache holds apply those, as the full run will;
* ``plan``: the analysis's plan with ``level = "coarse"``, the looks' rate and what each
  stage did in its rows' notes. The window's status says "coarse" while it shows one.

Until every stage has applied, each partial Analysis the runner sends shows the stages'
records that have applied and the coarse records of the rest (``Overlay``), so the
timeline never empties again. The coarse Analysis only goes to ``on_stage``: nothing of it
is cached, saved or indexed, and the final Analysis is the one the runner makes without it.

Skipped where it would not pay: an estimate under ``WORTH`` seconds (the full analysis is
quick anyway), or no frame stage to run (the cache holds them). A failure in the look is
said on stderr and the full pass goes on as if it had not been tried; a cancel stops both.

It runs before the pass, not beside it: both cores are busy during the pass, so a look
beside it would be no sooner. What it costs, measured on a busy 2-core machine (load
average 6 to 8): on a generated 3-minute 720p clip (36 looks, half of them seeks into its
10-second GOPs) the look's pass took 10.8 s, of it the objects detector 2.4 s and the
captions' measurements 4.6 s, the rest decoding; the VAD 1.1 s. benchmarks/bench_coarse.py
times the whole of it from the window's side (docs/window.md).
"""

from __future__ import annotations

import copy
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from ..capabilities import CAPABILITIES
from ..errors import Cancelled
from ..media import open_video, scaled_size
from ..media.keyframes import LookSource, keyframe_indices, look_indices
from ..media.shared_pass import read_together
from ..progress import StageProgress
from ..records import Analysis, AnalysisPlan, Boundary, PoseTrack, SpeechInfo, TranscriptSegment
from ..tracking import cut_frames
from .cancel import CancelToken

WORTH = 15.0  # seconds the plan estimates, from which a first look pays (under it the analysis is soon done)
LEVEL = "coarse"
ENGINE = "coarse@1"  # the shots' and bodies' engine tag
VAD_ENGINE = "silero-vad@6"  # the speech segments' (faster-whisper's assets/silero_vad_v6.onnx)
# Stages not looked with: the boundaries' cut score needs every frame (coarse_cuts stand
# in), the poses stage's tracks five samples a second (bodies stand in), speech reads sound
# (heard stands in); on-screen text costs most and is no lane the coarse timeline promises
# (its reading was 6.5 s of a 15.4 s look at the 3-minute corpus animation: 39 looks, each
# with new text to read; the lane fills with the full pass).
NOT_LOOKED = ("boundaries", "poses", "speech", "screen-text")
# A picture 64 px wide is enough to tell shots apart by colour and layout (the cascade
# measures at 48x27). The keyframes between looks are measured too, so a cut lands on the
# keyframe x264 put there, unless there are more than this many a look (1-s GOPs).
CUT_SIZE = 64
KEYS_PER_LOOK = 4
# Two pictures are of different shots where their hue-saturation histograms (8x8, each
# summing to 1) are CUT_COLOURS apart (L1) or more and their 6x4 grey thumbnails CUT_LAYOUT
# grey levels or more (the cascade's "same layout" bound). Chosen on the real-footage
# corpus's tuning part (the hand-written cuts; 403 pairs of neighbouring pictures of this
# module's looks, 177 with a cut or dissolve between them): a cut said for 88 % of those,
# 78 % of those said right (held-out part: 51 pairs, 8 with a cut: 88 % and 54 %). Higher
# bounds lose cuts faster than they drop wrong ones: most wrong ones are pictures seconds
# apart that change as much as shots do (an animation drawn on: 16 of its 44 pairs).
CUT_COLOURS = 0.4
CUT_LAYOUT = 8.0
BODY_SCORE = 0.5  # a person detection this sure makes a coarse body (objects.py keeps people's tracks from 0.4)
# Voice: Silero's default threshold; pauses of a second end a segment, padded a little.
VAD_SETTINGS = dict(threshold=0.5, min_silence_duration_ms=1000, speech_pad_ms=200)

# The fields each stage's apply sets (capabilities.py): a partial shows the coarse ones until that stage applies.
FIELDS: dict[str, tuple[str, ...]] = {c.key: c.fields for c in CAPABILITIES.values() if c.order is not None}

OnStage = Callable[[Analysis], None]


def look_first(path, analysis: Analysis, stages: Sequence, known: dict, plan: AnalysisPlan, on_stage: OnStage,
               progress: StageProgress, cancel: CancelToken, previous: Analysis | None = None) -> OnStage:
    """Send the coarse Analysis of ``path`` through ``on_stage`` (``analysis``: the probe's;
    ``known``: stage name -> (cached result, device); ``plan``: the analysis's) and return
    what the runner should call instead of ``on_stage`` from then on (an ``Overlay``); or
    ``on_stage`` itself where no look is taken (see the module docstring)."""
    lookers = _lookers(stages, known)
    if plan.estimated < WORTH or not lookers:
        return on_stage
    try:
        coarse = coarse_analysis(path, analysis, stages, lookers, known, plan, progress, cancel, previous)
    except Cancelled:
        raise
    except Exception as exc:  # noqa: BLE001 - the full pass goes on, and meets any real problem itself
        print(f"videoreview: notice: no coarse timeline first ({type(exc).__name__}: {exc})", file=sys.stderr)
        return on_stage
    on_stage(coarse)
    return Overlay(coarse, on_stage, [stage.name for stage in stages])


def is_coarse(analysis: Analysis | None) -> bool:
    """Whether ``analysis`` is (or shows some of) a coarse first look."""
    return analysis is not None and analysis.plan is not None and analysis.plan.level == LEVEL


def _lookers(stages: Sequence, known: dict) -> list:
    """The stages that look at the frames in the coarse look: each frame stage not cached
    (a VLM's captions stage by its builtin one, whose measurements make the builtin
    captions), without an image-text model's naming."""
    lookers = []
    for stage in stages:
        if stage.name in known or stage.name in NOT_LOOKED:
            continue
        looker = stage if not stage.after_earlier else getattr(stage, "builtin", None)
        if looker is None or looker.cost.beside:  # a VLM's stage without a builtin one; speech reads no frames
            continue
        if getattr(looker, "namer", None) is not None:  # a copy: the full pass's stage keeps its namer
            looker = copy.copy(looker)
            looker.namer = None
        lookers.append(looker)
    return lookers


def coarse_analysis(path, analysis: Analysis, stages: Sequence, lookers: Sequence, known: dict, plan: AnalysisPlan,
                    progress: StageProgress, cancel: CancelToken, previous: Analysis | None = None) -> Analysis:
    """The coarse Analysis (see the module docstring): ``analysis`` with each stage's coarse
    records, in the stages' order."""
    began = time.perf_counter()
    progress(LEVEL, 0.0, "a first look at the whole video")
    with open_video(path, backend="pyav") as source:
        view = LookSource(source, look_indices(source))
        video_start = source.start_time  # where the sound's clock starts
        cut_reader = CutReader(view, keyframe_indices(source))
        readers = [cut_reader] + [stage.reader(view) for stage in lookers]
        done = [0.0] * len(readers)

        def report(k: int) -> Callable[[float, str], None]:
            def part(fraction: float, message: str = "") -> None:
                done[k] = fraction
                progress(LEVEL, 0.9 * sum(done) / len(done), f"looked at {len(view.looks)} frames")
            return part

        results = read_together(view, readers, [report(k) for k in range(len(readers))], cancel)
    cancel.check()
    looked = {stage.name: (stage, replace(result, sample_rate=view.mean_rate))
              for stage, result in zip(lookers, results[1:])}
    wants_voice = any(stage.name == "speech" and stage.name not in known for stage in stages)
    voice = heard(path, video_start, analysis.video.duration, cancel) if wants_voice else None
    coarse = analysis
    objects = None  # the objects stage's samples, for the bodies
    for stage in stages:
        name = stage.name
        if stage.after_earlier and name not in looked:
            continue  # needs the full records of the stages before it (speakers)
        if name in known:
            result = known[name][0]
            coarse = stage.apply(coarse, result, previous)
        elif name in looked:
            looker, result = looked[name]
            coarse = looker.apply(coarse, result, previous)
        elif name == "boundaries":
            coarse = coarse.with_boundaries(coarse_cuts(cut_reader.result()))
            continue
        elif name == "poses" and objects is not None:
            coarse = replace(coarse, poses=bodies(objects, cut_frames(coarse.boundaries),
                                                          coarse.video.duration))
            continue
        else:
            continue
        if name == "objects":
            objects = result.samples
    if voice is not None:  # after the captions: they would quote its empty lines
        coarse = replace(coarse, speech=voice[0], transcript=voice[1])
    cancel.check()
    progress(LEVEL, 1.0, f"{len(view.looks)} frames looked at in {time.perf_counter() - began:.1f} s")
    return replace(coarse, plan=coarse_plan(plan, view.mean_rate, len(view.looks), looked, voice is not None))


def coarse_plan(plan: AnalysisPlan, rate: float, looks: int, looked: dict, heard_voice: bool) -> AnalysisPlan:
    """``plan`` marked coarse, its rows saying what the look did."""
    notes = {name: f"coarse: {looks} frames looked at" for name in looked}
    notes.update(boundaries=f"coarse: cuts between {looks} frames looked at and the keyframes between them",
                 poses="coarse: bodies where objects saw a person",
                 **{"screen-text": "not in the coarse look (its reading costs most): the full pass reads it"})
    if heard_voice:
        notes["speech"] = "coarse: where voice is heard (Silero VAD)"
    rows = tuple(replace(p, note=notes[p.stage], rate=round(rate, 3) if p.stage in looked else p.rate)
                 if p.stage in notes and p.note != "from the cache" else p for p in plan.stages)
    return replace(plan, stages=rows, level=LEVEL)


class Overlay:
    """What the runner calls for each partial Analysis once the coarse one is shown: the
    stages' records that have applied (those in ``analysis.engines``), and the coarse
    records of the rest, marked coarse while any stand; the runner's own Analysis from the
    moment every stage has applied. Nothing here changes what the runner computes."""

    def __init__(self, coarse: Analysis, on_stage: OnStage, names: Sequence[str]) -> None:
        self.coarse, self.on_stage = coarse, on_stage
        self.standing = [name for name in names if name in FIELDS]

    def __call__(self, analysis: Analysis) -> None:
        self.standing = [name for name in self.standing if name not in analysis.engines]
        if not self.standing:
            self.on_stage(analysis)
            return
        fields = {field: getattr(self.coarse, field) for name in self.standing for field in FIELDS[name]}
        self.on_stage(replace(analysis, **fields, plan=self.coarse.plan))


class CutReader:
    """The looks and the keyframes between them (media/shared_pass.py FrameReader), each
    measured for ``coarse_cuts``: its hue-saturation histogram and grey layout."""

    def __init__(self, view: LookSource, keyframes: np.ndarray) -> None:
        info = view.info
        extra = keyframes if len(keyframes) <= KEYS_PER_LOOK * len(view.looks) else ()
        self.indices = np.union1d(view.looks, extra).astype(np.int64)
        self.size = scaled_size(info.width, info.height, min(CUT_SIZE, max(info.width, info.height)))
        self.batch = 16
        self.measures: list[tuple[int, float, np.ndarray, np.ndarray]] = []  # frame, time, colours, layout

    def status(self) -> str:
        return ""  # the pass says "frame N/TOTAL"

    def take(self, batch) -> None:
        for index, moment, frame in zip(batch.indices, batch.times, batch.frames):
            self.measures.append((int(index), float(moment), *picture_measures(frame)))

    def result(self) -> list[tuple[int, float, np.ndarray, np.ndarray]]:
        return self.measures


def picture_measures(frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(hue-saturation histogram, 8x8 summing to 1; mean grey picture at 6x4) of an RGB frame."""
    import cv2

    hsv = cv2.cvtColor(np.ascontiguousarray(frame), cv2.COLOR_RGB2HSV)
    hue = hsv[..., 0].ravel().astype(np.int32) * 8 // 180  # OpenCV's hue is 0..179
    sat = hsv[..., 1].ravel().astype(np.int32) * 8 // 256
    colours = np.bincount(hue * 8 + sat, minlength=64) / hue.size
    grey = cv2.cvtColor(np.ascontiguousarray(frame), cv2.COLOR_RGB2GRAY)
    return colours, cv2.resize(grey, (6, 4), interpolation=cv2.INTER_AREA).astype(np.float64)


def coarse_cuts(measures: Sequence[tuple[int, float, np.ndarray, np.ndarray]]) -> list[Boundary]:
    """A cut at each measured picture that differs from the one before it in colour
    (CUT_COLOURS) and layout (CUT_LAYOUT); its confidence grows with the colour change."""
    cuts = []
    for (_, _, colours_a, layout_a), (frame, moment, colours_b, layout_b) in zip(measures, measures[1:]):
        colours = float(np.abs(colours_a - colours_b).sum())
        layout = float(np.abs(layout_a - layout_b).mean())
        if colours >= CUT_COLOURS and layout >= CUT_LAYOUT:
            cuts.append(Boundary(time=round(moment, 6), frame=frame, kind="cut",
                                 confidence=round(min(1.0, colours / 2 + 0.25), 3), engine=ENGINE))
    return cuts


def bodies(samples: Sequence[dict], cuts: Sequence[int], duration: float) -> tuple[PoseTrack, ...]:
    """Coarse bodies from the objects stage's samples: one from each run of samples (in one
    shot) where a person is detected BODY_SCORE sure or more, to the sample after the run
    (or the video's end); no status, no identity."""
    cuts = sorted(cuts)
    runs: list[list[tuple[dict, list]]] = []
    last_shot = None
    for k, sample in enumerate(samples):
        people = [o for o in sample["objects"] if o[0] == "person" and o[1] >= BODY_SCORE]
        shot = int(np.searchsorted(cuts, sample["frame"], side="right"))
        if not people:
            last_shot = None
            continue
        if last_shot != shot:
            runs.append([])
        runs[-1].append((k, people))
        last_shot = shot
    tracks = []
    for run in runs:
        after = run[-1][0] + 1
        end = samples[after]["time"] if after < len(samples) else duration
        end = min([end, *(_time_of(samples, c) for c in cuts if c > samples[run[-1][0]]["frame"])])
        best = [max(people, key=lambda o: o[1]) for _, people in run]
        tracks.append(PoseTrack(id=len(tracks), start=samples[run[0][0]]["time"], end=round(end, 6),
                                  score=round(float(np.mean([o[1] for o in best])), 3), samples=len(run),
                                  box=tuple(round(float(v), 1) for v in np.median([o[2:6] for o in best], axis=0)),
                                  engine=ENGINE))
    return tuple(tracks)


def _time_of(samples: Sequence[dict], frame: int) -> float:
    """The time of ``frame``, from the samples' frames and times."""
    return float(np.interp(frame, [s["frame"] for s in samples], [s["time"] for s in samples]))


def heard(path, video_start: float, duration: float, cancel: CancelToken
          ) -> tuple[SpeechInfo, tuple[TranscriptSegment, ...]]:
    """Where voice is heard in ``path``'s sound (Silero VAD), as what the speech stage would
    say of the audio (SpeechInfo) and segments with no text (engine VAD_ENGINE), read in
    the speech stage's pieces and on the picture's clock."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    from ..media.audio import RATE, sound_pieces
    from .stages.speech import OVERRUN, PIECE, SILENT_PEAK

    note = "coarse: where voice is heard; the words follow"
    pieces = sound_pieces(path, video_start, RATE, PIECE, cancel)
    if pieces is None:
        return SpeechInfo(audio="none", engine=VAD_ENGINE), ()
    segments: list[TranscriptSegment] = []
    start = peak = 0.0
    for piece in pieces:
        cancel.check()
        samples = piece.samples[:max(0, int((duration + OVERRUN - start) * RATE))]
        loudest = float(np.abs(samples).max()) if len(samples) else 0.0
        peak = max(peak, loudest)
        if loudest >= SILENT_PEAK:
            for found in get_speech_timestamps(samples, VadOptions(**VAD_SETTINGS), sampling_rate=RATE):
                segments.append(TranscriptSegment(start=round(start + found["start"] / RATE, 3),
                                                  end=round(start + found["end"] / RATE, 3), text="",
                                                  engine=VAD_ENGINE))
        start += piece.duration
    audio = "silent" if peak < SILENT_PEAK else "speech" if segments else "no speech"
    return SpeechInfo(audio=audio, duration=round(min(start, duration + OVERRUN), 3), note=note,
                      engine=VAD_ENGINE), tuple(segments)
