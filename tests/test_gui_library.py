"""The library panel in the real window: a folder dropped on the panel is catalogued and
analysed through the window's queue by the real library process, a query in plain words
lands on the right video, double-clicking a result opens it at the moment, grounding
inside the open video jumps through ranked timestamps, a reviewer's rename is indexed,
a spoken phrase opens its video where it is said, with the words under the picture,
notes added in review are listed among the open notes of every video and open their video
at the note, and a dead library process or a damaged catalog gets one clear message.

Facts the clips were made with (see test_library_cli.py): the cuts clip has no people;
in the face scene P2 is on screen from 2 s to 6 s. They are analysed by the fake engines
(fake_engines.py), which find those people; the spoken phrase needs the real speech engine."""

from __future__ import annotations

import os
import signal

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl  # noqa: E402
from PySide6.QtGui import QDropEvent  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from fake_engines import WITH_PEOPLE  # noqa: E402
from helpers import choose_engines, engines_chosen, make_library_folder  # noqa: E402
from videoreview.gui.main_window import MainWindow  # noqa: E402
from videoreview.pipeline.stages import DEFAULT_ENGINES  # noqa: E402

# Plain words for the cuts clip alone: the fake captions say it of each of its shots, and
# of no shot of the face scene (the builtin captioner said "no people seen" of it instead).
CUTS_QUERY = "something moving in the picture"
INDEX_MS = 300_000  # two clips analysed and indexed (the embedding loads once) on a busy 2-core machine
REPLY_MS = 60_000


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return make_library_folder(tmp_path_factory.mktemp("library gui videos"))


@pytest.fixture(scope="module")
def window(qapp, home):
    choose_engines(WITH_PEOPLE)
    w = MainWindow()
    w.resize(1500, 950)
    w.show()
    yield w
    w.close()


@pytest.fixture(scope="module")
def indexed(qapp, window, folder):
    """The folder dropped on the library panel, then everything analysed and indexed."""
    from pytestqt.qtbot import QtBot

    qtbot = QtBot(qapp)
    wanted = []
    window.library_panel.analyseRequested.connect(wanted.append)
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(folder))])
    window.library_panel.dropEvent(QDropEvent(QPointF(10, 10), Qt.CopyAction, data, Qt.LeftButton, Qt.NoModifier))
    qtbot.waitUntil(lambda: len(set(wanted)) == 2, timeout=REPLY_MS)  # (the queue takes each once)
    assert window.library_panel.queue_status.jobs_list.count() >= 1  # the queue is on show while it works
    qtbot.waitUntil(lambda: window.queue.is_idle() and not window.library.busy()
                    and {v.status for v in window.library_panel.video_list.videos} == {"done"}
                    and len(window.library_panel.video_list.videos) == 2, timeout=INDEX_MS)
    return {os.path.basename(v.path): v for v in window.library_panel.video_list.videos}


def search(qtbot, window, text: str, scope: int = 0, person: str = "Anyone"):
    panel = window.library_panel.search_page
    panel.scope.setCurrentIndex(scope)
    panel.person.setCurrentText(person)
    with qtbot.waitSignal(panel.resultsShown, timeout=REPLY_MS) as shown:
        panel.query.setText(text)
        panel.search()
    return shown.args[0]


def test_a_dropped_folder_is_indexed_with_thumbnails_and_people(qtbot, window, indexed):
    assert sorted(indexed) == ["cuts clip.mp4", "people é.mp4"]
    assert [pid for pid, _ in indexed["people é.mp4"].identities] == ["P1", "P2"]
    items = [window.library_panel.video_list.item(r) for r in range(window.library_panel.video_list.count())]
    assert any("P1, P2" in item.text() for item in items)
    qtbot.waitUntil(lambda: all(item.icon().pixmap(96, 54).toImage().pixel(48, 27) != 0xFF3A3A3A for item in items),
                    timeout=REPLY_MS)  # real thumbnails replaced the grey placeholders
    assert window.documents == {}  # added to the library, not opened


def test_a_plain_query_opens_the_right_video_at_the_moment(qtbot, window, indexed):
    moments = search(qtbot, window, CUTS_QUERY)
    assert moments[0].path == indexed["cuts clip.mp4"].path
    panel = window.library_panel.search_page
    head = panel.results.topLevelItem(0)
    assert "cuts clip.mp4" in head.text(0) and head.childCount() >= 1
    first = head.child(0)
    rect = panel.results.visualItemRect(first)
    # As a user double-clicks: QTest's double-click alone has no press before it.
    QTest.mouseClick(panel.results.viewport(), Qt.LeftButton, Qt.NoModifier, rect.center())
    QTest.mouseDClick(panel.results.viewport(), Qt.LeftButton, Qt.NoModifier, rect.center())
    target = moments[0]
    qtbot.waitUntil(lambda: window.current is not None and window.current.path == target.path
                    and window._opened_in_player == target.path, timeout=REPLY_MS)
    fps = window.current.analysis.video.fps
    qtbot.waitUntil(lambda: window.player.current_frame() == round(target.start * fps), timeout=REPLY_MS)


def test_grounding_in_the_open_video_jumps_through_ranked_timestamps(qtbot, window, indexed):
    people = indexed["people é.mp4"].path
    window.open_at(people, -1.0)
    qtbot.waitUntil(lambda: window._opened_in_player == people, timeout=INDEX_MS)
    moments = search(qtbot, window, "P2 close-up", scope=1)
    assert moments and {m.path for m in moments} == {people}
    assert moments[0].start <= 6.0 and moments[0].end >= 2.0  # P2 is on screen from 2 s to 6 s
    fps = window.current.analysis.video.fps
    for n in range(min(3, len(moments))):
        QTest.keyClick(window, Qt.Key_F3)
        assert window.library_panel.search_page.match == n
        qtbot.waitUntil(lambda: window.player.current_frame() == round(moments[n].start * fps), timeout=REPLY_MS)
    QTest.keyClick(window, Qt.Key_F3, Qt.ShiftModifier)
    assert window.library_panel.search_page.match == max(0, min(3, len(moments)) - 2)


def test_a_rename_in_review_is_searchable_by_name(qtbot, window, indexed):
    people = indexed["people é.mp4"].path
    window.open_at(people, -1.0)
    qtbot.waitUntil(lambda: window.current.path == people and not window.current.busy, timeout=INDEX_MS)
    assert not search(qtbot, window, "Eileen", person="Eileen")
    assert window.review.rename_identity("P2", "Eileen Collins")
    qtbot.waitUntil(lambda: any(name == "Eileen Collins" for v in window.library_panel.video_list.videos
                                for _, name in v.identities), timeout=REPLY_MS)
    found = search(qtbot, window, "close-up", person="Eileen Collins")
    assert found and all(m.path == people and m.start < 6.0 and m.end > 2.0 for m in found)
    assert window.library_panel.search_page.person.findText("Eileen Collins") >= 0  # offered in the filter


def test_queries_that_are_not_words_or_syntax_are_handled(qtbot, window, indexed):
    panel = window.library_panel.search_page
    panel.query.setText("   ")
    panel.search()
    assert panel.results.topLevelItemCount() == 0 and "Type words" in panel.results_label.text()
    assert search(qtbot, window, "?!") == [] and "no words" in panel.results_label.text()
    for text in ('"unclosed', "x'; DROP TABLE videos; --", "日本語 (P1"):
        search(qtbot, window, text)  # answered, not an error
        assert "error" not in panel.results_label.text().lower()
    assert len(search(qtbot, window, "no people " * 500)) > 0  # a pasted paragraph is cut, not refused


def test_a_killed_library_process_fails_its_request_and_comes_back(qtbot, window, indexed):
    panel = window.library_panel.search_page
    child = window.library._thread.child
    os.kill(child.pid, signal.SIGSTOP)  # so the search below is still open when it dies
    with qtbot.waitSignal(panel.resultsShown, timeout=REPLY_MS) as shown:
        panel.query.setText(CUTS_QUERY)
        panel.search()
        qtbot.wait(500)  # the request has gone down the pipe
        os.kill(child.pid, signal.SIGKILL)
    assert shown.args[0] == [] and "stopped unexpectedly" in panel.results_label.text()
    assert search(qtbot, window, CUTS_QUERY)[0].path == indexed["cuts clip.mp4"].path  # a new process
    assert window.library._thread.child.pid != child.pid


@pytest.mark.models  # what the builtin speech engine hears
def test_a_spoken_phrase_opens_its_video_where_it_is_said(qtbot, window, indexed, tmp_path_factory):
    import numpy as np

    from speech import Line, speech_clip
    from videos import encode_frames

    picture = tmp_path_factory.mktemp("picture") / "picture.mp4"
    encode_frames(picture, (np.full((180, 320, 3), (40, 90 + k % 50, 120), np.uint8) for k in range(150)), 25)
    folder = tmp_path_factory.mktemp("narrated")
    path, spoken = speech_clip(folder, "narrated.mp4", picture, [Line(3.0, "The blue umbrella is by the door.")], 6.0)
    (folder / "narrated.mp4.wav").unlink()  # the sound alone: not what the library should list
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(folder))])
    video_list = window.library_panel.video_list
    with engines_chosen({**WITH_PEOPLE, "speech": DEFAULT_ENGINES["speech"]}):
        window.library_panel.dropEvent(QDropEvent(QPointF(10, 10), Qt.CopyAction, data, Qt.LeftButton,
                                                  Qt.NoModifier))
        qtbot.waitUntil(lambda: len(video_list.videos) == 3 and window.queue.is_idle()
                        and not window.library.busy() and {v.status for v in video_list.videos} == {"done"},
                        timeout=INDEX_MS)
    moments = search(qtbot, window, "blue umbrella")
    assert moments[0].path == str(path) and moments[0].kind == "speech"
    assert spoken[0].start - 0.5 <= moments[0].start <= spoken[0].start + 1.0
    panel = window.library_panel.search_page
    rect = panel.results.visualItemRect(panel.results.topLevelItem(0).child(0))
    QTest.mouseClick(panel.results.viewport(), Qt.LeftButton, Qt.NoModifier, rect.center())
    QTest.mouseDClick(panel.results.viewport(), Qt.LeftButton, Qt.NoModifier, rect.center())
    qtbot.waitUntil(lambda: window.current is not None and window.current.path == str(path)
                    and window._opened_in_player == str(path), timeout=REPLY_MS)
    fps = window.current.analysis.video.fps
    qtbot.waitUntil(lambda: window.player.current_frame() == round(moments[0].start * fps), timeout=REPLY_MS)
    qtbot.waitUntil(lambda: window.view.overlay_state()["speech"] is not None, timeout=REPLY_MS)
    assert "umbrella" in window.view.overlay_state()["speech"].lower()  # the words under the picture


def test_open_notes_of_every_video_are_listed_and_open_the_video_at_the_note(qtbot, window, indexed):
    from videoreview.notes import changes

    cuts, people = indexed["cuts clip.mp4"].path, indexed["people é.mp4"].path

    def add_note(path: str, frame: int, text: str, tag: str, status: str = "open") -> None:
        window.open_at(path, -1.0)
        qtbot.waitUntil(lambda: window.current.path == path and not window.current.busy, timeout=INDEX_MS)
        note = changes.new_note(window.current.analysis, frame, text, tag=tag, author="Ada")
        assert window.review.apply_edit("Add a note", lambda a: changes.add_note(a, note))
        if status != "open":
            assert window.review.apply_edit("Resolve", lambda a: changes.change_note(a, note.id, status=status))

    add_note(cuts, 130, "Flash frame after the cut", "red")
    add_note(cuts, 20, "Already fixed", "green", status="resolved")
    add_note(people, 75, "Name the woman on the left", "yellow")
    panel = window.library_panel
    notes = panel.notes_page
    qtbot.waitUntil(lambda: len(notes.notes) == 2, timeout=REPLY_MS)  # the edits indexed, the list refreshed
    assert [(n.path, n.start, n.text, n.tag) for n in notes.notes] == [
        (cuts, 5.2, "Flash frame after the cut", "red"), (people, 3.0, "Name the woman on the left", "yellow")]
    assert panel.tabs.tabText(2) == "Open notes (2)"
    heads = [notes.tree.topLevelItem(n) for n in range(notes.tree.topLevelItemCount())]
    assert [h.text(0) for h in heads] == ["cuts clip.mp4 — 1 open note", "people é.mp4 — 1 open note"]
    assert "Flash frame after the cut" in heads[0].child(0).text(0) and "Ada" in heads[0].child(0).text(0)
    assert heads[0].child(0).text(0).startswith("00:00:05:05  red")  # SMPTE, as the Notes panel writes it

    panel.tabs.setCurrentIndex(2)
    assert window.current.path == people
    rect = notes.tree.visualItemRect(heads[0].child(0))
    QTest.mouseClick(notes.tree.viewport(), Qt.LeftButton, Qt.NoModifier, rect.center())
    QTest.mouseDClick(notes.tree.viewport(), Qt.LeftButton, Qt.NoModifier, rect.center())
    qtbot.waitUntil(lambda: window.current.path == cuts and window._opened_in_player == cuts, timeout=REPLY_MS)
    qtbot.waitUntil(lambda: window.player.current_frame() == 130, timeout=REPLY_MS)  # the note's frame, 5.2 s


def test_a_damaged_catalog_is_reported_and_left_as_it_was(qtbot, home, tmp_path, monkeypatch):
    damaged = tmp_path / "damaged home"
    damaged.mkdir()
    (damaged / "library.sqlite3").write_bytes(b"this is not a database" * 100)
    monkeypatch.setenv("VIDEOREVIEW_HOME", str(damaged))  # the library process inherits it
    w = MainWindow()
    qtbot.addWidget(w)
    try:
        qtbot.waitUntil(lambda: "library.sqlite3" in w.last_notice, timeout=REPLY_MS)
        assert "damaged" in w.last_notice and "library rebuild" in w.last_notice
        assert (damaged / "library.sqlite3").read_bytes() == b"this is not a database" * 100
    finally:
        w.close()
