"""Indexing after an analysis reads no saved file back where the Analysis is at hand: a
video added to the library (library.indexer.add_paths, the command line's `library add`)
is analysed and saved, then indexed from the Analysis the analysis returned. An audit hook
sees each file opened. (The window's library process is another process: it reads the
file the analysis child saved; gui/work/queue_events.py says why.)"""

from __future__ import annotations

import os
import sys

from helpers import Words
from videoreview.library.catalogs import open_catalog
from videoreview.library.indexer import add_paths
from videoreview.pipeline import store

ENGINES = {"boundaries": "fake", "faces": "fake", "captions": "fake"}
READ_FLAGS = os.O_WRONLY | os.O_RDWR  # none of these: opened for reading only

_read: list[str] = []  # files opened for reading while _watching holds
_watching = [False]


def _audit(event: str, args: tuple) -> None:
    if not _watching[0] or event != "open" or isinstance(args[0], int):
        return
    path, mode, flags = args
    if (mode is not None and "r" in mode and "+" not in mode) or (mode is None and not flags & READ_FLAGS):
        _read.append(os.path.realpath(os.fspath(path)))


sys.addaudithook(_audit)  # (a hook stays for the session: this one only looks while _watching holds)


def reads_during(work) -> list[str]:
    _read.clear()
    _watching[0] = True
    try:
        work()
    finally:
        _watching[0] = False
    return list(_read)


def test_adding_a_video_indexes_the_analysis_it_made_without_reading_it_back(fresh_home, cuts_video):
    path = str(cuts_video.path)
    added = []
    read = reads_during(lambda: added.append(add_paths([path], engines=ENGINES, embedder=Words())))
    assert added[0].indexed == [path]
    with open_catalog() as catalog:
        [video] = catalog.videos()
        assert video.status == "done" and catalog.indexed()
    saved = os.path.realpath(store.saved_path(video.content_hash))
    assert os.path.exists(saved) and saved not in read
    # The hook sees a read of it: loading the saved Analysis is one.
    assert saved in reads_during(lambda: store.load_saved(video.content_hash))
