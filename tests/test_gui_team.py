"""The window on a team library (a real PostgreSQL): another reviewer's note reaches the
open video within 2 s through LISTEN/NOTIFY, this window's own notes kept; a server that
stops mid-run is said in one line, and the window listens again when it is back."""

from __future__ import annotations

import os
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from fake_engines import ENGINES  # noqa: E402
from helpers import choose_engines, main_window  # noqa: E402
from videoreview.library.team import server  # noqa: E402
from videoreview.library.team.catalog import TeamCatalog  # noqa: E402
from videoreview.library.team.url import display  # noqa: E402
from videoreview.notes import changes  # noqa: E402

ANALYSIS_MS = 120_000


@pytest.fixture
def team_window(qtbot, home, team_url, monkeypatch):
    choose_engines(ENGINES, home)
    monkeypatch.setenv("VIDEOREVIEW_LIBRARY", team_url)
    with main_window(qtbot) as window:
        yield window


def opened(qtbot, window, video):
    window.open_paths([str(video.path)])
    document = window.documents[str(video.path)]
    qtbot.waitUntil(lambda: document.status == "done", timeout=ANALYSIS_MS)
    return document


def test_another_reviewers_note_reaches_the_open_video_within_2_s(qtbot, team_window, team_url, cuts_video):
    document = opened(qtbot, team_window, cuts_video)
    mine = changes.new_note(document.analysis, 10, "Mine, not yet in the library", author="Me")
    assert document.edit("Add note", lambda a: changes.add_note(a, mine)) is None
    with TeamCatalog(team_url) as elsewhere:  # another reviewer's machine
        video_id, _ = elsewhere.add_video(cuts_video.path, document.analysis.content_hash)
        theirs = changes.add_note(document.analysis, changes.new_note(document.analysis, 20, "From Grace",
                                                                      author="Grace"))
        sent = time.monotonic()
        elsewhere.index_analysis(video_id, theirs)
    qtbot.waitUntil(lambda: any(n.author == "Grace" for n in document.analysis.notes), timeout=2_000)
    print(f"a note reached the open window in {time.monotonic() - sent:.2f} s")
    assert sorted(n.text for n in document.analysis.notes) == ["From Grace", "Mine, not yet in the library"]
    assert team_window.notes_panel.isEnabled()


def test_a_server_that_stops_is_said_once_and_heard_again(qtbot, home, monkeypatch):
    folder = tempfile.mkdtemp(prefix="videoreview-pg-stop-")
    url = server.start(folder)
    port = int(url.split(":")[2].split("/")[0])
    try:
        TeamCatalog(url).close()
        monkeypatch.setenv("VIDEOREVIEW_LIBRARY", url)
        with main_window(qtbot) as window:
            said, back = [], []
            window.team_listener.problem.connect(said.append)
            window.team_listener.back.connect(lambda: back.append(True))
            qtbot.wait(300)  # listening
            server.stop(folder)
            qtbot.waitUntil(lambda: bool(said), timeout=10_000)
            qtbot.wait(5_000)  # down for a while: said once, not once per try
            assert len(said) == 1 and "\n" not in said[0] and "cannot be reached" in said[0]
            assert "listening again" in said[0] and display(url) in said[0]
            server.start(folder, port)
            qtbot.waitUntil(lambda: bool(back), timeout=15_000)
    finally:
        server.stop(folder)


def test_settings_take_a_team_librarys_url(qtbot, home, team_url, monkeypatch):
    monkeypatch.delenv("VIDEOREVIEW_LIBRARY", raising=False)
    (home / "library-location.json").unlink(missing_ok=True)
    with main_window(qtbot) as window:
        assert window.team_listener is None
        window.show_settings()
        dialog = window.settings_dialog
        dialog.library.setText("postgresql://ada:secret@db.example.org/videos")
        dialog.change_library(dialog.library.text())
        assert "holds a password" in dialog.status.text() and window.team_listener is None  # nothing changed
        dialog.change_library(team_url)
        assert dialog.status.text() == f"The library is now the team library at {team_url}."
        assert dialog.library.text() == team_url and window.team_listener is not None
        dialog.close()
    (home / "library-location.json").unlink()
