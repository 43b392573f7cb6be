"""SMPTE timecodes (HH:MM:SS:FF, drop-frame HH:MM:SS;FF at 29.97 and 59.94) for the
editors' note formats and the PDF report, through OpenTimelineIO's opentime, which
implements drop-frame counting.

Frame rates are snapped to the exact NTSC rates (24000/1001, 30000/1001, 60000/1001) when
a probe's float is within 0.005 of one, so 29.97 counts drop-frame like an editor does.
"""

from __future__ import annotations

import re

from .errors import RecordError

NTSC = (24000 / 1001, 30000 / 1001, 60000 / 1001)
DROP_FRAME = (30000 / 1001, 60000 / 1001)  # the rates whose timecode editors write drop-frame


def exact_rate(fps: float) -> float:
    for rate in NTSC:
        if abs(fps - rate) < 0.005:
            return rate
    return round(fps) if abs(fps - round(fps)) < 0.005 else fps


def is_drop_frame(fps: float) -> bool:
    return exact_rate(fps) in DROP_FRAME


def nominal_rate(fps: float) -> int:
    """Frames counted per timecode second: 30 at 29.97, 24 at 23.976."""
    return round(exact_rate(fps))


def timecode(frame: int, fps: float, start: str = "00:00:00:00") -> str:
    """The timecode of ``frame`` on a timeline that starts at ``start``."""
    from opentimelineio import opentime

    rate = _checked(fps)
    total = opentime.RationalTime(frame + start_frames(start, fps), rate)
    return opentime.to_timecode(total, rate)


def span(frame: int, last_frame: int, fps: float, between: str = " – ") -> str:
    """The timecode of ``frame``, or "IN{between}OUT" for the frames ``frame`` to
    ``last_frame`` (both shown), as notes are written wherever a person reads them."""
    start = timecode(frame, fps)
    return f"{start}{between}{timecode(last_frame, fps)}" if last_frame > frame else start


def frame_of(text: str, fps: float, start: str = "00:00:00:00") -> int:
    """The frame a timecode names on a timeline starting at ``start`` (RecordError when
    it is not a timecode at that rate)."""
    from opentimelineio import opentime

    rate = _checked(fps)
    try:
        value = opentime.from_timecode(text.strip(), rate).value
    except (ValueError, TypeError) as exc:
        raise RecordError(None, f"{text!r} is not a timecode at {fps:g} fps ({exc})") from None
    return round(value) - start_frames(start, fps)


def start_frames(start: str, fps: float) -> int:
    from opentimelineio import opentime

    if start == "00:00:00:00":
        return 0
    rate = _checked(fps)
    if is_drop_frame(rate):
        start = start[:8] + ";" + start[9:]
    return round(opentime.from_timecode(start, rate).value)


def _checked(fps: float) -> float:
    from opentimelineio import opentime

    rate = exact_rate(fps)
    if not opentime.RationalTime.is_valid_timecode_rate(rate):
        raise RecordError(None, f"{fps:g} fps has no SMPTE timecode "
                                "(editors use 23.976, 24, 25, 29.97, 30, 50, 59.94, 60)")
    return rate


CLOCK = re.compile(r"^(?:(\d+):)?(?:(\d+):)?(\d+(?:\.\d*)?)$")


def frame_from_text(text: str, fps: float, frame_count: int) -> int:
    """The frame a person means by ``text``: a timecode (00:01:12:05, or ;05 drop-frame),
    a clock time (1:12.2, 0:01:12) or seconds (72.2). RecordError when it is none of them
    or lies outside the video."""
    text = text.strip()
    if re.fullmatch(r"\d{1,2}:\d{2}:\d{2}[:;]\d{2}", text):
        frame = frame_of(text, fps)
    else:
        clock = CLOCK.match(text)
        if not clock:
            raise RecordError(None, f"{text!r} is not a time (seconds, m:ss.s or a timecode HH:MM:SS:FF)")
        parts = [float(p) for p in clock.groups() if p is not None]
        seconds = sum(value * 60 ** power for power, value in enumerate(reversed(parts)))
        frame = int(seconds * fps + 1e-6)
    if not 0 <= frame < frame_count:
        raise RecordError(None, f"{text} is outside the video (frames 0 to {frame_count - 1})")
    return frame
