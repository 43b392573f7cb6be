"""The main window end to end: real videos dropped on it, analysis in the real child
process with the fake engines (fake_engines.py: cuts by frame difference, the face clip's
two people by their pictures), the timeline, the player, review edits with undo, and what
survives closing the window. One window serves the module's tests (back_to_start between
them); a test that closes its window has its own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl  # noqa: E402
from PySide6.QtGui import QDropEvent, QImage  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from fake_engines import SLOW, WITH_PEOPLE  # noqa: E402
from helpers import back_to_start, choose_engines, engines_chosen, main_window  # noqa: E402
from videoreview.gui.main_window import MainWindow  # noqa: E402
from videoreview.pipeline import edits, store  # noqa: E402
from videos import make_cuts_video  # noqa: E402

ANALYSIS_MS = 180_000  # a full analysis of an 8 s clip on a busy 2-core machine
FRAME_MS = 5_000


@pytest.fixture(scope="module")
def fakes(home):
    """The module's home analyses with the fake engines, the face clip's people included."""
    choose_engines(WITH_PEOPLE)


@pytest.fixture(scope="module")
def shared_window(qapp, home, fakes):
    with main_window() as w:
        yield w


def fresh_start(home) -> None:
    """No saved analyses or settings (the stage cache stays)."""
    shutil.rmtree(home / "analyses", ignore_errors=True)
    (home / "settings.ini").unlink(missing_ok=True)


@pytest.fixture()
def window(qtbot, home, shared_window):
    back_to_start(qtbot, shared_window)
    fresh_start(home)
    return shared_window


@pytest.fixture()
def own_window(qtbot, home, fakes):
    """A window of the test's own, for a test that closes it."""
    fresh_start(home)
    with main_window(qtbot) as w:
        yield w


def drop(window: MainWindow, *paths) -> None:
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    event = QDropEvent(QPointF(300, 300), Qt.CopyAction, data, Qt.LeftButton, Qt.NoModifier)
    window.dropEvent(event)


def analysed(qtbot, window: MainWindow, *paths):
    with qtbot.waitSignal(window.queue.finished, timeout=ANALYSIS_MS,
                          check_params_cb=lambda path, analysis: path == str(paths[-1])):
        drop(window, *paths)
    return window.documents[str(paths[-1])].analysis


def shown(qtbot, window: MainWindow, frame: int) -> None:
    qtbot.waitUntil(lambda: window.player.current_frame() == frame, timeout=FRAME_MS)


def test_drop_fills_the_timeline_stage_by_stage(qtbot, window, scene):
    fills = []
    window.queue.partial.connect(lambda path, analysis: fills.append(sorted(analysis.engines)))
    analysis = analysed(qtbot, window, scene.path)
    # Run order (registry.analysis_capabilities): the fakes' stages, speakers after speech.
    stages = ["boundaries", "faces", "expressions", "objects", "poses", "speech", "speakers", "screen-text",
              "captions"]
    assert fills[-1] == sorted(stages)
    assert all(fill == sorted(stages[:len(fill)]) for fill in fills), fills  # each partial adds the next ones
    assert analysis.engines["objects"] == analysis.engines["poses"] == "fake@1"
    assert window.current.path == str(scene.path) and window.timeline.analysis() == analysis
    assert [b.frame for b in analysis.boundaries if b.kind == "cut"] == list(scene.cut_frames)
    assert [i.id for i in analysis.identities] == ["P1", "P2"]
    for pid in ("P1", "P2"):
        assert not window.timeline.track_rect(f"faces:{pid}").isNull()
    assert window.gallery.count() == 2 and window.videos.count() == 1
    assert store.load_saved(analysis.content_hash) == analysis
    shown(qtbot, window, 0)  # the player opened the video on its first frame


def test_not_a_video_drop_shows_a_message_and_changes_nothing(qtbot, window, scene, cuts_video, bad_inputs,
                                                               tmp_path):
    analysed(qtbot, window, scene.path)
    analysed(qtbot, window, cuts_video.path)
    window.show_document(window.documents[str(scene.path)])  # the first of two open videos is shown
    before = (window.current, dict(window.documents))
    empty = tmp_path / "empty folder"
    empty.mkdir()
    drop(window, bad_inputs["text"], empty)
    assert "notes.txt: not a video file" in window.last_notice
    assert "empty folder: no video files" in window.last_notice
    assert window.notice_label.isVisible()
    assert (window.current, window.documents) == before and window.queue.is_idle()

    # A file named like a video that is not one: refused by the analysis, then forgotten.
    with qtbot.waitSignal(window.queue.failed, timeout=ANALYSIS_MS):
        drop(window, bad_inputs["text_as_mp4"])
    assert "notes.mp4" in window.last_notice
    assert (window.current, window.documents) == before


def test_seeking_by_click_and_keys_lands_on_the_right_frame(qtbot, window, scene):
    analysis = analysed(qtbot, window, scene.path)
    shown(qtbot, window, 0)
    timeline = window.timeline
    timeline.zoom_to_fit()
    ruler = timeline.track_rect("ruler")
    x = round(timeline.x_of(3.02))  # inside frame 75
    QTest.mouseClick(timeline, Qt.LeftButton, Qt.NoModifier, QPoint(x, ruler.center().y()))
    target = round(timeline.time_at(x) * 25 - 0.5)
    assert abs(target - 75) <= 1
    shown(qtbot, window, target)

    window.player.seek_frame(75)
    shown(qtbot, window, 75)
    for key, modifier, frame in ((Qt.Key_Right, Qt.NoModifier, 76), (Qt.Key_Left, Qt.NoModifier, 75),
                                 (Qt.Key_Left, Qt.ShiftModifier, 0),  # 5 s back from 3 s: the first frame
                                 (Qt.Key_Right, Qt.ShiftModifier, 125), (Qt.Key_Home, Qt.NoModifier, 0),
                                 (Qt.Key_BracketRight, Qt.NoModifier, scene.cut_frames[0]),
                                 (Qt.Key_BracketRight, Qt.NoModifier, scene.cut_frames[1]),
                                 (Qt.Key_BracketLeft, Qt.NoModifier, scene.cut_frames[0]),
                                 (Qt.Key_End, Qt.NoModifier, analysis.video.frame_count - 1)):
        QTest.keyClick(window, key, modifier)
        shown(qtbot, window, frame)
    # the playhead follows the frame shown
    assert timeline.position() == pytest.approx(window.player.current_time(), abs=1e-6)


def test_overlays_show_what_the_analysis_says_at_the_frame_shown(qtbot, window, scene):
    analysis = analysed(qtbot, window, scene.path)
    window.player.seek_frame(5 * 25)  # shot 3: both people
    shown(qtbot, window, 125)
    state = window.view.overlay_state()
    assert sorted(label for label, _ in state["faces"]) == ["P1", "P2"]
    caption = [c for c in analysis.captions if c.time <= 5.0][-1]
    assert state["caption"] == caption.text
    assert state["boundary"] is None
    window.player.seek_frame(scene.cut_frames[0])  # on a cut: the flash and its label
    shown(qtbot, window, scene.cut_frames[0])
    assert state_label(window).startswith("cut")
    QTest.keyClick(window, Qt.Key_1, Qt.AltModifier)  # Alt+1: caption overlay off
    assert window.view.overlay_state()["caption"] is None
    assert not window.transport.overlay_buttons["captions"].isChecked()


def test_the_window_fits_a_small_screen_with_a_video_open(qtbot, window, scene):
    """What the transport row and the panels show must not hold the window wider than a
    1280-pixel screen leaves, at any frame (the time label once grew with the frame number)."""
    analysed(qtbot, window, scene.path)
    for frame in (0, scene.frame_count - 1):
        window.player.seek_frame(frame)
        shown(qtbot, window, frame)
        assert window.minimumSizeHint().width() <= 1100


def state_label(window) -> str:
    return window.view.overlay_state()["boundary"] or ""


def test_edits_undo_redo_and_they_survive_closing_and_reanalysis(qtbot, home, own_window, scene):
    window = own_window
    analysis = analysed(qtbot, window, scene.path)
    cuts = list(scene.cut_frames)
    # identity: a name; boundaries: one moved three frames (drag on the timeline), one deleted, one added
    assert window.review.rename_identity("P1", "Grace")
    window.timeline.boundaryDragged.emit(cuts[1], (cuts[1] + 3) / 25)
    window.select("boundaries", cuts[2])
    QTest.keyClick(window, Qt.Key_Delete)
    window.player.seek_frame(30)
    shown(qtbot, window, 30)
    QTest.keyClick(window, Qt.Key_B)
    frames = sorted(b.frame for b in window.current.analysis.boundaries)
    assert frames == sorted([cuts[0], cuts[1] + 3, 30])
    assert window.current.undo_stack.count() == 4
    edited = window.current.analysis

    for _ in range(4):
        QTest.keyClick(window, Qt.Key_Z, Qt.ControlModifier)
    assert window.current.analysis == analysis
    assert store.load_saved(analysis.content_hash) == analysis
    for _ in range(4):
        QTest.keyClick(window, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    assert window.current.analysis == edited
    assert window.gallery.item(0).text().startswith("Grace (P1)")
    window.close()

    # A new window (a new run of the app): the saved edits, then re-analysis keeps them.
    again = MainWindow()
    qtbot.addWidget(again)
    again.show()
    reopened = analysed(qtbot, again, scene.path)
    assert sorted(b.frame for b in reopened.boundaries) == frames
    assert [b.edited for b in reopened.boundaries if b.frame in (cuts[1] + 3, 30)] == [True, True]
    assert next(i for i in reopened.identities if i.id == "P1").name == "Grace"
    again.close()


def test_identity_merge_and_split_from_the_details_panel(qtbot, window, scene):
    analysis = analysed(qtbot, window, scene.path)
    window.select("faces", "P1")
    panel, page = window.details, window.details.page("faces")
    assert panel.kind == "faces" and page.merge_with.count() == 1
    page.merge_with.setCurrentIndex(0)
    page._merge()  # "Merge into this": P2 is P1
    assert [i.id for i in window.current.analysis.identities] == ["P1"]
    window.select("faces", "P1")
    tracks = page.tracks.count()
    assert tracks >= 2
    page.tracks.setCurrentRow(page.tracks.count() - 1)
    page._track_action("Split track", edits.split_track)
    assert len(window.current.analysis.identities) == 2
    window.review.undo()
    window.review.undo()
    assert window.current.analysis == analysis


def test_fixing_an_identity_from_its_face_box(qtbot, window, scene):
    analysis = analysed(qtbot, window, scene.path)
    window.player.seek_frame(125)  # shot 3: P1 left, P2 right
    shown(qtbot, window, 125)
    faces = {face.identity: face for face in window.view.shown_faces()}
    x, y, w, h = faces["P2"].box
    where = window.view.mapFromScene(QPointF(x + w / 2, y + h / 2))
    assert window.view.face_at(where) == faces["P2"]
    QTest.mouseClick(window.view.viewport(), Qt.LeftButton, Qt.NoModifier, where)
    assert (window.details.kind, window.details.key) == ("faces", "P2")

    menu = window.review.face_menu(faces["P2"])
    same = next(a.menu() for a in menu.actions() if a.text() == "Same person as")
    next(a for a in same.actions() if a.text() == "P1").trigger()
    assert [i.id for i in window.current.analysis.identities] == ["P1"]
    assert sorted(label for label, _ in window.view.overlay_state()["faces"]) == ["P1", "P1"]
    window.review.undo()
    assert window.current.analysis == analysis
    menu = window.review.face_menu(faces["P2"])
    next(a for a in menu.actions() if a.text().startswith("Someone else")).trigger()
    assert len(window.current.analysis.identities) == 3  # that track of P2 is a new person


def test_cancel_mid_analysis_leaves_a_usable_window_and_nothing_saved(qtbot, window, home, tmp_path, scene):
    fresh = make_cuts_video(tmp_path, cut_frames=(40, 90), frames=150, name="fresh.mp4")  # not in the cache

    def cancel_when_faces_start(progress):
        if progress.stage == "faces":
            QTest.keyClick(window, Qt.Key_Escape)

    window.queue.progress.connect(cancel_when_faces_start)
    with engines_chosen({**WITH_PEOPLE, "faces": SLOW}), qtbot.waitSignal(window.queue.cancelled,
                                                                          timeout=ANALYSIS_MS):
        drop(window, fresh.path)  # (the faces stage takes seconds: the cancel arrives while it runs)
    window.queue.progress.disconnect(cancel_when_faces_start)
    document = window.documents[str(fresh.path)]
    assert document.status == "cancelled" and document.analysis is None
    assert window.timeline.analysis() is None  # no partial results left on screen
    assert not (home / "analyses").exists() or not list((home / "analyses").iterdir())
    # still usable: another video analyses and plays
    analysed(qtbot, window, scene.path)
    window.player.seek_frame(10)
    shown(qtbot, window, 10)


def test_layout_and_toggles_are_remembered(qtbot, home):
    (home / "settings.ini").unlink(missing_ok=True)
    first = MainWindow()
    qtbot.addWidget(first)
    first.setWindowState(Qt.WindowState.WindowNoState)  # (the first run maximizes it on the small offscreen screen)
    first.resize(1234, 600)
    first.show()
    first.menus.overlays["faces"].setChecked(False)
    first.identities_dock.hide()
    first.close()
    second = MainWindow()
    qtbot.addWidget(second)
    second.show()
    # (the offscreen screen is 800 px wide: only the height can come back exactly)
    assert second.height() == 600
    assert not second.menus.overlays["faces"].isChecked() and not second.view.overlay_visible("faces")
    assert second.identities_dock.isHidden()
    second.close()


def test_command_line_screenshot(home, fakes, scene, bad_inputs, tmp_path):
    out = tmp_path / "shot.png"
    env = dict(os.environ, VIDEOREVIEW_HOME=str(home), QT_QPA_PLATFORM="offscreen")
    run = subprocess.run([sys.executable, "-m", "videoreview", "gui", str(scene.path), "--screenshot", str(out),
                          "--at", "5", "--size", "1280x800"], env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1280, 800)
    assert len({image.pixel(x, y) for x in range(0, 1280, 40) for y in range(0, 800, 40)}) > 50  # not blank

    bad = subprocess.run([sys.executable, "-m", "videoreview", "gui", str(bad_inputs["text"]), "--screenshot",
                          str(tmp_path / "no.png")], env=env, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1 and "notes.txt: not a video file" in bad.stderr
    assert not (tmp_path / "no.png").exists()
    late = subprocess.run([sys.executable, "-m", "videoreview", "gui", str(scene.path), "--screenshot",
                           str(tmp_path / "late.png"), "--at", "99"], env=env, capture_output=True, text=True,
                          timeout=600)
    assert late.returncode == 1 and "--at 99 is outside the video" in late.stderr


def test_no_command_opens_the_window(fresh_home):
    """`videoreview` alone is what a double-click runs: the window, not the help text."""
    env = dict(os.environ, VIDEOREVIEW_HOME=str(fresh_home), QT_QPA_PLATFORM="offscreen")
    app = subprocess.Popen([sys.executable, "-m", "videoreview"], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        # The open window's event loop asks the library process for its catalog, which makes it.
        deadline = time.monotonic() + 60
        while not (fresh_home / "library.sqlite3").exists() and app.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert (fresh_home / "library.sqlite3").exists() and app.poll() is None  # still running
    finally:
        app.terminate()
        out, _ = app.communicate(timeout=30)
    assert "usage:" not in out


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="needs Xvfb (scripts/setup installs it as root)")
def test_screenshot_on_a_real_x_server(home, fakes, scene, tmp_path):
    """The X11 platform plugin a desktop user gets (not offscreen) loads and draws the window."""
    out = tmp_path / "x11.png"
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env["VIDEOREVIEW_HOME"] = str(home)
    run = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", sys.executable, "-m", "videoreview",
                          "gui", str(scene.path), "--screenshot", str(out), "--at", "5", "--size", "1280x800"],
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1280, 800)
    assert len({image.pixel(x, y) for x in range(0, 1280, 40) for y in range(0, 800, 40)}) > 50
