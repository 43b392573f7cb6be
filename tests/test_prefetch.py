"""Decoding ahead in a thread: same items in the same order, errors raised in the caller,
and nothing left running when the caller stops early."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from videoreview.errors import MediaError
from videoreview.media import open_video
from videoreview.media.prefetch import prefetched


def prefetch_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "videoreview-prefetch"]


def test_same_items_in_order():
    assert list(prefetched(iter(range(500)), depth=3)) == list(range(500))
    assert list(prefetched(iter([]))) == []
    assert not prefetch_threads()


def test_error_in_producer_is_raised_in_caller_after_earlier_items():
    def items():
        yield 1
        yield 2
        raise MediaError("/videos/a.mp4", "decoding failed at frame 3")

    got = []
    with pytest.raises(MediaError, match="a.mp4.*frame 3"):
        for item in prefetched(items()):
            got.append(item)
    assert got == [1, 2]
    assert not prefetch_threads()


def test_stopping_early_stops_and_closes_the_producer():
    closed = threading.Event()

    def endless():
        try:
            n = 0
            while True:
                yield n
                n += 1
        finally:
            closed.set()

    stream = prefetched(endless(), depth=2)
    assert [next(stream) for _ in range(5)] == [0, 1, 2, 3, 4]
    stream.close()  # what a for loop does on break or when an exception passes through it
    assert closed.is_set()
    assert not prefetch_threads()


def test_real_decoding_matches_and_source_closes_right_after(index_video):
    with open_video(index_video.path) as src:
        plain = list(src.iter_batches(size=(64, 36), batch=30))
    with open_video(index_video.path) as src:
        ahead = prefetched(src.iter_batches(size=(64, 36), batch=30))
        first = next(ahead)
        ahead.close()  # stop mid-file, then the source closes: the thread must be done
    assert np.array_equal(first.frames, plain[0].frames)
    with open_video(index_video.path) as src:
        ahead = list(prefetched(src.iter_batches(size=(64, 36), batch=30)))
    assert [b.indices.tolist() for b in ahead] == [b.indices.tolist() for b in plain]
    assert all(np.array_equal(a.frames, b.frames) for a, b in zip(ahead, plain))
    assert not prefetch_threads()
