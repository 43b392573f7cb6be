"""Indexing after an analysis in the window: the library process is sent the Analysis the
window was just given (what QueueEvents hands the library panel when the queue finishes),
and does not read the saved file again. A real analysis child with the fake engines
(fake_engines.py) and the real library process, with its real text embedding."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

import fake_engines  # noqa: E402
from videoreview.gui.library_panel.cataloguing import Cataloguing  # noqa: E402
from videoreview.gui.work.jobs import AnalysisQueue  # noqa: E402
from videoreview.gui.work.library_client import LibraryClient  # noqa: E402
from videoreview.pipeline import store  # noqa: E402

pytestmark = pytest.mark.gui

ENGINES = {key: fake_engines.FAKE for key in ("boundaries", "faces", "captions")}
INDEX_MS = 120_000  # the library process starts and loads its text embedding


def test_the_library_indexes_the_analysis_the_window_holds_without_reading_it_again(qtbot, fresh_home,
                                                                                    cuts_video):
    queue = AnalysisQueue(ENGINES)
    client = LibraryClient()
    cataloguing = Cataloguing(client)
    try:
        with qtbot.waitSignal(queue.finished, timeout=120_000) as done:
            queue.enqueue(str(cuts_video.path))
        path, analysis = done.args
        saved = store.saved_path(analysis.content_hash)
        saved.unlink()  # a library that read it again would find no analysis to index
        problems, indexed, videos = [], [], []
        cataloguing.problem.connect(problems.append)
        cataloguing.indexed.connect(lambda: indexed.append(path))
        cataloguing.index(path, analysis)  # what the window does when the queue finishes
        qtbot.waitUntil(lambda: bool(indexed or problems), timeout=INDEX_MS)
        assert problems == [] and not saved.exists()
        client.request("videos", done=videos.extend, error=problems.append)
        qtbot.waitUntil(lambda: bool(videos or problems), timeout=INDEX_MS)
        [video] = videos
        assert video.path == os.path.realpath(path) and video.status == "done" and video.content_hash == \
            analysis.content_hash
    finally:
        queue.shutdown()
        client.shutdown()
