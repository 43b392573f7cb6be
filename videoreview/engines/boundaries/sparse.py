"""TransNetV2 only around the cascade's candidates, each group of them in a window of its own.

The grid of ``TransNetStream`` runs a whole window of 100 frames (50 kept, 25 of context on
each side) wherever a candidate falls among its kept frames or near them: on busy real
footage most candidates stand alone, so each cost 100-200 frames of network. Here marks
closer than ``GROUP`` frames form one group; the rows wanted are the group's frames and
``SLACK`` on each side. Where they fit in the 14 kept frames of a 64-frame window (the same
25 frames of context on each side), one such window is centred on them: 0.41 s against
0.63 s for a window of 100 on 2 cores. A longer group gets windows of 100 laid end to end
over it, as the grid would. Frames before the video's start are copies of its first frame
and frames after its end copies of its last, as the original pads them.

The rows of a 64-frame window are not bit-identical to the grid's (a frame sees 32 frames
on each side rather than 25-75): on 105 candidates of three real clips the largest
difference in the cut probability was 0.14, and one of them crossed the 0.5 threshold.

    stream = SparseTransNet(small, large)      # window predictors of 64 and 100 frames
    rows = stream.push(frames, marks)          # rows for the frames that became final
    rows = stream.finish()
    # rows are [one_hot, many_hot], 0 where no window ran; ``covered`` says where one did
"""

from __future__ import annotations

import numpy as np

from .transnet import MARGIN, SLACK, STEP, WINDOW

SMALL = 64  # frames of the window centred on a short group
KEEP = SMALL - 2 * MARGIN  # 14 rows it gives
GROUP = 8  # marks this close (in frames) share their windows


class SparseTransNet:
    def __init__(self, small, large) -> None:
        self.small, self.large = small, large  # window predictors for SMALL and WINDOW frames
        self.windows = 0
        self.covered: list[np.ndarray] = []  # per row given out: whether a window computed it
        self.emitted = 0  # rows given out: frames 0 .. emitted-1
        self._seen = 0
        self._first = 0  # frame index of self._frames[0]
        self._frames = np.zeros((0, 27, 48, 3), np.uint8)
        self._rows = np.zeros((0, 2), np.float32)  # for frames emitted .. seen-1
        self._done = np.zeros(0, bool)
        self._marks: list[int] = []  # marked frames not yet in a group that ran

    def push(self, frames: np.ndarray, marks: np.ndarray) -> np.ndarray:
        self._marks += (self._seen + np.flatnonzero(marks)).tolist()
        self._frames = np.concatenate([self._frames, frames])
        self._rows = np.concatenate([self._rows, np.zeros((len(frames), 2), np.float32)])
        self._done = np.concatenate([self._done, np.zeros(len(frames), bool)])
        self._seen += len(frames)
        self._run_groups(final=False)
        # A group not yet run writes rows from its first mark - SLACK - KEEP // 2 on.
        frontier = min(self._marks[0] if self._marks else self._seen, self._seen - GROUP)
        return self._emit(frontier - SLACK - KEEP // 2 - 1)

    def finish(self) -> np.ndarray:
        self._run_groups(final=True)
        return self._emit(self._seen)

    def _run_groups(self, final: bool) -> None:
        while self._marks:
            end = 1
            while end < len(self._marks) and self._marks[end] - self._marks[end - 1] <= GROUP:
                end += 1
            first, last = self._marks[0], self._marks[end - 1]
            windows = self._windows(first - SLACK, last + SLACK + 1)
            if not final and (last + GROUP >= self._seen or max(s + n for s, n in windows) > self._seen):
                return  # the group may still grow, or its windows' frames have not come
            for start, size in windows:
                self._run(start, size)
            del self._marks[:end]

    @staticmethod
    def _windows(lo: int, hi: int) -> list[tuple[int, int]]:
        """(first frame, length) of the windows whose kept rows cover frames [lo, hi)."""
        if hi - lo <= KEEP:
            return [((lo + hi) // 2 - KEEP // 2 - MARGIN, SMALL)]
        return [(lo - MARGIN + k * STEP, WINDOW) for k in range(-(-(hi - lo) // STEP))]

    def _run(self, start: int, size: int) -> None:
        index = np.clip(np.arange(start, start + size), 0, self._seen - 1) - self._first
        model = self.small if size == SMALL else self.large
        probs = model(self._frames[index][None])[0][MARGIN:size - MARGIN]
        self.windows += 1
        kept = np.arange(start + MARGIN, start + size - MARGIN)
        ok = (kept >= self.emitted) & (kept < self._seen)
        self._rows[kept[ok] - self.emitted] = probs[ok]
        self._done[kept[ok] - self.emitted] = True

    def _emit(self, upto: int) -> np.ndarray:
        count = max(0, upto - self.emitted)
        rows, self._rows = self._rows[:count], self._rows[count:]
        self.covered.append(self._done[:count])
        self._done = self._done[count:]
        self.emitted += count
        # keep the frames a later window may reach back to (its start: >= emitted - MARGIN - 1)
        drop = max(0, min(self.emitted - MARGIN - 2, self._seen - 1) - self._first)
        self._frames, self._first = self._frames[drop:], self._first + drop
        return rows
