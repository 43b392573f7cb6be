"""The reviewer's notes: time-coded comments, ranges and drawings on a frame."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import RecordError
from .base import _Record, one_of

# Tags are the marker colours every editor we export to knows (Resolve, OTIO, Final Cut,
# Premiere, Avid): a reviewer's own meaning per colour, like the editors' markers.
# Each tag's colour as the window and the PDF report draw it.
NOTE_TAG_COLOURS: dict[str, str] = {"blue": "#2f7df6", "cyan": "#19c3d9", "green": "#34c759", "yellow": "#ffcc00",
                                    "red": "#ff3b30", "pink": "#ff5fa2", "purple": "#9b59d0"}
NOTE_TAGS: tuple[str, ...] = tuple(NOTE_TAG_COLOURS)
NOTE_STATUSES: tuple[str, ...] = ("open", "resolved")
SHAPE_KINDS: tuple[str, ...] = ("stroke", "arrow", "rect", "ellipse", "text")


@dataclass(frozen=True)
class Shape(_Record):
    """One shape of a drawing on a frame, in normalised frame coordinates (0..1 of the
    displayed width and height, so it fits the frame at any size). ``points``: a stroke's
    path; an arrow's tail and head; a rectangle's or ellipse's opposite corners; the
    text's top-left corner."""

    kind: str  # one of SHAPE_KINDS
    points: tuple[tuple[float, float], ...]
    color: str = "#ff3b30"
    width: float = 0.005  # line width as a share of the frame's width
    text: str = ""  # kind "text"

    def __post_init__(self) -> None:
        one_of("shape kind", self.kind, SHAPE_KINDS)
        try:
            points = tuple((float(x), float(y)) for x, y in self.points)
        except (TypeError, ValueError):
            raise RecordError(None, f"shape points must be [x, y] pairs, got {self.points!r}") from None
        if not points or (self.kind in ("arrow", "rect", "ellipse") and len(points) != 2):
            raise RecordError(None, f"a {self.kind} needs {'2 points' if self.kind != 'stroke' else 'points'}")
        object.__setattr__(self, "points", points)


@dataclass(frozen=True)
class Note(_Record):
    """A reviewer's time-coded note: at one frame, or over frames ``frame`` to
    ``end_frame`` (both shown), optionally with a drawing on ``frame``. Analysis never
    changes notes; a reviewer's edits do, each as a new ``changed`` time."""

    id: str  # unique, kept through export and import (merging goes by it)
    time: float
    frame: int
    text: str
    end_time: float | None = None  # a range: the time of its last frame
    end_frame: int | None = None
    tag: str = "blue"  # one of NOTE_TAGS
    status: str = "open"  # one of NOTE_STATUSES
    author: str = ""
    created: str = ""  # ISO 8601, UTC
    changed: str = ""
    drawing: tuple[Shape, ...] = ()


    def __post_init__(self) -> None:
        one_of("note tag", self.tag, NOTE_TAGS)
        one_of("note status", self.status, NOTE_STATUSES)
        if self.end_frame is not None and self.end_frame < self.frame:
            raise RecordError(None, f"note {self.id}: its range ends (frame {self.end_frame}) "
                                    f"before it starts ({self.frame})")

    @property
    def is_range(self) -> bool:
        return self.end_frame is not None and self.end_frame > self.frame

    @property
    def last_frame(self) -> int:
        return self.end_frame if self.end_frame is not None else self.frame


@dataclass(frozen=True)
class NoteDeletion(_Record):
    """A note a reviewer deleted, and when: merging another copy of the video's notes
    (the team library's) that still has it leaves it out, unless that copy changed it
    later than this (a note imported back from a file)."""

    id: str
    deleted: str  # ISO 8601, UTC, as Note.changed
    author: str = ""  # who deleted it
