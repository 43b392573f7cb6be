"""The builtin captioner: short sentences from measurements, no language model.

It says what holds for the shot at each sampled frame, and what changed since the
previous one, e.g.

    "P2 in close-up on the right, with a wine glass. P1 leaves."
    "New shot: a cat. The camera zooms in."

Material: the EfficientNet-Lite0 ImageNet classifier's labels, decided over a window of
the shot at the level of the WordNet hierarchy it is sure of (subjects.py: "a cat", not
"Egyptian cat" one second and "lynx" the next), the identities whose faces are visible
and where (left / centre / right; close-up, medium or wide by face size), how much of
the picture on-screen text covers, the camera's motion (pan, tilt, zoom, shake) and
motion in the picture from optical flow between the sampled frame and the next one.
Within a shot, identical frames give identical captions and a caption changes only when a
measurement does: no invented progression (what ProgressCaptioner calls temporal
hallucination). The engine is named in every caption record ("builtin@4"), so nobody
mistakes these for a VLM's.

Every claim is one the measurements are sure of; where they are not, the caption says
nothing of the matter rather than guess (the labels' precision-first rule, label_vote.py):

- People. A caption names the people the person detectors are sure of. It says "no people
  seen" only of a shot the detectors checked (``nobody_in``; the captions stage asks
  label_vote.nobody_seen): the faces, poses and objects stages all ran, the shot lasts long
  enough for each to have looked at it at the rate it needs to be sure of a person there
  throughout (2 s), none of them saw anyone in the video, even weakly; and nothing surely
  moves in the shot (no sample's flow beyond the camera's SURE times MOTION_PX): what
  moves may be someone the detectors cannot see, a hand in front of the lens, a drawn man
  running. Anywhere else it says nothing about people. Said wherever no detector was sure of
  anyone, "no people seen" was in 611 of the tuning part's 1355 captions, 383 of them in
  clips with people (benchmarks/real_labels.py counts these absence claims); with the shot
  checked, 204 and 64; with the whole video and the motion too, 27 and none.
- The camera. Its motion (camera_motion) is said only where it is sure (sure_cameras): the
  same at a neighbouring sample of the shot, SURE times beyond its threshold, a zoom not
  swamped by motion in the picture, a still camera still throughout the shot. And it is said
  where it becomes known, at a shot's first caption or where it changes, not again in every
  caption while it holds: a sentence repeated in every caption says nothing. On the corpus's
  tuning part, a camera claim in every caption was false in 386 of 1355 captions (a slow
  pan is under the threshold from one frame to the next, a water drop "zooms"); said only
  where sure, 7 of its 31 claims are, all but one a still camera said of a shot in a clip
  the truth says is filmed moving or by hand (the truth is per clip).
- Motion in the picture. Flow the camera does not explain is mostly parallax and noise
  while the camera moves, so "something moves in the picture" ended 631 of the tuning
  part's 1355 captions, whatever happened in them. Movement is said only where it starts
  or stops under a camera surely still throughout the shot (``moving`` and ``still`` in
  State: the flow SURE times over MOTION_PX at one sample and under it by SURE at the one
  before, or the reverse): "Something starts moving.", "The movement stops.".

A caption always says what the picture is or looks like (looks.py), so it is never empty.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from ..loading import loads_once
from .looks import look_phrase, picture_kind
from .phrases import _PLURALS, count, doing_phrase, objects_phrase, sentence, unnamed_people, with_article
from .subjects import is_clothing, same_kind, subject_word

PAN_PX = 0.25  # median flow, pixels per frame at 160 px width, above which the camera moves
ZOOM_RATE = 0.0015  # relative change of scale per frame above which the camera zooms (0.15 %)
# Flow beyond the camera's (98th percentile, so an object of a few % of the frame counts),
# pixels per frame at 160 px width, above which something moves.
MOTION_PX = 0.5
# A camera or motion measurement is sure at this many times its threshold, or under its
# threshold divided by it (a still camera, no motion): sure_cameras, sure_motion. Chosen on
# the real-footage corpus's tuning part (benchmarks/real_labels.py's camera claims, against
# the truth's ``camera``): 1.5 made 39 claims, 10 false; 2 made 31, 7 false; 3 made 20, 5 false.
SURE = 2.0
WINDOW_SECONDS = 2.0  # on-screen text is decided over the samples this close, in the same shot
TEXT_FILLS = 0.12  # share of the picture covered by on-screen text at which text is the subject


class BuiltinCaptionEngine:
    """Holds the classifier the captions stage measures with; the words are composed below.
    The classifier (the boundary stage's: features.shared_extractor) loads on first use:
    never when the captions come from the cache."""

    name = "builtin"
    version = "4"

    def __init__(self, device: str = "cpu") -> None:
        self.asked = device
        self._extract = self._place = None

    @property
    def extract(self):
        return self._extractor()

    def load(self) -> None:
        """Load the classifier now, not at the first frame (pipeline/warm.py)."""
        self._extractor()

    @loads_once  # the background load and the first frame may ask at once
    def _extractor(self):
        if self._extract is None:
            from ..boundaries.features import shared_extractor
            from ..placement import torch_placement

            self._place = torch_placement(self.asked)
            self._extract = shared_extractor(self._place.device)
        return self._extract

    @property
    def device(self) -> str:
        return self._extract.device if self._extract is not None else self.asked

    @property
    def device_note(self) -> str | None:
        return (self._place.note or self._extract.device_note) if self._extract is not None else None

    def release(self) -> None:
        self._extract = None

    @functools.cached_property
    def labels(self) -> list[str]:
        from ..boundaries.features import imagenet_labels

        return imagenet_labels()


@dataclass(frozen=True)
class Sample:
    """What was measured at one sampled frame (the cached part of the captions stage)."""

    time: float
    frame: int
    labels: tuple[tuple[str, float], ...]  # top classifier labels with probabilities (square crops)
    camera: tuple[float, float]  # median optical flow (dx, dy), px per frame at 160 px width
    motion: float  # flow beyond the camera's (98th percentile)
    zoom: float = 0.0  # relative change of scale per frame (> 0: the camera zooms in)
    whole: tuple[tuple[str, float], ...] = ()  # top labels of the whole picture at once
    light: float | None = None  # mean luma, 0..1 (looks.py)
    colours: tuple[tuple[str, float], ...] = ()  # main basic colours with their shares
    saturation: float | None = None  # mean saturation, 0..1 (looks.py)
    flat: float | None = None  # share of flat pixels (looks.flat_share)


def measure_motion(first: np.ndarray, second: np.ndarray) -> tuple[tuple[float, float], float, float]:
    """Camera (median flow), zoom (the least-squares scale of the flow about the centre)
    and subject motion (98th percentile of the flow the camera does not explain) between
    two adjacent frames."""
    a = cv2.cvtColor(first, cv2.COLOR_RGB2GRAY)
    b = cv2.cvtColor(second, cv2.COLOR_RGB2GRAY)
    flow = cv2.calcOpticalFlowFarneback(a, b, None, 0.5, 3, 15, 3, 5, 1.2, 0)
    scale = 160.0 / a.shape[1]
    median = np.median(flow.reshape(-1, 2), axis=0)
    h, w = a.shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    radial = np.stack([xs - (w - 1) / 2, ys - (h - 1) / 2], axis=2)
    zoom = float(((flow - median) * radial).sum() / (radial ** 2).sum())
    residual = np.percentile(np.linalg.norm(flow - median - zoom * radial, axis=2), 98)
    return (float(median[0] * scale), float(median[1] * scale)), zoom, float(residual * scale)


def camera_motion(samples: Sequence[Sample], k: int) -> str:
    """What the camera does at sample ``k`` ("is still", "pans right", "zooms in",
    "shakes"), judged with its neighbours in ``samples`` (the same shot): a shake is
    movement whose direction does not hold from one sample to the next."""
    sample = samples[k]
    dx, dy = sample.camera
    # A zoom holds over neighbouring samples and is not swamped by a translation (the
    # scale's flow at the picture's corner is about zoom * 92 px at 160 px width).
    zoom = float(np.median([s.zoom for s in samples[max(0, k - 1):k + 2]]))
    if abs(zoom) >= ZOOM_RATE and np.sign(zoom) == np.sign(sample.zoom) and np.hypot(dx, dy) < abs(zoom) * 92:
        return "zooms in" if zoom > 0 else "zooms out"
    if max(abs(dx), abs(dy)) < PAN_PX:
        return "is still"
    moving = np.array([s.camera for s in samples[max(0, k - 2):k + 3] if max(map(abs, s.camera)) >= PAN_PX])
    if len(moving) >= 3 and np.linalg.norm(moving.mean(axis=0)) < 0.5 * np.linalg.norm(moving, axis=1).mean():
        return "shakes"
    # Content moving left means the camera turns right.
    if abs(dx) >= abs(dy):
        return "pans right" if dx < 0 else "pans left"
    return "tilts down" if dy < 0 else "tilts up"


def sure_cameras(samples: Sequence[Sample]) -> list[str]:
    """camera_motion at each of a shot's ``samples`` where it is sure, else "". A neighbouring
    sample gives the same, and:
    - a pan, tilt or shake: the median flow's larger component is SURE times PAN_PX or more;
    - a zoom: the flow's scale is SURE times ZOOM_RATE or more, and what it leaves unexplained
      (the sample's ``motion``) is less than the flow it gives the picture's corner
      (zoom * 92 px at 160 px width): content moving in the picture (a drop of water, a
      turning globe, an animation) also fits a scale, and it was most false zooms;
    - a still camera: every sample of the shot (three or more) has a median flow under
      PAN_PX / SURE and a scale under ZOOM_RATE / SURE. A slow pan is under the threshold
      from one frame to the next, so a still sample among moving ones says little."""
    said = [camera_motion(samples, k) for k in range(len(samples))]

    def quiet(sample: Sample) -> bool:
        shift = max(abs(sample.camera[0]), abs(sample.camera[1]))
        return shift < PAN_PX / SURE and abs(sample.zoom) < ZOOM_RATE / SURE

    still_shot = len(samples) >= 3 and all(map(quiet, samples))
    out = []
    for k, (sample, motion) in enumerate(zip(samples, said)):
        if motion == "is still":
            sure = still_shot
        elif motion.startswith("zooms"):
            sure = abs(sample.zoom) >= SURE * ZOOM_RATE and sample.motion < abs(sample.zoom) * 92
        else:
            sure = max(abs(sample.camera[0]), abs(sample.camera[1])) >= SURE * PAN_PX
        held = motion in said[max(0, k - 1):k] + said[k + 1:k + 2]
        out.append(motion if sure and held else "")
    return out


def sure_motion(samples: Sequence[Sample], cameras: Sequence[str]) -> list[tuple[bool, bool]]:
    """(moving, still) at each of a shot's ``samples``, each only where sure: the camera is
    surely still throughout (``cameras``, sure_cameras) and the flow it does not explain is
    SURE times MOTION_PX or more (moving), or under MOTION_PX / SURE (still). Under a moving
    camera that flow is mostly parallax: nothing is said. One sample's measurement is enough
    (unlike the camera's, not held by a neighbour): a start is where neighbours differ."""
    still = [camera == "is still" for camera in cameras]
    return [(fixed and s.motion >= SURE * MOTION_PX, fixed and s.motion < MOTION_PX / SURE)
            for s, fixed in zip(samples, still)]


_PARTICIPLES = {"pans": "panning", "tilts": "tilting", "zooms": "zooming", "shakes": "shaking"}


def camera_participle(motion: str) -> str:
    """ "pans right" -> "camera panning right" (for boundary states); "" for "" (not sure)."""
    verb, _, rest = motion.partition(" ")
    if not motion:
        return ""
    if motion == "is still":
        return "camera still"
    return " ".join(["camera", _PARTICIPLES.get(verb, verb), rest]).strip()


@dataclass(frozen=True)
class Person:
    id: str | None
    box: tuple[float, float, float, float]


def where(person: Person, width: float) -> str:
    x, _, w, _ = person.box
    centre = (x + w / 2) / width
    return "left" if centre < 0.38 else "right" if centre > 0.62 else "centre"


def framing(people: list[Person], height: float) -> str:
    if not people:
        return ""
    tallest = max(p.box[3] for p in people) / height
    return "close-up" if tallest >= 0.25 else "medium shot" if tallest >= 0.1 else "wide shot"


@dataclass(frozen=True)
class State:
    """What a caption says about one sampled frame (also the 'status' of boundary captions)."""

    shot: int
    view: str  # "close-up", "medium shot", "wide shot" or "" without faces
    people: tuple[tuple[str, str], ...]  # (id, where) of the identities seen, left to right
    unknown_faces: int  # faces seen without an identity
    subject: str | None  # what the shot shows, at the level the classifier is sure of
    text: bool  # on-screen text fills much of the picture
    camera: str  # "is still", "pans right", ... where sure (sure_cameras), else ""
    moving: bool  # something surely moves beyond the camera's motion (sure_motion)
    look: str = "a picture"  # what the shot looks like, said where nothing in it is recognised (looks.py)
    objects: tuple[tuple[str, int], ...] = ()  # (COCO label, how many) of the object tracks seen
    doing: tuple[tuple[str, str], ...] = ()  # (identity or "", status) of the people whose bodies are seen
    still: bool = False  # surely nothing moves beyond the camera's motion (sure_motion)
    nobody: bool = False  # the person detectors checked the shot and saw nobody (see the module's docstring)

    @property
    def persons_seen(self) -> int:
        """How many people the object detector sees."""
        return sum(n for label, n in self.objects if label == "person")

    @property
    def ids(self) -> frozenset[str]:
        return frozenset(pid for pid, _ in self.people)

    def scene(self) -> str:
        """A noun phrase for the picture: "P1 in close-up on the left, with a wine glass",
        "a cat", "text filling the picture", or what it looks like ("a dark picture in
        blue and black"; "..., no people seen" only where the detectors checked: ``nobody``)."""
        view = {"close-up": "in close-up", "medium shot": "in a medium shot", "wide shot": "in a wide shot"}
        doing = {who: status for who, status in self.doing if who}
        unnamed = [status for who, status in self.doing if not who]  # bodies whose face is not known
        if len(self.people) == 1 and len(unnamed) == 1 and self.people[0][0] not in doing:
            doing[self.people[0][0]], unnamed = unnamed[0], []  # one face, one body: the same person
        if len(self.people) == 1:
            pid, side = self.people[0]
            people = f"{pid} {view[self.view]} {'in the centre' if side == 'centre' else 'on the ' + side}"
            people += f", {doing_phrase(doing[pid])}" if pid in doing else ""
        elif self.people:
            names = [f"{pid} ({side}{', ' + doing_phrase(doing[pid]) if pid in doing else ''})"
                     for pid, side in self.people]
            people = f"{', '.join(names[:-1])} and {names[-1]} {view[self.view]}"
        elif unnamed:  # bodies whose faces are not known: what they do
            people = unnamed_people(unnamed, self.persons_seen) + (f" {view[self.view]}" if self.view else "")
        elif self.unknown_faces:
            people = f"{count(self.unknown_faces, 'unrecognised face', 'unrecognised faces')} {view[self.view]}"
        else:  # people whose faces are not seen: the object detector's persons
            people = objects_phrase([(label, n) for label, n in self.objects if label == "person"])
        if self.unknown_faces and self.people:
            people += f" and {count(self.unknown_faces, 'unrecognised face', 'unrecognised faces')}"
        thing = self.thing()
        if people and thing:
            joiner = "wearing" if self.subject and not self.text and is_clothing(self.subject) else "with"
            return f"{people}, {joiner} {thing}"
        # "seen": what the detectors saw; elsewhere nothing is said about people
        return people or thing or (f"{self.look}, no people seen" if self.nobody else self.look)

    def thing(self) -> str:
        """What the shot shows besides people: "a tabby and two cars", "a dog", "text filling
        the picture", or "": the classifier's subject, then the detector's objects that are
        not of its kind (where the two disagree on an animal, the classifier's 1000 classes win)."""
        if self.text:
            return "text filling the picture"
        things = [(label, n) for label, n in self.objects if label != "person" and not same_kind(label, self.subject)]
        said = [with_article(self.subject)] if self.subject else []
        return " and ".join(said + ([objects_phrase(things)] if things else []))

    def status(self) -> str:
        """The state in a few words for a GEB+ boundary caption's before / after."""
        camera = ", ".join(filter(None, [camera_participle(self.camera), "something moving" if self.moving else ""]))
        return "; ".join(filter(None, [self.scene(), camera]))

    def subject_name(self) -> str | None:
        if self.people:
            return self.people[0][0]
        if self.text:
            return "the on-screen text"
        if self.doing:
            return "a person" if len(self.doing) == 1 else "the people"
        if self.objects:  # people first, then the most numerous
            label, n = max(self.objects, key=lambda lc: (lc[0] == "person", lc[1]))
            if n == 1:
                return "a person" if label == "person" else f"the {label}"
            return f"the {_PLURALS.get(label, label + 's')}"
        return f"the {self.subject}" if self.subject else None


def _shot_windows(samples: list[Sample], shots: list[int]) -> list[tuple[list[int], int, list[int]]]:
    """For each sample: the indices of its shot's samples, its place among them, and the
    indices of those within WINDOW_SECONDS of it (samples are in time order)."""
    members: dict[int, list[int]] = {}
    for i, shot in enumerate(shots):
        members.setdefault(shot, []).append(i)
    out: list[tuple[list[int], int, list[int]]] = [([], 0, [])] * len(samples)
    for in_shot in members.values():
        times = [samples[i].time for i in in_shot]
        for k, i in enumerate(in_shot):
            lo = bisect.bisect_left(times, times[k] - WINDOW_SECONDS - 1e-6)
            hi = bisect.bisect_right(times, times[k] + WINDOW_SECONDS + 1e-6)
            out[i] = (in_shot, k, in_shot[lo:hi])
    return out


def describe(samples: list[Sample], faces_at: Callable[[float], list[Person]], shot_of: Callable[[int], int],
             width: float, height: float, text_share: Callable[[float], float] = lambda time: 0.0,
             objects_at: Callable[[float], list[tuple[str, int]]] = lambda time: [],
             doing_at: Callable[[float], list[tuple[str, str]]] = lambda time: [],
             subject_of: Callable[[int], str | None] | None = None,
             nobody_in: Callable[[int], bool] = lambda shot: False,
             ) -> list[tuple[State, str]]:
    """(state, caption) for each sample in time order.

    ``faces_at(time)`` gives the Person list seen at a sample; ``shot_of(frame)`` the shot
    number (1-based); ``text_share(time)`` the share of the picture on-screen text covers
    (text is the subject where it covers TEXT_FILLS on average over the window);
    ``objects_at(time)`` the (label, how many) of the objects seen, ``doing_at(time)`` the
    (identity or "", status) of the people whose bodies are seen; ``subject_of(shot)`` the
    word for what a shot shows (default: the classifier's own, subjects.subject_word);
    ``nobody_in(shot)`` whether the person detectors checked the shot and saw nobody in it
    (default: never, so nothing is said about people where nothing was seen); "no people
    seen" is said where, besides, nothing surely moves in the shot."""
    shots = [shot_of(s.frame) for s in samples]
    shares = [text_share(s.time) for s in samples]
    out: list[tuple[State, str]] = []
    previous: State | None = None
    camera_said = ""  # the camera's motion last said in the shot
    measured: dict[int, tuple[list[str], list[tuple[bool, bool]], bool]] = {}  # shot -> cameras, motion, nobody
    for sample, shot, (in_shot, k, window) in zip(samples, shots, _shot_windows(samples, shots)):
        if shot not in measured:
            cameras = sure_cameras([samples[i] for i in in_shot])
            # nobody: the detectors checked the shot and saw nobody, and nothing surely moves in it
            nobody = nobody_in(shot) and max(samples[i].motion for i in in_shot) < SURE * MOTION_PX
            measured[shot] = cameras, sure_motion([samples[i] for i in in_shot], cameras), nobody
        cameras, motions, nobody = measured[shot]
        people = sorted(faces_at(sample.time), key=lambda p: p.box[0])
        named = [p for p in people if p.id]
        state = State(
            shot=shot, view=framing(people, height), people=tuple((p.id, where(p, width)) for p in named),
            unknown_faces=len(people) - len(named),
            # the classifier's subject holds for the whole shot or not at all: a one-shot
            # clip of a cockatoo is a cockatoo throughout, and a label seen in a few of a
            # shot's frames is not said
            subject=subject_of(shot) if subject_of else subject_word([samples[i].labels for i in in_shot],
                                                                     [samples[i].whole for i in in_shot]),
            text=float(np.mean([shares[i] for i in window])) >= TEXT_FILLS,
            camera=cameras[k], moving=motions[k][0], still=motions[k][1],
            look=shot_look([samples[i] for i in in_shot]), objects=tuple(objects_at(sample.time)),
            doing=tuple(doing_at(sample.time)), nobody=nobody,
        )
        if previous is None or previous.shot != shot:
            camera_said = ""
        out.append((state, caption(state, previous, camera_said)))
        camera_said = state.camera or camera_said
        previous = state
    return out


def shot_look(samples: list[Sample]) -> str:
    """The look of a shot's samples together (looks.look_phrase): one phrase a shot, so
    that a caption does not flicker between two near the thresholds."""
    measured = [s for s in samples if s.light is not None]
    if not measured:
        return "a picture"
    shares: dict[str, float] = {}
    for s in measured:
        for colour, share in s.colours:
            shares[colour] = shares.get(colour, 0.0) + share / len(measured)
    flat = [s.flat for s in measured if s.flat is not None]
    saturation = [s.saturation for s in measured if s.saturation is not None]
    kind = picture_kind(float(np.mean(flat)) if flat else None, float(np.mean(saturation)) if saturation else None)
    return look_phrase(float(np.mean([s.light for s in measured])), shares, kind)


def caption(state: State, previous: State | None, camera_said: str | None = None) -> str:
    """The caption of a state: the scene, what changed since ``previous``, the camera.
    The camera's motion is said where it is sure and not what was last said of it in the
    shot (``camera_said``; default: ``previous``'s, in the same shot)."""
    scene = state.scene()
    same_shot = previous is not None and previous.shot == state.shot
    sentences = [f"New shot: {scene}." if previous is not None and not same_shot else sentence(scene)]
    if same_shot:
        sentences += [f"{pid} comes in." for pid in sorted(state.ids - previous.ids)]
        sentences += [f"{pid} leaves." for pid in sorted(previous.ids - state.ids)]
        was = dict(previous.doing)
        # someone unnamed is "the person" only when they are the one person in the picture
        alone = len(state.doing) == len(was) == 1 and state.persons_seen <= 1
        sentences += [f"{who or 'The person'} " + ("raises their arms." if status == "arms raised"
                                                   else f"is now {status}.")
                      for who, status in state.doing if was.get(who, status) != status and (who or alone)]
        if state.subject and previous.subject and state.subject != previous.subject and not state.text:
            sentences.append(f"Now {with_article(state.subject)}.")
        if state.moving and previous.still:
            sentences.append("Something starts moving.")
        elif state.still and previous.moving:
            sentences.append("The movement stops.")
    if camera_said is None:
        camera_said = previous.camera if same_shot else ""
    if state.camera and state.camera != camera_said:
        sentences.append(f"The camera {state.camera}.")
    return " ".join(sentences)


def boundary_status(before: State | None, after: State | None) -> tuple[str, str, str]:
    """Builtin GEB+ caption of a boundary: the subject and its state on each side."""
    subject = (after and after.subject_name()) or (before and before.subject_name()) or "the picture"
    return (subject, before.status() if before else "not yet seen", after.status() if after else "no longer seen")
