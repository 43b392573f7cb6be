"""Whether a frame can hold text at all: a cheap look before PP-OCR is asked (screen_text.py).

Reading a frame costs ~0.3 s on 2 cores and a coarse detection 0.07 s; this costs a few
milliseconds. It looks for what a line of writing has and texture rarely has: blobs of
one height side by side on one level (the grouping step of Neumann and Matas'
extremal-region text detectors, OpenCV's text module, on one local threshold instead of
every threshold):

1. Blobs: pixels brighter (then darker) than the mean of their ``BLOCK`` x ``BLOCK``
   surroundings by ``CONTRAST`` (light text on dark, and dark on light), in connected
   components. One is character-sized at ``LEVELS``' heights and at most ``WIDEST`` times
   as wide as high: letters that touch (bold type, a small or soft picture) make one blob
   of several letters, counted as its width over ``LETTER`` times its height. Three
   levels (the frame, a half and a quarter of it) so that a 4-pixel caption and a title a
   third of the frame high are both character-sized somewhere.
2. Links: two blobs of one polarity are linked where they sit side by side (the gap at
   most ``GAP`` times the taller one's height), their heights within ``HEIGHT_RATIO`` and
   their tops or their bottoms level (within ``LEVEL`` of the height: capitals share a
   top, lower case a baseline).
3. Lines: a run of linked blobs is text-like where its heights vary little
   (``HEIGHT_SPREAD``) and its box holds little else of its polarity (purity: its blobs'
   pixels over all such pixels in the box; in foliage and gravel other blobs fill the
   gaps). Chance alignments of a few blobs are common in texture, long ones are not: a
   run of ``LONG`` blobs or more needs a purity of ``LONG_PURITY`` (text over a busy
   photograph), one of 4 or 5 ``PURITY``, one of 3 ``FEW_PURITY`` (and ``FEW_HEIGHT``
   pixels of height where they are 3 single letters), and one of 2 blobs (letters that
   touch, in two groups) 4 letters or more, nothing else in its box, ``PAIR_HEIGHT``
   pixels and heights within ``PAIR_SPREAD``.

The thresholds were set on the tuning part of the real-footage corpus and on
benchmarks/ocr_recall.py's frames (benchmarks/bench_text_gate.py, where the figures are).
Text turned more than about 20 degrees from level is not seen as a line.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

LEVELS = ((1, 4, 24), (2, 6, 40), (4, 8, 40))  # (downscale, blob heights at that level)
BLOCK, CONTRAST = 15, 12  # local mean window (pixels), and how far from it a blob's pixels are
WIDEST, LETTER = 4.0, 0.8
GAP, HEIGHT_RATIO, LEVEL = 1.0, 1.5, 0.1
HEIGHT_SPREAD = 0.25  # std of a line's blob heights over their mean
PURITY, LONG, LONG_PURITY = 0.8, 6, 0.4
FEW_HEIGHT, FEW_PURITY = 16, 0.9  # pixels of the frame
PAIR_HEIGHT, PAIR_SPREAD = 16, 0.1


@dataclass(frozen=True)
class Line:
    box: tuple[int, int, int, int]  # x, y, w, h in the frame's pixels
    blobs: int
    letters: int
    height: float  # mean blob height, in the frame's pixels
    spread: float  # std of the blob heights over their mean
    purity: float


def text_like(frame: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Boxes (x, y, w, h in ``frame``'s pixels) of the text-like lines of an RGB frame;
    empty where nothing in it can be text."""
    return [line.box for line in lines(frame) if passes(line)]


def passes(line: Line) -> bool:
    if line.blobs == 2:
        return (line.letters >= 4 and line.purity >= 1.0 and line.height >= PAIR_HEIGHT
                and line.spread <= PAIR_SPREAD)
    if line.spread > HEIGHT_SPREAD:
        return False
    if line.blobs == 3:
        return line.purity >= FEW_PURITY and (line.letters > 3 or line.height >= FEW_HEIGHT)
    return line.purity >= (LONG_PURITY if line.blobs >= LONG else PURITY)


def lines(frame: np.ndarray, plausible: bool = True) -> list[Line]:
    """The runs of linked blobs at every level (with ``plausible``, those with 3 letters or
    more, or 4 in 2 blobs, and heights within ``HEIGHT_SPREAD``: the only ones that may pass)."""
    gray = cv2.cvtColor(frame, cv2.COLOR_RGB2GRAY)
    found: list[Line] = []
    for scale, low, high in LEVELS:
        small = gray if scale == 1 else cv2.resize(gray, (max(1, gray.shape[1] // scale),
                                                           max(1, gray.shape[0] // scale)),
                                                   interpolation=cv2.INTER_AREA)
        blobs, masks = _blobs(small, low, high)
        found.extend(_runs(blobs, masks, scale, plausible))
    return found


def _blobs(gray: np.ndarray, low: int, high: int) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Character-sized blobs (rows of x, y, w, h, area, polarity) and the two polarities' masks."""
    mean = cv2.blur(gray, (BLOCK, BLOCK))
    masks = (cv2.compare(gray, cv2.add(mean, CONTRAST), cv2.CMP_GT),
             cv2.compare(gray, cv2.subtract(mean, CONTRAST), cv2.CMP_LT))
    rows = []
    for polarity, mask in enumerate(masks):
        # 16-bit labels are faster; more components than they hold need more pixels than that
        label_type = cv2.CV_16U if cv2.countNonZero(mask) < 65535 else cv2.CV_32S
        _count, _labels, stats, _centres = cv2.connectedComponentsWithStats(mask, connectivity=8, ltype=label_type)
        _x, _y, w, h, area = stats[1:].T
        keep = (h >= low) & (h <= high) & (w <= WIDEST * h) & (area >= 5)
        rows.append(np.column_stack([stats[1:][keep], np.full(int(keep.sum()), polarity)]))
    return np.concatenate(rows).astype(np.int64), masks


def _runs(blobs: np.ndarray, masks, scale: int, plausible: bool) -> list[Line]:
    """Runs of 2 or more linked blobs. Blobs of about one height (a class: heights low/1.4
    .. 2.8 low) are sorted into rows by their centres, ``low`` pixels a row, twice (the
    rows offset by half a row, so that two centres closer than half a row share a row
    once); neighbours in a row are linked."""
    found: list[Line] = []
    if len(blobs) < 2:
        return found
    x, y, w, h, area, polarity = blobs.T
    centre2 = 2 * y + h
    letters = np.maximum(1, np.floor(w / (LETTER * h) + 0.5)).astype(np.int64)
    low = 4
    while low <= h.max():
        members = np.flatnonzero((h * 1.4 >= low) & (h < 2.8 * low))
        for offset in (0, low) if len(members) >= 2 else ():
            row = ((centre2[members] + offset) // (2 * low)) * 2 + polarity[members]  # polarities apart
            order = np.lexsort((x[members], row))
            found.extend(_linked(blobs[members[order]], row[order], letters[members[order]], masks, scale, plausible))
        low *= 2
    return found


def _linked(blobs: np.ndarray, row: np.ndarray, letters: np.ndarray, masks, scale: int,
            plausible: bool) -> list[Line]:
    """The runs of linked neighbours among ``blobs`` sorted by row, then left to right."""
    x, y, w, h, area, polarity = blobs.T
    taller, shorter = np.maximum(h[1:], h[:-1]), np.minimum(h[1:], h[:-1])
    gap = x[1:] - (x[:-1] + w[:-1])
    tolerance = np.maximum(1, LEVEL * taller)
    flush = (np.abs(y[1:] - y[:-1]) <= tolerance) | (np.abs(y[1:] + h[1:] - y[:-1] - h[:-1]) <= tolerance)
    # side by side: a little overlap allowed (italics, kerning)
    link = (row[1:] == row[:-1]) & (gap <= GAP * taller) & (gap >= -0.3 * shorter) & (taller <= HEIGHT_RATIO * shorter)
    link &= flush
    edges = np.diff(np.concatenate(([0], link.astype(np.int8), [0])))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) + 1  # runs: blobs start..end-1
    if not len(starts):
        return []

    def total(values):  # per run, the sum of ``values`` over its blobs
        sums = np.concatenate(([0], np.cumsum(values)))
        return sums[ends] - sums[starts]

    count = ends - starts
    run_letters = total(letters)
    mean = total(h) / count
    spread = np.sqrt(np.maximum(0.0, total(h * h) / count - mean * mean)) / mean
    keep = np.ones(len(starts), bool)
    if plausible:
        keep = ((run_letters >= 3) & ((count >= 3) | (run_letters >= 4)) & (spread <= HEIGHT_SPREAD))
    found = []
    for k in np.flatnonzero(keep):
        run = slice(starts[k], ends[k])
        x0, y0 = int(x[run].min()), int(y[run].min())
        x1, y1 = int((x[run] + w[run]).max()), int((y[run] + h[run]).max())
        in_box = cv2.countNonZero(masks[int(polarity[starts[k]])][y0:y1, x0:x1])  # the run's blobs lie whole in it
        found.append(Line(box=(x0 * scale, y0 * scale, (x1 - x0) * scale, (y1 - y0) * scale), blobs=int(count[k]),
                          letters=int(run_letters[k]), height=float(mean[k]) * scale, spread=float(spread[k]),
                          purity=int(area[run].sum()) / max(1, in_box)))
    return found
