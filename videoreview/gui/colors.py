"""Colours shared by the timeline and the video overlays, so one identity or one boundary
kind looks the same everywhere."""

from __future__ import annotations

import zlib

from PySide6.QtGui import QColor, QIcon, QPixmap

from ..records import NOTE_TAG_COLOURS

BOUNDARY_COLORS: dict[str, QColor] = {
    "cut": QColor("#e8453c"),  # red: a hard cut
    "gradual": QColor("#f2a33a"),  # amber: fades and dissolves
    "event": QColor("#3fa7e0"),  # blue: the subject's status changed
}
EDITED_COLOR = QColor("#b46cf0")  # violet outline/badge on anything a reviewer changed
KEYFRAME_COLOR = QColor("#5cc98a")
CAPTION_COLOR = QColor("#7b8794")
TEXT_COLOR = QColor("#d9a441")  # on-screen text read from the picture

# Well separated hues for the first identities; later ones hash to a hue.
_IDENTITY_HUES = (210, 30, 120, 330, 55, 270, 175, 0, 90, 300)


def identity_color(pid: str) -> QColor:
    """A stable colour for an identity id ("P1", "P2", ...): the same id, the same colour,
    in every run and every widget."""
    number = int(pid[1:]) if pid[:1] == "P" and pid[1:].isdigit() else None
    if number is not None and 1 <= number <= len(_IDENTITY_HUES):
        hue = _IDENTITY_HUES[number - 1]
    else:
        hue = zlib.crc32(pid.encode("utf-8")) % 360
    return QColor.fromHsv(hue, 200, 235)


# Well separated hues for object labels (a label hashes to one).
_OBJECT_HUES = (0, 28, 52, 85, 125, 160, 185, 205, 228, 258, 285, 320)


def object_color(label: str) -> QColor:
    """A stable colour for a COCO label ("cup", "car"): the same label, the same colour on
    the timeline's Objects track and on the video's object boxes, in every run. Less
    saturated than the identities' colours, so a face box and an object box are told apart."""
    return QColor.fromHsv(_OBJECT_HUES[zlib.crc32(label.encode("utf-8")) % len(_OBJECT_HUES)], 150, 245)


# What a person does (records.PERSON_STATUSES), on the timeline's People track: still
# postures in cool hues, movement in warm ones, so a walk or a run stands out.
STATUS_COLORS: dict[str, QColor] = {
    "standing": QColor("#6f9fd8"),  # blue
    "sitting": QColor("#4fb89a"),  # teal
    "lying": QColor("#8f7fd6"),  # lavender
    "bending": QColor("#b7a14a"),  # olive
    "arms raised": QColor("#d66fb4"),  # pink
    "walking": QColor("#e8923a"),  # orange
    "running": QColor("#e0503f"),  # red
}
UNKNOWN_STATUS_COLOR = QColor("#8a8f96")  # a status this version does not know


def status_color(status: str) -> QColor:
    """The colour of a person's status, the same on every track and page."""
    return STATUS_COLORS.get(status, UNKNOWN_STATUS_COLOR)


# A note's tag: the marker colours the editors share (records.NOTE_TAGS), as they show them.
NOTE_COLORS: dict[str, QColor] = {tag: QColor(hex_colour) for tag, hex_colour in NOTE_TAG_COLOURS.items()}


def swatch(color: QColor) -> QIcon:
    """A small square of ``color``, for a list's rows."""
    pixmap = QPixmap(12, 12)
    pixmap.fill(color)
    return QIcon(pixmap)


def tag_icon(tag: str) -> QIcon:
    """A swatch of a note's tag colour, as its marker shows on the timeline (grey for a
    tag this version does not know)."""
    return swatch(NOTE_COLORS.get(tag, QColor("#888888")))
