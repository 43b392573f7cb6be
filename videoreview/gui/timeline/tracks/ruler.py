"""The time ruler at the top: ticks and timecodes at steps that suit the zoom, and the
playhead's timecode in its header."""

from __future__ import annotations

import math

from PySide6.QtCore import Qt

from ....timecode import timecode
from .base import RULER_H, Track, shows_hours

_SECOND_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400)
_SUBDIVISIONS = {1: 4, 2: 4, 5: 5, 10: 10, 15: 3, 30: 6, 60: 6, 120: 4, 300: 5, 600: 10, 900: 3, 1800: 6, 3600: 6,
                 7200: 4, 14400: 4}
LABEL_SPACING_PX = 90


def ruler_steps(pps: float, fps: float) -> tuple[float, float]:
    """(major, minor) tick spacing in seconds: labels at least LABEL_SPACING_PX apart; below
    a second, steps are whole frames and minor ticks mark every frame."""
    frame = 1 / fps
    rate = round(fps)
    if abs(fps - rate) < 0.01:  # steps that divide the second, so each second's labels start at .00
        frame_steps = [n for n in range(1, rate) if rate % n == 0]
    else:
        frame_steps = [n for n in (1, 2, 5, 10) if n < fps]
    for frames in frame_steps:
        if frames * frame * pps >= LABEL_SPACING_PX:
            return frames * frame, frame
    for step in _SECOND_STEPS:
        if step * pps >= LABEL_SPACING_PX:
            minor = step / _SUBDIVISIONS[step]
            if step == 1 and frame * pps >= 5:
                minor = frame
            return float(step), minor
    return float(_SECOND_STEPS[-1]), _SECOND_STEPS[-1] / 4


class RulerTrack(Track):
    name, height = "ruler", RULER_H

    def margin_px(self, view) -> float:
        return 120

    def paint(self, view, p, r, t0, t1, colors) -> None:
        model = view.model
        p.fillRect(r, colors.window)
        major, minor = ruler_steps(view.pps, model.fps)
        frames_in_labels = major < 1
        p.setPen(colors.dim)
        if minor * view.pps >= 4:
            start = max(0, math.floor(t0 / minor))
            stop = math.ceil(min(t1, model.duration) / minor)
            per_major = round(major / minor)
            for k in range(start, stop + 1):
                if k % per_major:
                    x = int(view.x_of(k * minor))
                    p.drawLine(x, r.bottom() - 4, x, r.bottom())
        p.setFont(colors.small_font)
        baseline = r.top() + 12
        for k in range(max(0, math.floor(t0 / major)), math.ceil(min(t1, model.duration) / major) + 1):
            t = k * major
            x = int(view.x_of(t))
            p.setPen(colors.line_strong)
            p.drawLine(x, r.bottom() - 9, x, r.bottom())
            p.setPen(colors.text)
            p.drawText(x + 4, baseline, timecode(t, model.fps if frames_in_labels else None, shows_hours(model)))

    def paint_header(self, view, p, box, colors) -> None:
        """The playhead's timecode."""
        p.setFont(colors.timecode_font)
        p.setPen(colors.text)
        p.drawText(box, Qt.AlignmentFlag.AlignVCenter, timecode(view.position(), view.model.fps,
                                                                shows_hours(view.model)))
