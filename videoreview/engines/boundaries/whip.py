"""Whip pans are not cuts: the motion blur of a fast pan, seen in the 48x27 frames.

A whip pan smears the picture along the pan for a few frames and then the same shot goes
on; TransNetV2 calls some of them cuts (0.60-0.65 on tests/hard_shots.py's whip pan, at
full rate and at half rate). What gives it away is the blur: the picture's horizontal
detail (mean |d/dx| of the grey frame) falls against its vertical detail for the
frames of a horizontal whip, and rises back after it (vertical whips the other way
round). ``anisotropy`` is log((|d/dx| + 0.5) / (|d/dy| + 0.5)) per frame. A cut changes it
as a step, from one shot's level to the other's; a whip makes a transient: within
``NEAR`` frames of the transition, at least ``BLURRED`` frames lie ``EXCURSION / 2``
beyond both the level before and the level after, the deepest ``EXCURSION`` beyond,
and it moves there smoothly: no step from frame to frame is half as large as the
deepest excursion (a short shot between two cuts, 0.4 s long in the benchmark's
480x352 clip, makes a transient of steps).
Measured: the whip pan of tests/hard_shots.py dips to -0.63 for 7 frames from -0.13
before and +0.08 after; of the cuts of the calibration clips (docs/benchmarks.md) that
step by up to 1.3, the nearest to a transient is a 2-frame dip of 0.3 (tests/videos.py's
cuts clip, at its second cut).
"""

from __future__ import annotations

import numpy as np

EXCURSION, BLURRED = 0.3, 4
NEAR, REACH = 6, 20  # the transient within NEAR frames of the cut; levels from NEAR+2..REACH frames away


def anisotropy(grey: np.ndarray) -> np.ndarray:
    """Per grey frame (float [n, h, w], levels of 255): log of horizontal over vertical detail."""
    dx = np.abs(np.diff(grey, axis=2)).mean(axis=(1, 2))
    dy = np.abs(np.diff(grey, axis=1)).mean(axis=(1, 2))
    return np.log((dx + 0.5) / (dy + 0.5))


def is_whip(values: np.ndarray, frame: int) -> bool:
    """Whether the transition at ``frame`` sits in a motion-blur transient (see above)."""
    around = values[max(0, frame - NEAR - 1):frame + NEAR + 2]
    near = values[max(0, frame - NEAR):frame + NEAR + 1]
    before = values[max(0, frame - REACH):max(0, frame - NEAR - 2)]
    after = values[frame + NEAR + 2:frame + REACH + 1]
    if len(near) == 0 or len(before) < 3 or len(after) < 3:
        return False
    low, high = np.median(before), np.median(after)
    below = min(low, high) - near  # how far each frame lies below both levels
    above = near - max(low, high)
    steepest = np.abs(np.diff(around)).max()
    return any(d.max() >= EXCURSION and (d >= EXCURSION / 2).sum() >= BLURRED and steepest < d.max() / 2
               for d in (below, above))
