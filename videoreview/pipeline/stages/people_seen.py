"""Where the objects stage saw people, shared in one decoding pass with the stages that
only have work where a person is: poses (MoveNet looks only near a person) and faces
(faces are looked for only near a person, or where the previous face sample found one).

How the stages find each other: ``share_people(stages)``, called by ``build_stages`` once
the stages of an analysis are made, gives the objects stage and the poses and faces stages
among them one ``SharedPeople``. Each decoding pass (one FrameSource) has its own
``PeopleSeen`` from it (``for_source``): the objects reader fills it as it takes frames
(``attach``, ``looked``, ``finish``), and the poses and faces readers ask it (``near``,
``knows``). Stages made otherwise (one alone, or no objects stage: engine ``none``) share
nothing and look as they always did.

A dependent reader gets its batches independently of the objects reader's (media/source.py
``batches_for``: each when it fills), so it holds a frame until the detector has looked up
to that frame's time plus its window (``knows``), then decides: what it looks at is the same
whatever order the batches come in. Every reader of a pass is made before any takes a frame
(runner._read_in_one_pass), so the faces reader, made before the objects reader (faces comes
first in the run order), learns at its first frame whether a detector feeds the pass (``fed``,
HeldFrames.ready). Where the objects reader is
not in the pass (its result came from the cache), ``fed`` stays False and the dependent
readers look as they did before this was shared; their cache key names the detector all the
same (``share_people`` sets their ``revision``), so a result cached so is the ungated one:
more looking, nothing missed.
"""

from __future__ import annotations

import bisect
import math
import weakref
from collections.abc import Sequence

Box = tuple[float, float, float, float]  # x, y, w, h in display pixels
PERSON = "person"
HOLD = 64  # frames a dependent reader holds for the detector at most (HeldFrames)


class PeopleSeen:
    """One pass's person detections: the times the detector looked, the person boxes it
    found at each (in display pixels), and up to which time it has looked (``known``: every
    frame offered to it up to then was looked at or passed over; ``math.inf`` once it has
    taken its last frame)."""

    def __init__(self) -> None:
        self.fed = False  # a detector feeds it in this pass
        self.known = -math.inf
        self.looks: list[float] = []  # times looked at, in order
        self.boxes: list[list[Box]] = []  # per look: the person boxes found
        self._seen: list[float] = []  # the looks that found a person, in order

    def attach(self) -> None:
        """The objects reader of this pass will feed it."""
        self.fed = True

    def looked(self, time: float, boxes: Sequence[Box]) -> None:
        """The detector looked at ``time`` and found these person boxes (maybe none)."""
        self.looks.append(time)
        self.boxes.append(list(boxes))
        if boxes:
            self._seen.append(time)

    def known_to(self, time: float) -> None:
        """Every frame offered to the detector up to ``time`` has been taken."""
        self.known = max(self.known, time)

    def finish(self) -> None:
        """The detector has taken its last frame."""
        self.known = math.inf

    def knows(self, time: float) -> bool:
        """Whether the detector has looked at everything up to ``time``."""
        return self.known >= time

    def near(self, time: float, window: float) -> bool:
        """Whether a person was detected within ``window`` seconds of ``time`` (either side).
        Only final where ``knows(time + window)``."""
        k = bisect.bisect_left(self._seen, time - window - 1e-6)
        return k < len(self._seen) and self._seen[k] <= time + window + 1e-6


class SharedPeople:
    """What the objects, poses and faces stages of one analysis share: a PeopleSeen per
    decoding pass (a pass is its FrameSource), and the detector's tag for the cache key."""

    def __init__(self, detector: str) -> None:
        self.detector = detector  # "name@version~revision" of the objects stage
        self._passes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def for_source(self, source) -> PeopleSeen:
        seen = self._passes.get(source)
        if seen is None:
            seen = self._passes[source] = PeopleSeen()
        return seen


def share_people(stages: Sequence) -> None:
    """Give the objects stage among ``stages`` and the poses and faces stages one
    SharedPeople, and name the detector in the dependent stages' cache key (their
    ``revision``: a result looked for near a detector's people is that detector's). No
    objects stage, or neither poses nor faces: nothing is shared."""
    named = {stage.name: stage for stage in stages}
    objects = named.get("objects")
    dependents = [named[name] for name in ("poses", "faces") if hasattr(named.get(name), "people")]
    if not hasattr(objects, "people") or not dependents:
        return
    detector = f"{objects.engine_tag}~{objects.revision}"
    objects.people = SharedPeople(detector)
    for stage in dependents:
        stage.people = objects.people
        stage.revision = f"{type(stage).revision}+people:{detector}"


class HeldFrames:
    """A dependent reader's frames waiting for the detector: (frame index, time, frame), in
    order. ``ready`` gives those it may decide on now, each with whether the detector's
    people decide it (``gated``): where nothing feeds ``seen``, every frame at once and none
    gated; else the frames whose time plus ``window`` the detector knows, gated.

    At most ``limit`` frames wait: in the runner's pass the detector knows up to its last
    batch (8 frames at 4 a second: 2 s of video), so a reader holds its frames of that, its
    window and its own batch: on a 720p clip at most 12 of faces' (640x360: 8.3 MB) and 30 of
    poses' (256x144: 3.3 MB). Past ``limit`` (a pass that feeds the readers one after another,
    as forced decord does) the oldest go ungated, as they went before people were shared:
    64 frames, 44 MB of faces' at most."""

    def __init__(self, limit: int = HOLD) -> None:
        self.limit = limit
        self._frames: list[tuple[int, float, object]] = []

    def add(self, batch) -> None:
        self._frames.extend((int(i), float(t), f) for i, t, f in zip(batch.indices, batch.times, batch.frames))

    def ready(self, seen: PeopleSeen | None, window: float) -> list[tuple[int, float, object, bool]]:
        if seen is None or not seen.fed:
            return [(*held, False) for held in self._take(len(self._frames))]
        known = next((k for k, (_, t, _) in enumerate(self._frames) if not seen.knows(t + window)), len(self._frames))
        over = max(0, len(self._frames) - known - self.limit)
        return [(*held, True) for held in self._take(known)] + [(*held, False) for held in self._take(over)]

    def rest(self, seen: PeopleSeen | None, window: float) -> list[tuple[int, float, object, bool]]:
        """Every frame still held (the pass is over), gated where the detector knows."""
        gated = seen is not None and seen.fed
        return [(*held, gated and seen.knows(held[1] + window)) for held in self._take(len(self._frames))]

    def _take(self, count: int) -> list[tuple[int, float, object]]:
        out, self._frames = self._frames[:count], self._frames[count:]
        return out

    def __len__(self) -> int:
        return len(self._frames)
