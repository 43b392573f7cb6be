"""Times as people read them, the same in the window, the CLI and exported reports; and
the conversion between times and frames."""

from __future__ import annotations

import math


def timecode(seconds: float, fps: float | None = None, hours: bool = False) -> str:
    """mm:ss (h:mm:ss with ``hours``), with .ff — the frame shown then, counted within its
    second — when ``fps`` is given."""
    whole = math.floor(seconds + 1e-6)  # the slack: 6.9999999 is 7 s computed in floating point
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    text = f"{h}:{m:02d}:{s:02d}" if hours else f"{m + 60 * h:02d}:{s:02d}"
    if fps:
        frame = min(max(0, math.floor((seconds - whole) * fps + 1e-3)), math.ceil(fps) - 1)
        text += f".{frame:02d}"
    return text


def format_time(seconds: float, fps: float | None = None) -> str:
    """A moment of a video as the transport bar and reports write it: mm:ss.ff, or
    h:mm:ss.ff from an hour on."""
    return timecode(max(0.0, seconds), fps, hours=seconds >= 3600)


def format_span(start: float, end: float, between: str = "–") -> str:
    """``start``, or "START{between}END" when ``end`` is later (a note over a range)."""
    return format_time(start) + (f"{between}{format_time(end)}" if end > start else "")


# The app's one conversion between times and frames of a constant-rate timeline (the
# player, which knows each frame's real timestamp, looks those up instead).
def frame_at(seconds: float, fps: float, frame_count: int) -> int:
    """The frame on screen at ``seconds``: the last one starting at or before it, clamped
    to the video (the slack: 0.4 s computed as 0.39999999 is still frame 10 at 25 fps)."""
    return max(0, min(frame_count - 1, int(seconds * fps + 1e-6)))


def frame_time(frame: int, fps: float) -> float:
    """When ``frame`` starts, to the microsecond, as the records store it."""
    return round(frame / fps, 6)


def nearest_frame(seconds: float, fps: float, frame_count: int) -> int:
    """The frame starting nearest to ``seconds``, clamped (a drag or a sample snaps to it)."""
    return max(0, min(frame_count - 1, round(seconds * fps)))
