"""The window on a laptop screen, in the real offscreen window: the picture's share at
1366x768 on the first run with a clip whose timeline has every lane, the layouts by task
(their keys, the switcher, what each remembers, Reset layout, the next session), full
screen and back, and the picture in a window of its own."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from helpers import main_window  # noqa: E402
from videoreview.pipeline import store  # noqa: E402
from videoreview.pipeline.cache import file_hash  # noqa: E402
from videoreview.records import (  # noqa: E402
    Analysis,
    Appearance,
    Boundary,
    FrameCaption,
    Identity,
    Keyframe,
    ObjectDetection,
    ObjectTrack,
    PoseTrack,
    ScreenText,
    SpeechInfo,
    StatusSpan,
    TranscriptSegment,
    VideoInfo,
    Word,
)
from videos import make_long_video  # noqa: E402

LAPTOP = (1366, 768)  # the most common laptop screen
EVERY_LANE = {"thumbnails", "notes", "boundaries", "captions", "speech", "screen-text", "objects", "poses",
              "faces:P1", "faces:P2", "keyframes"}


def every_lane(video, content_hash: str) -> Analysis:
    """12 s of 1280x720 with something in every track: three objects and three people at
    once (three lanes each), speech, on-screen text, two identities, cuts, keyframes."""
    info = VideoInfo(str(video.path), duration=12.0, fps=25.0, frame_count=300, width=1280, height=720)
    tracks = tuple(ObjectTrack(k, label, 0.0 + k, 10.0, 0.8, 10) for k, label in enumerate(("car", "cup", "dog")))
    detections = tuple(ObjectDetection(float(t), t * 25, track.label, (100.0 + 300 * track.id, 200.0, 200.0, 300.0),
                                       0.8, track.id) for track in tracks for t in range(track.id, 10))
    people = tuple(PoseTrack(k, 1.0 + k, 11.0, 0.7, 20, (50.0, 50.0, 100.0, 300.0),
                               identity=f"P{k + 1}" if k < 2 else None,
                               statuses=(StatusSpan(1.0 + k, 6.0, "standing"), StatusSpan(6.0, 11.0, "walking")))
                   for k in range(3))
    words = (Word(1.0, 1.5, "Meet"), Word(1.5, 2.0, "me"), Word(2.0, 3.0, "there."))
    return Analysis(
        video=info, content_hash=content_hash,
        boundaries=(Boundary(4.0, 100, "cut", 0.9), Boundary(8.0, 200, "cut", 0.9)),
        captions=tuple(FrameCaption(float(t), t * 25, f"Second {t}") for t in range(12)),
        identities=(Identity("P1", appearances=(Appearance(0.0, 6.0),)),
                    Identity("P2", appearances=(Appearance(4.0, 12.0),))),
        keyframes=(Keyframe(2.0, 50), Keyframe(6.0, 150), Keyframe(10.0, 250)),
        speech=SpeechInfo("speech", "en"),
        transcript=(TranscriptSegment(1.0, 3.0, "Meet me there.", words, "en"),),
        screen_text=(ScreenText(5.0, 9.0, "Chapter 3", (10, 10, 200, 40), 0.99),),
        objects=detections, object_tracks=tracks, poses=people,
    )


@pytest.fixture(scope="module")
def busy_clip(home, video_dir):
    """A 720p clip with an Analysis of every lane, saved where the window finds it."""
    video = make_long_video(video_dir / "busy-720p.mp4", seconds=12, cut_every=4.0)
    store.save(every_lane(video, file_hash(video.path)))
    return video.path


@pytest.fixture
def first_run(home):
    (home / "settings.ini").unlink(missing_ok=True)


def opened(qtbot, window, path) -> None:
    window.open_paths([str(path)])
    qtbot.waitUntil(lambda: window.current is not None and window.current.analysis is not None, timeout=30_000)
    qtbot.waitUntil(lambda: window.player.current_frame() >= 0, timeout=30_000)
    qtbot.wait(50)  # the layout settles


def share(window) -> float:
    picture = window.view.picture_rect()
    return picture.width() * picture.height() / (window.width() * window.height())


def test_the_picture_takes_40_percent_of_a_laptop_screen_on_first_run(qtbot, first_run, busy_clip):
    with main_window(qtbot, LAPTOP) as window:
        opened(qtbot, window, busy_clip)
        timeline = window.timeline
        assert window.layouts.current == "review" and EVERY_LANE <= set(timeline.track_names())
        assert share(window) >= 0.40, window.view.picture_rect()
        # The lanes that do not fit scroll under the ruler, which stays.
        shown = timeline.visible_tracks()
        assert "ruler" in shown and "poses" not in shown
        timeline.scroll_lanes(10_000)
        assert "poses" in timeline.visible_tracks() and "ruler" in timeline.visible_tracks()
        # Docks not in use are tabs or closed.
        assert not window.library_dock.isVisible() and not window.summaries_dock.isVisible()
        assert len(window.tabifiedDockWidgets(window.details_dock)) == 3


def test_the_picture_grows_with_the_screen(qtbot, first_run, busy_clip):
    with main_window(qtbot, (1920, 1080)) as window:
        opened(qtbot, window, busy_clip)
        assert share(window) >= 0.45 and window.view.picture_rect().height() >= 650


def layout_key(window, name: str) -> None:
    QTest.keyClick(window, {"review": Qt.Key_1, "library": Qt.Key_2, "summaries": Qt.Key_3}[name],
                   Qt.KeyboardModifier.ControlModifier)


def test_layouts_switch_by_key_and_click_and_remember_their_arrangement(qtbot, first_run):
    with main_window(qtbot, LAPTOP) as window:
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow)
        buttons = window.layout_switcher.buttons
        assert window.layouts.current == "review" and buttons["review"].isChecked()
        layout_key(window, "library")
        assert window.layouts.current == "library" and buttons["library"].isChecked()
        assert window.library_dock.isVisible() and not window.details_dock.isVisible()
        qtbot.waitUntil(lambda: window.library_dock.width() >= 0.35 * window.width())
        buttons["summaries"].click()
        assert window.layouts.current == "summaries"
        assert window.summaries_dock.isVisible() and not window.library_dock.isVisible()
        qtbot.waitUntil(lambda: window.summaries_dock.height() >= 0.4 * window.height())

        # Review remembers what the reviewer opened in it; Reset layout forgets it.
        layout_key(window, "review")
        assert not window.library_dock.isVisible()
        window.library_dock.show()
        layout_key(window, "library")
        layout_key(window, "review")
        assert window.library_dock.isVisible() and window.details_dock.isVisible()
        window.layouts.reset()
        assert not window.library_dock.isVisible() and window.details_dock.isVisible()
        buttons["summaries"].click()
    with main_window(qtbot, LAPTOP) as again:  # the next session opens where this one closed
        assert again.layouts.current == "summaries" and again.layout_switcher.buttons["summaries"].isChecked()
        assert again.summaries_dock.isVisible()


def test_full_screen_and_back(qtbot, first_run, busy_clip):
    with main_window(qtbot, LAPTOP) as window:
        opened(qtbot, window, busy_clip)
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow)
        before = share(window)
        QTest.keyClick(window, Qt.Key_F)
        qtbot.waitUntil(window.isFullScreen)
        assert not window.timeline.isVisible() and not window.menuBar().isVisible()
        assert not any(dock.isVisible() for dock in window.docks())
        # (the offscreen screen is 800x800: the full-screen window is smaller than the one it was)
        qtbot.waitUntil(lambda: share(window) > before + 0.1)
        QTest.keyClick(window, Qt.Key_Escape)  # Esc leaves full screen (and cancels nothing)
        qtbot.waitUntil(lambda: not window.isFullScreen())
        assert window.timeline.isVisible() and window.menuBar().isVisible() and window.details_dock.isVisible()
        assert not window.library_dock.isVisible()


def test_the_picture_in_a_window_of_its_own(qtbot, first_run, busy_clip):
    with main_window(qtbot, LAPTOP) as window:
        opened(qtbot, window, busy_clip)
        window.menus.floating.trigger()
        floating = window.picture_modes.floating
        assert floating is not None and floating.isVisible() and window.view.window() is floating
        assert window.splitter.count() == 1 and window.splitter.widget(0) is window.timeline
        floating.close()  # closing it puts the picture back
        assert window.picture_modes.floating is None and not window.menus.floating.isChecked()
        assert window.splitter.widget(0) is window.picture_box and window.view.window() is window
        assert window.view.picture_rect().height() > 300


def test_reveal_scrolls_a_track_into_view(qtbot, first_run, busy_clip):
    with main_window(qtbot, LAPTOP) as window:
        opened(qtbot, window, busy_clip)
        timeline = window.timeline
        assert "keyframes" not in timeline.visible_tracks()
        timeline.reveal("keyframes")
        assert "keyframes" in timeline.visible_tracks()
        timeline.reveal("thumbnails")
        assert "thumbnails" in timeline.visible_tracks() and timeline.lanes_scroll() == 0
