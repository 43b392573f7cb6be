"""What a CVAT for video 1.1 file of an analysis holds, shared by its writer (cvat.py) and
its reader (cvat_edits.py): the labels with their attributes, the ``track`` attribute that
names an analysis's track, and boxes as the file holds them."""

from __future__ import annotations

from ..engines.objects.decode import COCO_LABELS
from ..records import BOUNDARY_KINDS
from .tracks import Box, Track

FILE = "annotations.xml"
LABELS_FILE = "labels.json"
VERSION = "1.1"
TRACK, IDENTITY = "track", "identity"
FACE, PERSON, BOUNDARY, CAPTION = "face", "person", "boundary", "caption"
BOUNDARY_FIELDS = ("kind", "subject", "before", "after")
TEXT = "text"


def labels() -> dict[str, list[tuple[str, str, tuple[str, ...]]]]:
    """label -> its attributes (name, input type, values), as written and as read."""
    text = ("text", ())
    spec = {name: [(TRACK, *text)] for name in COCO_LABELS}
    spec[PERSON] = [(TRACK, *text), (IDENTITY, *text)]
    spec[FACE] = [(TRACK, *text), (IDENTITY, *text)]
    spec[BOUNDARY] = [("kind", "select", BOUNDARY_KINDS), *((f, *text) for f in BOUNDARY_FIELDS[1:])]
    spec[CAPTION] = [(TEXT, *text)]
    return spec


def track_key(track: Track) -> str:
    """What the ``track`` attribute says of a track: "objects 3"."""
    return f"{track.capability} {track.id}"


def corners(box: Box, width: int, height: int) -> dict[str, str]:
    """A box (x, y, w, h) as CVAT writes it: corners clamped to the picture, two decimals."""
    x, y, w, h = box
    clamp = lambda v, top: f"{min(max(float(v), 0.0), float(top)):.2f}"  # noqa: E731
    return {"xtl": clamp(x, width), "ytl": clamp(y, height), "xbr": clamp(x + w, width), "ybr": clamp(y + h, height)}


def written_box(box: Box, width: int, height: int) -> Box:
    """The box as the file holds it (clamped, rounded): what a read box is compared with."""
    c = {k: float(v) for k, v in corners(box, width, height).items()}
    return (c["xtl"], c["ytl"], c["xbr"] - c["xtl"], c["ybr"] - c["ytl"])
