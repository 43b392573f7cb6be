"""The Summaries panel on a real analysis: building summaries, editing their text with
undo, ViSIL with the builtin scorer in the real child process (and cancelled, and with a
folder that is not a model), and the exports."""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from fake_engines import WITH_PEOPLE  # noqa: E402
from helpers import choose_engines  # noqa: E402
from videoreview.gui.main_window import MainWindow  # noqa: E402
from videoreview.pipeline import store  # noqa: E402

ANALYSIS_SECONDS = 240  # one full analysis of an 8 s clip on a busy 2-core machine
VISIL_MS = 120_000  # a child process, loading the text embedding, four scoring calls


def wait_until(app, condition, timeout: float) -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise TimeoutError("the window did not get there in time")
        app.processEvents()
        QTest.qWait(20)


@pytest.fixture(scope="module")
def window(qapp, home, scene):
    """One window with the face scene analysed (8 s, four shots, two people), for the module,
    by the fake engines (fake_engines.py): the summaries are built from what they found."""
    choose_engines(WITH_PEOPLE)
    w = MainWindow()
    w.resize(1500, 1000)
    w.show()
    w.summary_panel.exports.reveal_exports = False
    w.open_paths([str(scene.path)])
    wait_until(qapp, lambda: w.current is not None and w.current.status == "done", ANALYSIS_SECONDS)
    yield w
    w.close()


@pytest.fixture()
def panel(window):
    panel = window.summary_panel
    if not window.current.analysis.summaries:
        panel.build()
    return panel


def test_build_shows_the_summaries_side_by_side_with_keyframes(qtbot, window):
    panel = window.summary_panel
    assert panel.columns == [] and "Build summaries" in panel.empty.text()
    assert not panel.compute_button.isEnabled()
    panel.extra.setValue(2)
    qtbot.mouseClick(panel.build_button, Qt.LeftButton)
    analysis = window.current.analysis
    assert [len(s.keyframe_frames) for s in analysis.summaries] == [0, 1, 2, 3]
    assert store.load_saved(analysis.content_hash) == analysis  # an edit: saved as it is made
    assert [c.title.text() for c in panel.columns] == ["<b>Text only</b>", "<b>1 keyframe + text</b>",
                                                       "<b>2 keyframes + text</b>", "<b>3 keyframes + text</b>"]
    assert panel.columns[3].text.toPlainText() == analysis.summaries[3].text
    assert panel.compute_button.isEnabled()
    three = panel.columns[3]
    qtbot.waitUntil(lambda: three.loaded == set(three.thumbs), timeout=30_000)  # decoded off the GUI thread
    assert not three.thumbs[analysis.summaries[3].keyframe_frames[0]].icon().isNull()
    assert panel.columns[1].report.isChecked()  # the PDF's summary: the first with keyframes, by default

    # A thumbnail shows its keyframe in the player; the builder's keyframes fall on frames.
    last = analysis.summaries[3].keyframe_frames[-1]
    assert three.thumbs[last].text().startswith("3: ")
    qtbot.mouseClick(three.thumbs[last], Qt.LeftButton)
    qtbot.waitUntil(lambda: window.player.current_frame() == last, timeout=5_000)

    window.review.undo()  # building is one undoable step
    assert window.current.analysis.summaries == () and panel.columns == []
    window.review.redo()
    assert len(panel.columns) == 4


def test_editing_a_text_is_an_undoable_edit_marked_edited(qtbot, window, panel):
    before = window.current.analysis
    column = panel.columns[1]
    text = "A reviewer's summary: Grace, then [KEYFRAME1], then Eileen."
    column.text.setFocus()
    column.text.setPlainText(text)
    QTest.keyClick(column.text, Qt.Key_Return, Qt.ControlModifier)
    summary = window.current.analysis.summaries[1]
    assert summary.text == text and summary.edited
    assert column.badge.isVisibleTo(panel) and window.menus.undo.text() == "&Undo Edit summary"

    # Dropping a placeholder is refused with a message; nothing changes.
    column.text.setPlainText("No keyframe any more.")
    panel.setFocus()  # focus-out commits
    column.text.commit()
    assert "[KEYFRAME1]" in window.last_notice and window.current.analysis.summaries[1] == summary

    window.review.undo()
    assert window.current.analysis == before
    assert column.text.toPlainText() == before.summaries[1].text and not column.badge.isVisibleTo(panel)


@pytest.mark.models  # the builtin scorer's MiniLM
def test_visil_with_the_builtin_scorer_in_a_child_process(qtbot, window, panel, tmp_path):
    panel.set_scorer("builtin")
    summaries = window.current.analysis.summaries
    with qtbot.waitSignal(panel.job.finished, timeout=VISIL_MS):
        assert panel.compute_visil()
        assert panel.comparison_view.cancel_button.isVisibleTo(panel) and not panel.compute_button.isEnabled()
    comparison = panel.comparisons[window.current.path]
    assert panel.comparison_view.table.rowCount() == len(summaries) == len(comparison.rows)
    for row in range(panel.comparison_view.table.rowCount()):
        assert math.isfinite(float(panel.comparison_view.table.item(row, 1).text()))
        assert int(panel.comparison_view.table.item(row, 2).text()) > 0
    table = panel.comparison_view.table
    assert any(table.item(row, 3).text() == "✓" for row in range(table.rowCount()))
    title = panel.comparison_view.result_title.text()
    assert comparison.scorer in title and "approximate" in title and "builtin captions" in title
    assert all(c.score.text().startswith("<b>ViSIL ") for c in panel.columns)
    plot = panel.comparison_view.plot
    assert len(plot.points) == len(summaries) and plot.frontier == list(comparison.frontier)
    assert not panel.comparison_view.cancel_button.isVisibleTo(panel) and panel.compute_button.isEnabled()

    qtbot.wait(100)  # the labels' new heights are laid out
    shot = tmp_path / "summary-panel.png"
    assert panel.grab().save(str(shot))
    if os.environ.get("VIDEOREVIEW_KEEP_SCREENSHOT"):  # for a person to look at
        panel.grab().save(os.environ["VIDEOREVIEW_KEEP_SCREENSHOT"])
        window.grab().save(os.environ["VIDEOREVIEW_KEEP_SCREENSHOT"].replace(".png", "-window.png"))

    # An edited text: its score is marked as for the earlier text.
    column = panel.columns[0]
    column.text.setPlainText("Two people, four shots.")
    column.text.commit()
    assert "before it was edited" in column.score.text()
    window.review.undo()
    assert column.score.text().startswith("<b>ViSIL ")


def test_cancel_mid_way_leaves_no_result_and_a_usable_panel(qtbot, window, panel):
    path = window.current.path
    earlier = panel.comparisons.get(path)  # (from the test before, if it ran)

    def cancel_on_first_progress(fraction, message):
        panel.comparison_view.cancel_button.click()

    panel.job.progress.connect(cancel_on_first_progress)
    try:
        with qtbot.waitSignal(panel.job.cancelled, timeout=VISIL_MS):
            assert panel.compute_visil()
    finally:
        panel.job.progress.disconnect(cancel_on_first_progress)
    assert panel.comparisons.get(path) is earlier  # the earlier result stays; no new one
    assert panel.comparison_view.table.rowCount() == (len(earlier.rows) if earlier else 0)
    assert "cancelled" in panel.comparison_view.status.text()
    assert panel.compute_button.isEnabled() and not panel.comparison_view.progress.isVisibleTo(panel)


def test_a_folder_that_is_not_a_model_fails_in_one_line(qtbot, window, panel, tmp_path):
    folder = tmp_path / "not a model"
    folder.mkdir()
    (folder / "notes.txt").write_text("hello")
    panel.set_scorer(str(folder))
    try:
        with qtbot.waitSignal(panel.job.failed, timeout=VISIL_MS):
            assert panel.compute_visil()
        message = panel.comparison_view.status.text()
        assert str(folder) in message and "not a model folder" in message and "\n" not in message
        assert panel.compute_button.isEnabled()
        from videoreview.choices import load_choices

        assert load_choices()[0]["scoring"] == str(folder)  # remembered, for the CLI too
    finally:
        panel.set_scorer("builtin")


def test_build_with_a_vlm_writes_in_the_background_as_one_undoable_edit(qtbot, window, panel, untrained, tmp_path):
    before = window.current.analysis
    panel.set_writer(str(untrained))
    try:
        with qtbot.waitSignal(panel.job.finished, timeout=VISIL_MS):
            assert panel.build()
            assert not panel.build_button.isEnabled() and not panel.compute_button.isEnabled()  # one job at a time
            assert panel.comparison_view.cancel_button.isVisibleTo(panel)
        summaries = window.current.analysis.summaries
        assert {s.engine for s in summaries} == {f"qwen2_vl:{untrained.name}"}
        assert [c.text.toPlainText() for c in panel.columns] == [s.text for s in summaries]
        assert store.load_saved(before.content_hash) == window.current.analysis  # saved as it is made
        assert "Wrote" in panel.comparison_view.status.text() and panel.build_button.isEnabled()
        window.review.undo()
        assert window.current.analysis == before

        # A folder with no model: one line naming it, nothing changed.
        folder = tmp_path / "empty"
        folder.mkdir()
        panel.set_writer(str(folder))
        with qtbot.waitSignal(panel.job.failed, timeout=VISIL_MS):
            assert panel.build()
        assert str(folder) in panel.comparison_view.status.text() and "\n" not in panel.comparison_view.status.text()
        assert window.current.analysis == before and panel.build_button.isEnabled()
    finally:
        panel.set_writer("builtin")


def test_reference_typed_or_loaded(qtbot, window, panel, tmp_path):
    from videoreview.gui.summaries.reference_dialog import ReferenceDialog

    notes = tmp_path / "notes.txt"
    notes.write_text("Grace Hopper in a mortarboard; Eileen Collins; a bow tie.\n", encoding="utf-8")
    dialog = ReferenceDialog(None, "the builtin captions", panel)
    assert dialog.reference() is None  # empty: the default
    assert dialog.load_file(str(notes))
    assert dialog.reference().origin == "file notes.txt"
    dialog.edit.setPlainText("Typed instead.")
    assert dialog.reference().origin == "typed"
    assert not dialog.load_file(str(tmp_path / "missing.txt")) and "missing.txt" in dialog.problem.text()
    panel.set_reference(dialog.reference())
    assert "typed" in panel.comparison_view.reference_label.text()
    panel.set_reference(None)
    assert "default" in panel.comparison_view.reference_label.text()


def test_exports_write_files_and_report_failures(qtbot, window, panel, tmp_path):
    import pysubs2

    from videoreview.records import Analysis

    analysis = window.current.analysis
    srt, vtt = tmp_path / "scene.srt", tmp_path / "scene.vtt"
    # Through the buttons and menus, the file dialog replaced by a chosen path: every format
    # of the exports table is offered, the subtitles as SRT or WebVTT.
    asked = []

    def chosen(title, default, filters):
        asked.append(filters)
        return str(tmp_path / ("scene" + Path(default).suffix))

    panel.exports.ask_save_path = chosen
    assert panel.exports.default_export_path(".srt").endswith(os.sep + "scene.srt")
    panel.exports.subtitle_actions["captions"].trigger()
    assert asked.pop() == "SubRip subtitles (*.srt);;WebVTT subtitles (*.vtt)"
    assert sorted(panel.exports.export_actions) == [".csv", ".json", ".otio"]
    for action in panel.exports.export_actions.values():
        action.trigger()
    assert Analysis.load(tmp_path / "scene.json") == analysis
    assert (tmp_path / "scene.csv").read_text(encoding="utf-8-sig").startswith("time,frame,kind")
    assert (tmp_path / "scene.otio").stat().st_size > 0
    assert panel.exports.export(str(vtt), "boundaries", (".srt", ".vtt"))
    subs = pysubs2.load(str(srt))
    assert len(subs) == len([c for c in analysis.captions if c.text])
    assert len(pysubs2.load(str(vtt))) > 0
    assert f"Wrote {vtt}" in panel.comparison_view.status.text()

    # A file that cannot be written: one message naming it, and no file.
    (tmp_path / "a file").write_text("not a folder")
    bad = tmp_path / "a file" / "scene.srt"
    assert not panel.exports.export(str(bad))
    assert str(bad) in window.last_notice and "\n" not in window.last_notice and not bad.exists()


def test_pdf_export_runs_off_the_gui_thread(qtbot, window, panel, tmp_path):
    pdf = tmp_path / "scene.pdf"
    with qtbot.waitSignal(panel.exports.pdfExported, timeout=60_000) as done:
        assert panel.exports.export(str(pdf))
        assert not panel.exports.pdf_button.isEnabled() and not panel.exports.export(str(pdf))  # one at a time
    assert done.args == [str(pdf), True] and f"Wrote {pdf}" in panel.comparison_view.status.text()
    assert pdf.read_bytes().startswith(b"%PDF") and pdf.stat().st_size > 1000
    assert panel.exports.pdf_button.isEnabled()

    folder = tmp_path / "a folder"
    folder.mkdir()
    with qtbot.waitSignal(panel.exports.pdfExported, timeout=60_000) as failed:
        assert panel.exports.export(str(folder))
    assert failed.args == [str(folder), False]
    assert str(folder) in panel.comparison_view.status.text() and "folder" in window.last_notice and folder.is_dir()
