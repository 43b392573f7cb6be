"""SciPy's ``gaussian_filter1d(mode="constant")`` and ``find_peaks(height, prominence,
distance)`` for the short 1-D scores of the event detector, in numpy.

Why not SciPy: importing ``scipy.signal`` and ``scipy.ndimage`` took 1.13 s of a 1.57 s
boundary analysis of a 3 s clip (2 cores), paid by every process that analyses a video.
These follow SciPy's definitions step by step (plateaus peak at their middle, rounded
down; height, then distance keeping the higher peak, then prominence without a window),
and tests/test_peaks.py checks them against SciPy on random signals.
"""

from __future__ import annotations

import numpy as np


def gaussian_smooth(x: np.ndarray, sigma: float, truncate: float = 4.0) -> np.ndarray:
    """x convolved with a normalised Gaussian of ``sigma`` samples, zeros beyond the ends."""
    radius = int(truncate * sigma + 0.5)
    kernel = np.exp(-0.5 * (np.arange(-radius, radius + 1) / sigma) ** 2)
    return np.convolve(np.pad(np.asarray(x, np.float64), radius), kernel / kernel.sum(), mode="valid")


def find_peaks(x: np.ndarray, height: float, prominence: float, distance: int) -> np.ndarray:
    """Indices of the peaks of x at least ``height`` high, ``distance`` samples apart
    (the higher one kept) and ``prominence`` above the higher of their two bases."""
    x = np.asarray(x, np.float64)
    peaks = _local_maxima(x)
    peaks = peaks[x[peaks] >= height]
    peaks = peaks[_apart(peaks, x[peaks], int(np.ceil(distance)))]
    return peaks[np.array([_prominence(x, p) >= prominence for p in peaks], bool)]


def _local_maxima(x: np.ndarray) -> np.ndarray:
    out, i, last = [], 1, len(x) - 1
    while i < last:
        if x[i - 1] < x[i]:
            ahead = i + 1
            while ahead < last and x[ahead] == x[i]:
                ahead += 1
            if x[ahead] < x[i]:
                out.append((i + ahead - 1) // 2)
                i = ahead
        i += 1
    return np.array(out, np.int64)


def _apart(peaks: np.ndarray, priority: np.ndarray, distance: int) -> np.ndarray:
    keep = np.ones(len(peaks), bool)
    for j in np.argsort(priority)[::-1]:  # the same sort as SciPy: ties go the same way
        if not keep[j]:
            continue
        k = j - 1
        while k >= 0 and peaks[j] - peaks[k] < distance:
            keep[k] = False
            k -= 1
        k = j + 1
        while k < len(peaks) and peaks[k] - peaks[j] < distance:
            keep[k] = False
            k += 1
    return keep


def _prominence(x: np.ndarray, peak: int) -> float:
    """Height above the higher of the lowest points on each side before a higher sample."""
    bases = []
    for step in (-1, 1):
        i, low = peak, x[peak]
        while 0 <= i < len(x) and x[i] <= x[peak]:
            low = min(low, x[i])
            i += step
        bases.append(low)
    return float(x[peak] - max(bases))
