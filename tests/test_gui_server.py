"""A model server set up in Settings captions a clip in the window (through the loopback
server of model_server.py), with the notice of where frames go, progress and cancel."""

from __future__ import annotations

import os
import shutil

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from fake_engines import ENGINES  # noqa: E402
from helpers import choose_engines  # noqa: E402
from model_server import ModelServer  # noqa: E402
from tiny_vlm import colour_clip  # noqa: E402
from videoreview.gui.dialogs.settings_dialog import SettingsDialog  # noqa: E402
from videoreview.gui.main_window import MainWindow  # noqa: E402
from videoreview.models.servers import Server  # noqa: E402

ANALYSIS_MS = 180_000


@pytest.fixture()
def loopback():
    server = ModelServer()
    yield server
    server.close()


@pytest.fixture()
def window(qtbot, home):
    shutil.rmtree(home / "analyses", ignore_errors=True)
    choose_engines(ENGINES)  # the fake engines (fake_engines.py) for what the test does not choose
    (home / "servers.json").unlink(missing_ok=True)
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    yield w
    w.close()


def test_a_server_from_settings_captions_in_the_window_and_cancel_stops_it(qtbot, window, loopback, tmp_path):
    settings = SettingsDialog(window)
    qtbot.addWidget(settings)
    settings.servers.ask = lambda entry: Server("box", loopback.url, "colours", concurrency=2)
    settings.servers.add()
    combo = settings.engines.choices["captions"]
    combo.setCurrentIndex(combo.findData("server:box"))
    combo.activated.emit(combo.currentIndex())
    for key in ("faces", "speech", "screen-text"):  # only what this test is about, where it can be off
        other = settings.engines.choices[key]
        if other.findData("none") >= 0:
            other.setCurrentIndex(other.findData("none"))
            other.activated.emit(other.currentIndex())
    settings.close()

    notices = []
    window.queue.notice.connect(notices.append)
    clip = colour_clip(tmp_path / "colours.mp4", seconds=1)
    with qtbot.waitSignal(window.queue.finished, timeout=ANALYSIS_MS):
        window.open_paths([str(clip)])
    analysis = window.current.analysis
    assert analysis.engines["captions"] == "server:box@1-colours"
    assert [c.text for c in sorted(analysis.captions, key=lambda c: c.time)] == \
        ["a red frame.", "a blue frame.", "a green frame."]
    assert any("sent to the model server box" in n and loopback.url in n for n in notices)

    # A slow server: progress moves, then cancel stops the sending and keeps nothing.
    loopback.script = [("slow", 1.0)] * 100
    before = len(loopback.requests)
    longer = colour_clip(tmp_path / "longer.mp4", seconds=4)
    fractions = []
    window.queue.progress.connect(lambda p: fractions.append(p.fraction))
    window.open_paths([str(longer)])
    qtbot.waitUntil(lambda: len(loopback.requests) > before, timeout=ANALYSIS_MS)
    with qtbot.waitSignal(window.queue.cancelled, timeout=30_000):
        window.cancel_current()
    sent = len(loopback.requests) - before
    assert 0 < sent < 12  # 12 sampled frames: cancelled before all were asked
    assert fractions and max(fractions) < 1.0
    assert window.documents[str(longer)].analysis is None


def test_a_server_is_offered_to_score_and_write_summaries(qtbot, window, loopback):
    from videoreview.gui.summaries.model_choice import ModelChoice
    from videoreview.models.servers import add_server

    add_server(Server("box", loopback.url, "colours"))
    settings = SettingsDialog(window)
    qtbot.addWidget(settings)
    assert settings.engines.choices["scoring"].findData("server:box") >= 0
    settings.close()
    scorer = ModelChoice("builtin (approximate)", "A VLM model folder to score with", "scoring")
    qtbot.addWidget(scorer)
    scorer.choose("server:box")
    again = ModelChoice("builtin (approximate)", "A VLM model folder to score with", "scoring")  # a new window
    qtbot.addWidget(again)
    assert again.spec() == "server:box" and again.currentText() == "server:box (colours)"
