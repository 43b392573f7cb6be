"""What a new user meets: the welcome view, the sample clip made on the spot and the tour
that follows it; Settings (library location, cache, theme, overlays); and unexpected
exceptions, which show a report and go to the log while the window keeps running."""

from __future__ import annotations

import os
import threading

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QRect, QTimer, qWarning  # noqa: E402
from PySide6.QtGui import QGuiApplication  # noqa: E402

from fake_engines import ENGINES  # noqa: E402
from helpers import choose_engines, main_window  # noqa: E402
from videoreview.gui.dialogs.failures import LOG_NAME, FailureReporter  # noqa: E402
from videoreview.gui.main_window import MainWindow  # noqa: E402
from videoreview.gui.window_settings import window_settings  # noqa: E402
from videoreview.library.catalog import DB_NAME, Catalog  # noqa: E402
from videoreview.paths import LOCATION_FILE, cache_dir, library_dir, log_dir  # noqa: E402

ANALYSIS_MS = 180_000  # the 12 s sample on a busy 2-core machine (about 15 s when idle)


@pytest.fixture(scope="module")
def first_run_home(tmp_path_factory):
    """An empty VIDEOREVIEW_HOME, as on a first run: no stage cache shared with the
    session (its Settings test clears the cache), for the module. Its one file: the
    choice of the fake engines (fake_engines.py), which find the sample's cut."""
    path = tmp_path_factory.mktemp("first run")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("VIDEOREVIEW_HOME", str(path))
        choose_engines(ENGINES)
        yield path


@pytest.fixture()
def window(qtbot, first_run_home):
    with main_window(qtbot) as w:
        yield w


def test_sample_clip_then_tour_of_the_timeline(qtbot, window, first_run_home):
    assert window.middle.currentWidget() is window.welcome and window.current is None
    with qtbot.waitSignal(window.queue.finished, timeout=ANALYSIS_MS):
        window.welcome.sample_button.click()
    sample = first_run_home / "sample" / "videoreview-sample-v1.mp4"
    assert window.current.path == str(sample) and window.middle.currentWidget() is window.splitter
    analysis = window.current.analysis
    assert analysis.video.frame_count == 300 and (analysis.video.width, analysis.video.height) == (640, 360)
    # (Its cut and dissolve, as the builtin boundary engine finds them: test_the_sample_clip_has_a_cut_and_a_dissolve.)

    tour = window.tours.tour  # the first sample is followed by the tour
    assert tour is not None and tour.isVisible() and tour.geometry() == window.rect()
    titles = []
    while window.tours.tour is not None:
        titles.append(tour.title.text())
        if titles[-1] == "Shots and boundaries":  # the note points at that very track
            track = window.timeline.track_rect("boundaries")
            expected = QRect(window.timeline.mapTo(window, track.topLeft()), track.size())
            assert tour.area() == expected.adjusted(-6, -6, 6, 6)
            assert not tour.note.geometry().intersects(expected)
        tour.next.click()
    assert titles[0] == "The video" and "Keyframes" in titles and len(titles) == len(tour.steps)
    assert window_settings().value("tour/seen", False, type=bool)

    # A second sample reuses the clip and brings no tour; Help > Tour brings it back.
    modified = sample.stat().st_mtime_ns
    window.open_sample()
    assert window.tours.tour is None and sample.stat().st_mtime_ns == modified
    window.start_tour()
    assert window.tours.tour is not None
    window.tours.tour.finish(False)
    assert window.tours.tour is None
    qtbot.waitUntil(lambda: not window.library.busy(), timeout=60_000)  # the sample is in the library


def sample_in_library(qtbot, window, home) -> None:
    """The sample analysed and in the library of the data folder, as the first test leaves
    them; made here (without the tour) when this test runs without it."""
    from videoreview.media.sample import write_sample

    if not any((home / "analyses").glob("*.analysis.json")):
        with qtbot.waitSignal(window.queue.finished, timeout=ANALYSIS_MS):
            window.open_paths([str(write_sample(home / "sample"))])
        window.library_panel.cataloguing.index_pending()
    qtbot.waitUntil(lambda: (home / DB_NAME).exists(), timeout=30_000)


def test_settings_move_the_library_and_clear_the_cache(qtbot, window, first_run_home, tmp_path):
    sample_in_library(qtbot, window, first_run_home)
    window.show_settings()
    dialog = window.settings_dialog
    assert dialog.library.text() == str(first_run_home)

    blocked = tmp_path / "a file"
    blocked.write_text("not a folder")
    dialog.change_library(str(blocked / "library"))
    assert dialog.status.text().startswith(str(blocked / "library") + ": cannot be written")
    assert library_dir() == first_run_home and not (first_run_home / LOCATION_FILE).exists()

    qtbot.waitUntil(lambda: window.queue.is_idle() and not window.library.busy(), timeout=60_000)
    new = tmp_path / "elsewhere" / "library"
    dialog.change_library(str(new))
    assert dialog.status.text().startswith(f"The library is now in {new}; the catalog and 1 saved analysis copied")
    assert dialog.library.text() == str(new) and library_dir() == new
    with Catalog(new / DB_NAME) as moved, Catalog(first_run_home / DB_NAME) as old:
        assert [v.path for v in moved.videos()] == [v.path for v in old.videos()] != []
    assert len(list((new / "analyses").glob("*.analysis.json"))) == 1
    assert (first_run_home / DB_NAME).exists()  # the old library is left as it was
    # The library process now answers from the new folder.
    with qtbot.waitSignal(window.library_panel.video_list.model().rowsInserted, timeout=30_000):
        window.library_panel.refresh()
    assert window.library_panel.video_list.videos[0].path.endswith("videoreview-sample-v1.mp4")

    assert not dialog.cache.text().startswith("0.0 MB")
    qtbot.waitUntil(dialog.clear_button.isEnabled, timeout=5_000)  # once nothing uses the cache
    dialog.clear_button.click()
    assert dialog.status.text().startswith("Cleared ") and dialog.cache.text().startswith("0.0 MB")
    assert cache_dir().is_dir() and not any(cache_dir().iterdir())

    dialog.change_library(str(first_run_home))  # back to the data folder: the location file goes
    assert library_dir() == first_run_home and not (first_run_home / LOCATION_FILE).exists()


def test_settings_theme_and_overlay_style_are_kept(qtbot, window, first_run_home):
    window.show_settings()
    dialog = window.settings_dialog
    dialog.theme.setCurrentIndex(2)
    dialog.theme.activated.emit(2)
    assert window_settings().value("theme") == "dark" and window.menus.themes["dark"].isChecked()
    dialog.caption_size.setValue(150)
    dialog.caption_position.setCurrentIndex(1)
    dialog.caption_position.activated.emit(1)
    dialog.caption_background.setValue(30)
    dialog.box_width.setValue(4.0)
    style = window.view.style()
    assert (style.caption_size, style.caption_position, style.caption_background, style.box_width) == \
        (1.5, "top", 0.3, 4.0)
    dialog.close()
    again = MainWindow()
    qtbot.addWidget(again)
    assert again.view.style() == style
    window_settings().setValue("overlay-style/caption_position", "sideways")  # edited by hand: the default
    window_settings().setValue("overlay-style/box_width", "wide")
    third = MainWindow()
    qtbot.addWidget(third)
    assert third.view.style().caption_position == "bottom" and third.view.style().box_width == 2.5
    window.set_theme("system")


def test_damaged_location_file_is_named_and_the_data_folder_used(qtbot, window, first_run_home):
    (first_run_home / LOCATION_FILE).write_text("{not json")
    try:
        assert library_dir() == first_run_home
        window.show_settings()
        status = window.settings_dialog.status.text()
        assert status.startswith(f"{first_run_home / LOCATION_FILE}: not a library location")
        assert (first_run_home / LOCATION_FILE).read_text() == "{not json"  # left for the user to see
    finally:
        (first_run_home / LOCATION_FILE).unlink()


def test_unexpected_exceptions_show_a_report_and_the_window_goes_on(qtbot, window, first_run_home):
    reporter = FailureReporter(window)
    reporter.install()
    try:
        def broken_slot():
            raise ZeroDivisionError("a bug in a slot")

        QTimer.singleShot(0, broken_slot)
        qtbot.waitUntil(lambda: reporter.dialog is not None, timeout=5_000)
        thread = threading.Thread(target=lambda: {}["missing key"], name="worker-thread")
        thread.start()
        thread.join()
        qtbot.waitUntil(lambda: reporter.dialog.count == 2, timeout=5_000)
        qWarning("a warning of Qt's own")
    finally:
        reporter.uninstall()
    dialog = reporter.dialog
    report = dialog.report.toPlainText()
    assert "ZeroDivisionError: a bug in a slot" in report and "in broken_slot" in report
    assert "Thread: worker-thread" in report and "KeyError: 'missing key'" in report
    assert "torch" in report and "Qt" in report and "Event boundaries" in report  # the versions
    assert "2 unexpected errors" in dialog.summary.text() and str(log_dir() / LOG_NAME) in dialog.summary.text()
    dialog.copy_button.click()
    assert QGuiApplication.clipboard().text() == report
    logged = (log_dir() / LOG_NAME).read_text(encoding="utf-8")
    assert "ZeroDivisionError: a bug in a slot" in logged and "KeyError: 'missing key'" in logged
    assert "WARNING Qt: a warning of Qt's own" in logged
    # The window is still working: the welcome view's buttons respond.
    window.show_document(None)
    assert window.middle.currentWidget() is window.welcome and window.isVisible()
    dialog.close()


@pytest.mark.models  # what the builtin boundary engine finds
def test_the_sample_clip_has_a_cut_and_a_dissolve(home, tmp_path):
    """The sample is drawn with a cut at 4 s and a dissolve from 8 to 9 s, for the timeline
    of a first run (with the default engines) to show both. (In a home of the session's:
    its ONNX exports are shared.)"""
    from videoreview.media.sample import write_sample
    from videoreview.pipeline import analyze
    from videoreview.pipeline.stages import DEFAULT_ENGINES

    analysis = analyze(write_sample(tmp_path), {"boundaries": DEFAULT_ENGINES["boundaries"]})
    assert [(b.kind, round(b.time, 1)) for b in analysis.boundaries if b.kind == "cut"] == [("cut", 4.0)]
    assert any(b.kind == "gradual" and 7.9 <= b.time <= 9.1 for b in analysis.boundaries)
