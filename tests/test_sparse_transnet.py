"""Wiring of the sparse TransNetV2 windows (engines/boundaries/sparse.py): which windows run
around which candidates, and that each row lands on its frame. The predictor is a stand-in
that echoes each frame's number, so a row says which frame it was computed for."""

from __future__ import annotations

import numpy as np
import pytest

from videoreview.engines.boundaries.sparse import SMALL, SparseTransNet
from videoreview.engines.boundaries.transnet import WINDOW


class Echo:
    def __init__(self, size: int) -> None:
        self.size, self.starts = size, []

    def __call__(self, windows: np.ndarray) -> np.ndarray:
        assert windows.shape[1:] == (self.size, 27, 48, 3)
        number = windows[..., 0, 0, 0].astype(np.float32) + 256 * windows[..., 0, 0, 1].astype(np.float32)
        self.starts.append(int(number[0, 0]))
        return np.stack([number, -number], axis=-1)


def numbered(n: int) -> np.ndarray:
    frames = np.zeros((n, 27, 48, 3), np.uint8)
    frames[:, 0, 0, 0], frames[:, 0, 0, 1] = np.arange(n) % 256, np.arange(n) // 256
    return frames


def run(n: int, marked: list[int], chunk: int):
    small, large = Echo(SMALL), Echo(WINDOW)
    stream = SparseTransNet(small, large)
    frames, marks = numbered(n), np.zeros(n, bool)
    marks[marked] = True
    rows = [stream.push(frames[i:i + chunk], marks[i:i + chunk]) for i in range(0, n, chunk)]
    rows = np.concatenate([*rows, stream.finish()])
    return rows, np.concatenate(stream.covered), small, large


@pytest.mark.parametrize("chunk", [7, 60, 1000])
def test_each_row_is_its_frames_and_only_the_groups_are_covered(chunk):
    rows, covered, small, large = run(600, [100, 104, 300, *range(400, 440)], chunk)
    assert len(rows) == len(covered) == 600
    computed = np.flatnonzero(covered)
    np.testing.assert_array_equal(rows[computed, 0], computed)  # every computed row is its own frame's
    assert not rows[~covered].any()
    # 100 and 104 are one group: one small window, centred, covering both and SLACK (4) around
    assert covered[96:109].all() and not covered[80:90].any()
    assert covered[296:305].all()
    assert covered[396:444].all()  # the long group: windows of 100 laid over it
    assert len(small.starts) == 2 and len(large.starts) == 1


def test_windows_at_the_ends_are_padded_with_the_first_and_last_frames():
    rows, covered, small, _ = run(50, [0, 49], 50)
    assert small.starts == [0, 17]  # the first begins before frame 0 (copies of it), the last runs past 49
    assert covered[:5].all() and covered[45:].all()
    np.testing.assert_array_equal(rows[covered, 0], np.flatnonzero(covered))


def test_no_mark_runs_nothing():
    rows, covered, small, large = run(300, [], 64)
    assert len(rows) == 300 and not covered.any() and small.starts == large.starts == []
