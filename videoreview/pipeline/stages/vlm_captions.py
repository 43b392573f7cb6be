"""The captions stage with a vision-language model (``--engines captions=vlm:FOLDER``).

Two plans (pipeline/caption_plan.py picks one by where the model runs):

Dense, on CUDA and model servers: ProgressCaptioner's way over a long video: frames sampled
at 1 fps, each captioned from a sliding 2-frame window, the pair (t-1, t), so its caption is
specific to it and can say what progressed since t-1. A window never spans a cut: the first
sample of a shot pairs with the next one instead (and a one-sample shot is captioned alone).
Boundaries get Kinetic-GEB+ captions from frames sampled between the previous and the next
boundary (up to 10 before, the boundary frame, up to 10 after). Keyframes are
ProgressCaptioner's selection with the model as the judge: keep a caption that shows
progression over the last kept one (a new shot always does).

Per shot, on a CPU (and Apple's MPS): a budget of VLM seconds spent shot by shot
(caption_plan.plan_per_shot): a window of up to 6 frames spread over each shot with a
sentence a frame, a caption per boundary from 5 frames (2 before, 1 at, 2 after), more
windows in long shots while the budget lasts. The cost of a request is the model's catalog
figure at first, then what the requests took, and the plan is made again after each. The
keyframes are the builtin's: the model's judge asks one more question per caption, and the
builtin selection sees every sample where the model saw a few.

Either way the model is told which identities are visible (P1, P2, ..., most prominent
first) so captions use the ids (MICap's style); where none were known, fill-in-the-blanks
puts ids in afterwards. The builtin captions stage runs too: its measurements pick
keyframes' features, and every frame the model did not see, or gave nothing usable for,
keeps its builtin caption (what the builtin checked), labelled as such. The Analysis records
which frames the model saw (``Analysis.caption_plan``).
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from time import perf_counter

import numpy as np

from ...engines.base import ProgressFn
from ...engines.captions.protocol import CaptionContext
from ...engines.captions.vlm import FRAME_LONG_SIDE, VLMEngine
from ...engines.embeddings.naming import ShotNamer
from ...engines.faces.ids_in_captions import fill_in, visibility_from_faces
from ...errors import ModelError
from ...media import FrameSource, scaled_size
from ...records import Analysis, BoundaryCaption, CaptionPlan, Keyframe
from ...tracking import cut_frames
from .. import caption_plan as plans
from ..cancel import CancelToken
from ..fallback import Fallback
from .base import Stage, engine_tag
from .captions import CaptionResult, CaptionStage, keep_edited_keyframes, name_shots, shot_number
from .result import StageResult

WINDOWS_PER_CHUNK = 16  # windows decoded and captioned together (bounds memory on long videos)
BOUNDARY_CONTEXT = 10  # GEB+: up to 10 frames before and 10 after a boundary
BOUNDARIES_PER_CHUNK = 4
CONTEXT_LINES = 4  # per shot: at most this many lines of speech and of on-screen text in a prompt


def caption_windows(shots: list[int]) -> list[tuple[list[int], int]]:
    """For each sample: the samples of its window and its position in it."""
    windows = []
    for i, shot in enumerate(shots):
        if i > 0 and shots[i - 1] == shot:
            windows.append(([i - 1, i], 1))
        elif i + 1 < len(shots) and shots[i + 1] == shot:
            windows.append(([i, i + 1], 0))
        else:
            windows.append(([i], 0))
    return windows


def boundary_context(frame: int, previous: int, following: int, count: int = BOUNDARY_CONTEXT
                     ) -> tuple[list[int], list[int]]:
    """Frames before (from the previous boundary) and after (to the next one), evenly
    spaced, at most ``count`` on each side."""
    before = np.unique(np.linspace(previous, frame - 1, count).round().astype(int)) if frame > previous else []
    after = np.unique(np.linspace(frame + 1, following, count).round().astype(int)) if following > frame else []
    return [int(f) for f in before], [int(f) for f in after]


def _during(items: list[tuple[float, float, str]], start: float, end: float) -> tuple[str, ...]:
    """The texts of the items overlapping [start, end), each once, in order."""
    return tuple(dict.fromkeys(text for a, b, text in items if a < end and b > start))


def _near(items: list[tuple[float, float, str]], times: list[float], half: float) -> tuple[str, ...]:
    """The texts of the items on at any of ``times`` (within ``half`` a sample), each once, in
    order: what is said or shown at the frames a spread-out window sees, not in between."""
    return tuple(dict.fromkeys(text for a, b, text in items if any(a < t + half and b > t - half for t in times)))


def catalog_entry(path: Path):
    """The model catalog's entry for the model in ``path`` (a catalog model's download, or a
    folder named as its repository), or None."""
    from ...models.catalog import load_catalog, snapshot_dir

    try:
        catalog = load_catalog()
    except ModelError:
        return None
    path = Path(path)
    for entry in catalog.values():
        if entry.repo and (path.name.lower() == entry.repo.split("/")[-1].lower()
                           or path == snapshot_dir(entry).resolve()):
            return entry
    return None


def catalog_frame_seconds(entry) -> float | None:
    """Seconds a frame of a caption window takes on this machine's CPU by the catalog's
    ``cpu_shot_seconds`` (one 6-frame window on 2 cores, scaled by the cores here as the
    captions offer scales it), or None where the entry has no figure."""
    from ...models.advice import shot_seconds, usable_cores

    if entry is None or not getattr(entry, "cpu_shot_seconds", None):
        return None
    return shot_seconds(entry, usable_cores()) / plans.WINDOW_FRAMES


@dataclass(frozen=True)
class WindowCaption(StageResult):
    """The model's caption of one frame, and the identities it was told were visible."""

    frame: int
    time: float
    text: str
    ids: tuple[str, ...]


@dataclass(frozen=True)
class BoundaryText(StageResult):
    """The model's caption of one boundary: (subject, status before, status after), or None."""

    frame: int
    caption: tuple[str, ...] | None


@dataclass(frozen=True)
class JudgedKeyframe(StageResult):
    frame: int
    time: float
    reason: str


@dataclass(frozen=True)
class VLMCaptionResult(StageResult):
    """The builtin's measurements, the model's captions of frames and boundaries, the keyframes
    its judge kept (none per shot) and the plan it followed (CaptionPlan's fields, but its engine)."""

    builtin: CaptionResult
    captions: tuple[WindowCaption, ...]
    boundaries: tuple[BoundaryText, ...]
    keyframes: tuple[JudgedKeyframe, ...]
    plan: dict


class VLMCaptionStage(Stage):
    name = "captions"
    after_earlier = True  # it captions the boundaries and names the identities found before it
    Result = VLMCaptionResult

    @classmethod
    def make(cls, engine, chosen: dict[str, str], device: str) -> list[Stage]:
        """The captions capability's stage (capabilities.py names this class): the builtin
        captioner's, or a VLM's, which still has the builtin measure every frame on the same
        device (keyframe features, and a caption for any frame the model gives nothing usable
        for). Where an image-text model is chosen, it names what each shot shows
        (engines/embeddings/naming.py)."""
        from ...engines import registry

        if getattr(engine, "kind", "") == "vlm":
            stage: Stage = cls(engine, CaptionStage(registry.create("captions", "builtin", device)))
        else:
            stage = CaptionStage(engine)
        image_text = chosen.get("image-text", "none")
        if image_text != "none":
            try:
                name_shots(stage, ShotNamer(registry.create("image-text", image_text, device)))
            except ModelError as exc:  # the captions go on without names, as frame search goes off (library/frames.py)
                print(f"videoreview: notice: shot names are off: {exc}", file=sys.stderr)
        return [stage]

    def __init__(self, engine: VLMEngine, builtin: CaptionStage, sample_rate: float = 1.0, mode: str = "auto",
                 budget_per_second: float | None = None) -> None:
        """``mode``: "dense", "per-shot" or "auto" (caption_plan.plan_mode: by the engine's
        device); ``budget_per_second``: the per-shot plan's VLM seconds per second of video
        (default caption_plan.BUDGET_PER_VIDEO_SECOND)."""
        if mode not in ("auto", "dense", "per-shot"):
            raise ValueError(f"mode must be auto, dense or per-shot, not {mode!r}")
        self.engine = engine
        self.builtin = builtin
        self.sample_rate = sample_rate
        self.mode = mode
        self.budget_per_second = plans.BUDGET_PER_VIDEO_SECOND if budget_per_second is None else budget_per_second
        self._cuts: list[int] = []
        self._boundaries: list[int] = []
        self._events: set[int] = set()
        self._visible = lambda time: []
        self._said: list[tuple[float, float, str]] = []  # (start, end, "P1: text")
        self._shown: list[tuple[float, float, str]] = []
        self._plan: tuple[str, float | None, float | None] = ("dense", None, None)  # mode, budget, frame seconds
        self._model_name = getattr(engine, "name", "")  # as the plan's line names it

    def prepare(self, analysis: Analysis) -> str:
        """Take the shots, boundaries and visible identities from the earlier stages, and
        choose the plan; their digest joins the cache key (new ids or boundaries mean new
        prompts, a new budget or new rules another plan)."""
        info = analysis.video
        self._cuts = sorted(cut_frames(analysis.boundaries))
        self._boundaries = sorted({b.frame for b in analysis.boundaries})
        self._events = {b.frame for b in analysis.boundaries if b.kind == "event"}
        self._visible = visibility_from_faces(analysis.faces, info.width, info.height, window=0.5 / self.sample_rate)
        faces = sorted((f.frame, f.identity) for f in analysis.faces if f.identity)
        self._said = [(s.start, s.end, f"{s.speaker}: {s.text}" if s.speaker else s.text) for s in analysis.transcript]
        self._shown = [(s.start, s.end, s.text) for s in analysis.screen_text]
        device = getattr(self.engine, "device", None) or "cpu"
        mode = plans.plan_mode(device) if self.mode == "auto" else self.mode
        if mode == "per-shot":
            path = getattr(self.engine, "path", None)
            entry = catalog_entry(path) if path is not None else None
            self._model_name = entry.name if entry is not None else self._model_name
            # The catalog's figure is for a CPU; elsewhere the first request is the first estimate.
            estimate = catalog_frame_seconds(entry) if device == "cpu" else None
            self._plan = (mode, round(self.budget_per_second * info.duration, 3), estimate)
        else:
            self._plan = (mode, None, None)
        digest = hashlib.sha256(json.dumps([self._cuts, self._boundaries, faces, self._said, self._shown,
                                            self._plan, plans.RULES]).encode())
        return digest.hexdigest()[:12]

    def compute(self, source: FrameSource, progress: ProgressFn, cancel: CancelToken) -> VLMCaptionResult | Fallback:
        info = source.info
        size = scaled_size(info.width, info.height, FRAME_LONG_SIDE[self.engine.family])

        def part(start: float, end: float) -> ProgressFn:
            return lambda fraction, message="": progress(start + (end - start) * fraction, message)

        builtin = self.builtin.compute(source, part(0.0, 0.1), cancel)
        watch = getattr(self.engine, "watch", None)  # a model server stops sending at once on cancel
        if watch is not None:
            watch(cancel)
        try:
            if self._plan[0] == "per-shot":
                return self._per_shot(source, builtin, size, part(0.1, 1.0), cancel)
            return self._with_model(source, builtin, size, part, progress, cancel)
        except ModelError as exc:  # the model would not load, or its server failed: the builtin captions stand
            return Fallback(self.builtin, builtin, f"{exc}. Instead: Captions: builtin")

    # -- per shot --------------------------------------------------------------------------
    def _per_shot(self, source: FrameSource, builtin: CaptionResult, size, progress: ProgressFn,
                  cancel: CancelToken) -> VLMCaptionResult:
        """The per-shot plan (caption_plan.py), made again after each request with what the
        requests took."""
        _, budget, estimate = self._plan
        frames = [s["frame"] for s in builtin.samples]
        times = [s["time"] for s in builtin.samples]
        shots: dict[int, list[int]] = {}
        for i, frame in enumerate(frames):
            shots.setdefault(shot_number(self._cuts, frame), []).append(i)
        shot_samples = list(shots.values())
        # Events first: a change inside a shot, which no window shows as such; then cuts and
        # gradual transitions, whose two sides the windows already describe.
        ordered = sorted(self._boundaries, key=lambda frame: (frame not in self._events, frame))
        costs = plans.Costs(estimate or 0.0, (estimate or 0.0) * plans.BOUNDARY_FRAMES)
        plan = plans.plan_per_shot(shot_samples, ordered, budget, costs)
        if plan.jobs:
            _ = self.engine.model  # loaded before the clock starts: the load is not a request's cost
        model = self._model_name
        captions: list[WindowCaption] = []
        boundaries: list[BoundaryText] = []
        done: list[plans.Job] = []
        took = {"window": [0.0, 0], "boundary": [0.0, 0]}  # seconds, and frames (windows) or requests
        spent = 0.0
        if not plan.jobs:
            progress(1.0, plans.PLAN_MESSAGE + plans.plan_line(model, len(shot_samples), plan, budget))
        while len(plan.jobs) > len(done):
            cancel.check()
            job = plan.jobs[len(done)]
            started = perf_counter()
            if job.kind == "window":
                captions += self._shot_window(source, size, [frames[i] for i in job.samples],
                                              [times[i] for i in job.samples])
            else:
                boundaries.append(self._shot_boundary(source, size, job.boundary, source.info.frame_count))
            seconds = perf_counter() - started
            spent += seconds
            done.append(job)
            took[job.kind][0] += seconds
            took[job.kind][1] += len(job.samples) if job.kind == "window" else 1
            costs = _measured(took, costs)
            plan = plans.plan_per_shot(shot_samples, ordered, budget, costs, done, spent)
            fraction = len(done) / len(plan.jobs)
            if len(done) == 1:  # the plan once the first window is measured
                progress(fraction, plans.PLAN_MESSAGE + plans.plan_line(model, len(shot_samples), plan, budget))
            progress(fraction, _done_line(job, done, plan, seconds))
        record = {"mode": "per-shot", "budget": budget,
                  "frames": sorted({frames[i] for job in done for i in job.samples}),
                  "windows": [[frames[i] for i in job.samples] for job in done if job.kind == "window"],
                  "boundaries": [job.boundary for job in done if job.kind == "boundary"],
                  "estimated": round(plan.estimated, 3), "spent": round(spent, 3)}
        return VLMCaptionResult(builtin, tuple(captions), tuple(boundaries), (), record)

    def _shot_window(self, source: FrameSource, size, frames: list[int], times: list[float]) -> list[WindowCaption]:
        """One window of a shot: its frames' captions, in one request."""
        decoded = source.frames_at_indices(np.array(frames), size=size).frames
        ids = self._window_ids(times)
        half = 0.5 / self.sample_rate
        context = CaptionContext(identities=ids, speech=_near(self._said, times, half)[:CONTEXT_LINES],
                                 screen_text=_near(self._shown, times, half)[:CONTEXT_LINES])
        texts = self.engine.caption_windows([(list(decoded), context)], per_shot=True)[0]
        return [WindowCaption(frame, t, text, ids) for frame, t, text in zip(frames, times, texts)]

    def _shot_boundary(self, source: FrameSource, size, frame: int, frame_count: int) -> BoundaryText:
        """One boundary's caption from BOUNDARY_SIDE frames each side of it, spread over the
        stretches between it and the boundaries around it (never across them)."""
        k = self._boundaries.index(frame)
        previous = self._boundaries[k - 1] if k > 0 else 0
        following = self._boundaries[k + 1] - 1 if k + 1 < len(self._boundaries) else frame_count - 1
        before, after = boundary_context(frame, previous, following, plans.BOUNDARY_SIDE)
        batch = source.frames_at_indices(np.array(before + [frame] + after), size=size)
        shown = batch.frames
        half = 0.5 / self.sample_rate
        times = [float(t) for t in batch.times]
        context = CaptionContext(speech=_near(self._said, times, half)[:CONTEXT_LINES],
                                 screen_text=_near(self._shown, times, half)[:CONTEXT_LINES])
        found = self.engine.caption_boundaries([(shown[:len(before)], shown[len(before)], shown[len(before) + 1:])],
                                               [context], per_shot=True)[0]
        return BoundaryText(frame, tuple(found) if found else None)

    # -- dense -----------------------------------------------------------------------------
    def _with_model(self, source: FrameSource, builtin: CaptionResult, size, part, progress: ProgressFn,
                    cancel: CancelToken) -> VLMCaptionResult:
        started = perf_counter()
        frames = [s["frame"] for s in builtin.samples]
        times = [s["time"] for s in builtin.samples]
        shots = [shot_number(self._cuts, f) for f in frames]
        windows = caption_windows(shots)
        captions = []
        for start in range(0, len(windows), WINDOWS_PER_CHUNK):
            cancel.check()
            chunk = windows[start:start + WINDOWS_PER_CHUNK]
            needed = sorted({frames[i] for members, _ in chunk for i in members})
            decoded = dict(zip(needed, source.frames_at_indices(np.array(needed), size=size).frames))
            requests, contexts = [], []
            for members, position in chunk:
                target = members[position]
                ids = self._window_ids([times[target]] + [times[i] for i in members if i != target])
                contexts.append(ids)
                start, end = times[members[0]], times[members[-1]] + 1.0 / self.sample_rate
                context = CaptionContext(identities=ids, speech=_during(self._said, start, end),
                                         screen_text=_during(self._shown, start, end)[:4])
                requests.append(([decoded[frames[i]] for i in members], context))
            for (members, position), ids, texts in zip(chunk, contexts, self.engine.caption_windows(requests)):
                target = members[position]
                captions.append(WindowCaption(frames[target], times[target], texts[position], ids))
            progress(0.1 + 0.7 * len(captions) / max(1, len(windows)), f"frame {len(captions)}/{len(windows)}")

        boundaries = self._caption_boundaries(source, size, source.info.frame_count, part(0.8, 0.92), cancel)
        keyframes = self._keyframes(captions, shots, cancel)
        progress(1.0, "done")
        record = {"mode": "dense", "frames": frames,
                  "windows": [[frames[i] for i in members] for members, _ in windows],
                  "boundaries": [b.frame for b in boundaries], "spent": round(perf_counter() - started, 3)}
        return VLMCaptionResult(builtin, tuple(captions), tuple(boundaries), tuple(keyframes), record)

    def _window_ids(self, times: list[float]) -> tuple[str, ...]:
        ids: list[str] = []
        for time in times:  # the caption's own frame first, then the rest of the window
            ids += [pid for pid in self._visible(time) if pid not in ids]
        return tuple(ids)

    def _caption_boundaries(self, source: FrameSource, size, frame_count: int, progress: ProgressFn,
                            cancel: CancelToken) -> list[BoundaryText]:
        marks = [0] + self._boundaries + [frame_count - 1]
        out: list[BoundaryText] = []
        for start in range(0, len(self._boundaries), BOUNDARIES_PER_CHUNK):
            cancel.check()
            items, contexts = [], []
            for k in range(start + 1, min(start + BOUNDARIES_PER_CHUNK, len(self._boundaries)) + 1):
                before, after = boundary_context(marks[k], marks[k - 1], marks[k + 1])
                batch = source.frames_at_indices(np.array(before + [marks[k]] + after), size=size)
                frames = batch.frames
                items.append((frames[:len(before)], frames[len(before)], frames[len(before) + 1:]))
                t0, t1 = float(batch.times[0]), float(batch.times[-1]) + 1.0 / self.sample_rate
                contexts.append(CaptionContext(speech=_during(self._said, t0, t1),
                                               screen_text=_during(self._shown, t0, t1)[:4]))
            for k, found in enumerate(self.engine.caption_boundaries(items, contexts), start=start + 1):
                out.append(BoundaryText(marks[k], tuple(found) if found else None))
            progress(len(out) / len(self._boundaries), f"boundary {len(out)}/{len(self._boundaries)}")
        return out

    def _keyframes(self, captions: list[WindowCaption], shots: list[int], cancel: CancelToken) -> list[JudgedKeyframe]:
        """ProgressCaptioner's selection with the model judging each caption against the
        last kept one (its progression question: A = progression)."""
        usable = [(c, shot) for c, shot in zip(captions, shots) if c.text]
        if not usable:
            return []
        kept = [JudgedKeyframe(usable[0][0].frame, usable[0][0].time, "first frame")]
        last, last_shot = usable[0]
        for caption, shot in usable[1:]:
            cancel.check()
            if shot != last_shot:
                reason = "new shot"
            elif caption.text == last.text:
                continue
            elif self.engine.progression(last.text, caption.text) == "A":
                reason = "progression (model judge)"
            else:
                continue
            kept.append(JudgedKeyframe(caption.frame, caption.time, reason))
            last, last_shot = caption, shot
        return kept

    def apply(self, analysis: Analysis, result: VLMCaptionResult, previous: Analysis | None) -> Analysis:
        base = self.builtin.apply(analysis, result.builtin, previous)
        engine = engine_tag(self.engine)
        by_frame = {c.frame: c for c in result.captions if c.text}
        # Captions written without ids: fill them in from the identities known now.
        info = analysis.video
        visible = visibility_from_faces(analysis.faces, info.width, info.height, window=0.5 / self.sample_rate)
        blank = [c for c in result.captions if c.text and not c.ids]
        filled = {c.frame: f.text for c, f in zip(blank, fill_in([(c.time, c.text) for c in blank], visible))}
        captions = []
        for caption in base.captions:
            found = by_frame.get(caption.frame)
            if caption.edited or found is None:
                captions.append(caption)  # a reviewer's text, or the builtin one where the model gave nothing
            else:
                captions.append(replace(caption, text=filled.get(caption.frame, found.text), engine=engine))

        boundary_captions = {b.frame: b.caption for b in result.boundaries if b.caption}
        # A boundary that came captioned (a reviewer's, a change of a person's status) keeps its caption.
        captioned = {b.frame for b in analysis.boundaries if b.caption is not None}
        boundaries = []
        for b in base.boundaries:
            found = boundary_captions.get(b.frame)
            if found and b.frame not in captioned:
                b = replace(b, caption=BoundaryCaption(*found, engine=engine))
            boundaries.append(b)

        keyframes = base.keyframes
        if result.keyframes:
            judged = [Keyframe(time=k.time, frame=k.frame, score=1.0, reason=k.reason) for k in result.keyframes]
            keyframes = keep_edited_keyframes(judged, base.keyframes)
        plan = CaptionPlan.from_dict({**result.plan, "engine": engine})  # which frames the model saw
        return replace(base.with_boundaries(boundaries), captions=tuple(captions), keyframes=tuple(keyframes),
                       caption_plan=plan)


def _measured(took: dict[str, list], costs: plans.Costs) -> plans.Costs:
    """The seconds a window's frame and a boundary took so far (``took``: kind -> [seconds,
    frames or requests]), where measured; ``costs``' guesses elsewhere."""
    frame = took["window"][0] / took["window"][1] if took["window"][1] else costs.frame
    boundary = took["boundary"][0] / took["boundary"][1] if took["boundary"][1] else frame * plans.BOUNDARY_FRAMES
    return plans.Costs(frame, boundary)


def _done_line(job: plans.Job, done: list[plans.Job], plan, seconds: float) -> str:
    """The progress line for ``job``, just done in ``seconds``."""
    number = sum(j.kind == job.kind for j in done)
    if job.kind == "window":
        return f"{plans.WINDOW_MESSAGE}{number}/{len(plan.windows)}: {len(job.samples)} frames in {seconds:.1f} s"
    return f"boundary {number}/{len(plan.boundaries)} in {seconds:.1f} s"
