"""Reviewer notes through the real window: N at the playhead, a range with I and O, a
drawing on the paused frame, resolving, undo, the overlay and the Notes track, and what
survives re-analysis and a restart."""

from __future__ import annotations

import os
import shutil

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QPoint, QPointF, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from fake_engines import WITH_PEOPLE  # noqa: E402
from helpers import choose_engines, main_window  # noqa: E402
from videoreview.gui.main_window import MainWindow  # noqa: E402
from videoreview.notes.author import set_reviewer_name  # noqa: E402
from videoreview.pipeline import store  # noqa: E402

ANALYSIS_MS = 180_000
FRAME_MS = 5_000


@pytest.fixture()
def window(qtbot, home):
    choose_engines(WITH_PEOPLE)  # the fake engines (fake_engines.py): what is checked is the window
    shutil.rmtree(home / "analyses", ignore_errors=True)
    (home / "settings.ini").unlink(missing_ok=True)
    set_reviewer_name("Ada")
    with main_window(qtbot) as w:
        yield w


def open_analysed(qtbot, window: MainWindow, path):
    with qtbot.waitSignal(window.queue.finished, timeout=ANALYSIS_MS,
                          check_params_cb=lambda p, analysis: p == str(path)):
        window.open_paths([str(path)])
    return window.current.analysis


def at(qtbot, window: MainWindow, frame: int) -> None:
    window.player.seek_frame(frame)
    qtbot.waitUntil(lambda: window.player.current_frame() == frame and window.player.settled(), timeout=FRAME_MS)


def type_note(window: MainWindow, text: str) -> None:
    QTest.keyClick(window, Qt.Key_N)
    composer = window.notes_panel.composer
    assert composer.isVisible() and composer.hasFocus()
    QTest.keyClicks(composer, text)
    QTest.keyClick(composer, Qt.Key_Return)


def drag(window: MainWindow, start: tuple[float, float], end: tuple[float, float]) -> None:
    """A mouse drag over the video, from and to points in video pixels."""
    viewport = window.view.viewport()
    a, b = (window.view.mapFromScene(QPointF(*p)) for p in (start, end))
    QTest.mousePress(viewport, Qt.LeftButton, Qt.NoModifier, a)
    QTest.mouseMove(viewport, b)
    QTest.mouseRelease(viewport, Qt.LeftButton, Qt.NoModifier, b)


def test_notes_in_the_window(qtbot, home, window, scene, tmp_path):
    analysis = open_analysed(qtbot, window, scene.path)
    width, height = analysis.video.width, analysis.video.height

    # A range: I at 2 s, O at 3 s, N, type, Enter.
    at(qtbot, window, 50)
    QTest.keyClick(window, Qt.Key_I)
    at(qtbot, window, 75)
    QTest.keyClick(window, Qt.Key_O)
    assert window.timeline.marks() == (2.0, 3.04)
    type_note(window, "Cut this part")
    assert window.timeline.marks() is None
    # A note at the playhead, and a drawing on its frame: an arrow and an ellipse.
    at(qtbot, window, 125)
    type_note(window, "The logo is cut off")
    notes = window.current.analysis.notes
    assert [(n.frame, n.end_frame, n.text, n.author, n.status) for n in notes] == [
        (50, 75, "Cut this part", "Ada", "open"), (125, None, "The logo is cut off", "Ada", "open")]
    QTest.keyClick(window, Qt.Key_D)
    assert window.view.drawing.active
    drag(window, (0.1 * width, 0.2 * height), (0.3 * width, 0.4 * height))
    window.notes_panel.tool_buttons["ellipse"].click()
    drag(window, (0.6 * width, 0.1 * height), (0.8 * width, 0.5 * height))
    QTest.keyClick(window, Qt.Key_D)
    assert not window.view.drawing.active
    drawn = window.current.analysis.notes[1].drawing
    assert [s.kind for s in drawn] == ["arrow", "ellipse"]
    assert drawn[0].points[0] == pytest.approx((0.1, 0.2), abs=0.01)
    assert drawn[1].points[1] == pytest.approx((0.8, 0.5), abs=0.01)

    # The overlay shows the note and its drawing on its frame; the Notes track shows both notes.
    qtbot.waitUntil(lambda: window.view.overlay_state()["notes"] == ["Ada: The logo is cut off"], timeout=FRAME_MS)
    assert len(window.view.overlay_state()["drawing"]) == 2
    image = window.view.grab().toImage()
    red = sum(1 for x in range(0, image.width(), 2) for y in range(0, image.height(), 2)
              if _near(image.pixelColor(x, y), (0xff, 0x3b, 0x30)))
    assert red > 30  # the arrow and the ellipse, in the default pen colour
    at(qtbot, window, 10)
    # A click on the Notes track at the note: selects it and seeks there.
    timeline = window.timeline
    track = timeline.track_rect("notes")
    QTest.mouseClick(timeline, Qt.LeftButton, Qt.NoModifier, QPoint(round(timeline.x_of(5.0)) + 2, track.center().y()))
    assert timeline.selection() == ("note", window.current.analysis.notes[1].id)
    qtbot.waitUntil(lambda: window.player.current_frame() == 125, timeout=FRAME_MS)
    at(qtbot, window, 10)
    assert window.view.overlay_state()["drawing"] == []  # drawings show on their frame only
    assert window.view.overlay_state()["notes"] == []

    # Resolve with the checkbox, filter, undo.
    panel = window.notes_panel
    item = panel.tree.topLevelItem(1)
    item.setCheckState(0, Qt.CheckState.Checked)
    qtbot.waitUntil(lambda: window.current.analysis.notes[1].status == "resolved", timeout=FRAME_MS)
    panel.status_filter.setCurrentText("Open")
    assert [n.text for n in panel.shown_notes()] == ["Cut this part"]
    panel.status_filter.setCurrentText("All")
    panel.search.setText("logo")
    assert [n.text for n in panel.shown_notes()] == ["The logo is cut off"]
    panel.search.clear()
    QTest.keyClick(window, Qt.Key_Z, Qt.ControlModifier)
    assert window.current.analysis.notes[1].status == "open"
    QTest.keyClick(window, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    edited = window.current.analysis
    assert store.load_saved(edited.content_hash).notes == edited.notes  # saved as made

    # Clicking a note in the list seeks to it.
    panel._clicked(panel.tree.topLevelItem(0), 0)
    qtbot.waitUntil(lambda: window.player.current_frame() == 50, timeout=FRAME_MS)
    assert window.timeline.selection() == ("note", edited.notes[0].id)

    # Export for an editor, delete a note, import the file back: the note returns as it was.
    panel.ask_save_path = lambda: str(tmp_path / "notes.edl")
    panel.export_button.click()
    assert (tmp_path / "notes.edl").read_text(encoding="utf-8").count("|C:ResolveColor") == 2
    panel.tree.setCurrentItem(panel.tree.topLevelItem(0))
    panel.delete_selected()
    assert [n.text for n in window.current.analysis.notes] == ["The logo is cut off"]
    panel.ask_open_path = lambda: str(tmp_path / "notes.edl")
    panel.import_button.click()

    def carried(notes):  # what an EDL carries of a note
        return [(n.id, n.frame, n.end_frame, n.text, n.tag, n.status, n.author) for n in notes]

    assert carried(window.current.analysis.notes) == carried(edited.notes)
    QTest.keyClick(window, Qt.Key_Z, Qt.ControlModifier)  # the import is one undoable step
    QTest.keyClick(window, Qt.Key_Z, Qt.ControlModifier)  # and so was the delete
    assert window.current.analysis.notes == edited.notes
    bad = tmp_path / "bad.csv"
    bad.write_text("not, a, notes file\n", encoding="utf-8")
    panel.import_file(str(bad))
    assert window.last_notice.startswith(str(bad)) and "not a notes CSV" in window.last_notice
    assert window.current.analysis.notes == edited.notes

    # Re-analysis keeps the notes exactly; so does a new window (a restart).
    with qtbot.waitSignal(window.queue.finished, timeout=ANALYSIS_MS):
        window.reanalyse_current()
    assert window.current.analysis.notes == edited.notes
    window.close()
    again = MainWindow()
    qtbot.addWidget(again)
    again.show()
    reopened = open_analysed(qtbot, again, scene.path)
    assert reopened.notes == edited.notes
    assert again.notes_panel.tree.topLevelItemCount() == 2
    again.close()


def _near(colour, rgb, tolerance: int = 40) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip((colour.red(), colour.green(), colour.blue()), rgb))


def test_n_without_an_analysis_does_nothing(qtbot, window):
    QTest.keyClick(window, Qt.Key_N)
    QTest.keyClick(window, Qt.Key_D)
    assert not window.notes_panel.composer.isVisible() and not window.view.drawing.active
