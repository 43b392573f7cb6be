"""The timeline widget and the thumbnail loader, offscreen: geometry, mouse, zoom, painting
(checked on grabbed pixels) and decoding real frames in the loader's thread."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import random  # noqa: E402
from dataclasses import replace  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt  # noqa: E402
from PySide6.QtGui import QColor, QHelpEvent, QImage, QWheelEvent  # noqa: E402
from PySide6.QtWidgets import QApplication, QPushButton, QToolTip  # noqa: E402

from helpers import rgb as image_rgb  # noqa: E402
from helpers import shown_timeline  # noqa: E402
from videoreview.gui.colors import BOUNDARY_COLORS, KEYFRAME_COLOR, identity_color  # noqa: E402
from videoreview.gui.timeline import MAX_PX_PER_FRAME, ruler_steps  # noqa: E402
from videoreview.gui.work.background import wait_for_closed_threads  # noqa: E402
from videoreview.gui.work.thumbnails import ThumbnailLoader  # noqa: E402
from videoreview.pipeline import StageCache, analyze  # noqa: E402
from videoreview.records import (  # noqa: E402
    Analysis,
    Appearance,
    Boundary,
    BoundaryCaption,
    FrameCaption,
    Identity,
    Keyframe,
    ScreenText,
    SpeechInfo,
    TranscriptSegment,
    VideoInfo,
    Word,
)
from videoreview.timecode import timecode  # noqa: E402
from videos import read_index  # noqa: E402

FPS = 25.0


def make_analysis(duration=60.0, boundaries=(), captions=(), identities=(), keyframes=(), path="/videos/a.mp4",
                  content_hash="hash-a") -> Analysis:
    """boundaries: (frame, kind); captions: (frame, text); identities: (id, name, [(start, end)])."""
    video = VideoInfo(path=path, duration=duration, fps=FPS, frame_count=round(duration * FPS), width=1280, height=720)
    return Analysis(
        video=video,
        content_hash=content_hash,
        boundaries=tuple(Boundary(f / FPS, f, kind, 0.9) for f, kind in boundaries),
        captions=tuple(FrameCaption(f / FPS, f, text) for f, text in captions),
        identities=tuple(Identity(pid, name, tuple(Appearance(a, b) for a, b in spans))
                         for pid, name, spans in identities),
        keyframes=tuple(Keyframe(f / FPS, f) for f in keyframes),
    )


SAMPLE = dict(
    boundaries=[(250, "cut"), (500, "gradual"), (750, "event"), (1000, "cut")],
    captions=[(0, "A kitchen, nobody in it"), (300, "A man walks in and opens the fridge"),
              (800, "He pours a glass of milk")],
    identities=[("P1", "Alice", [(5.0, 15.0), (30.0, 40.0)]), ("P2", None, [(20.0, 25.0)])],
    keyframes=[100, 600],
)


@pytest.fixture
def timeline(qtbot):
    return shown_timeline(qtbot, (1000, 300))


def pixels(widget) -> np.ndarray:
    """The widget as RGB [H, W, 3]."""
    return image_rgb(widget.grab().toImage())


def rgb(color: QColor) -> tuple[int, int, int]:
    return color.red(), color.green(), color.blue()


def centre_y(widget, track: str) -> int:
    return widget.track_rect(track).center().y()


def recorder(signal) -> list:
    calls = []
    signal.connect(lambda *args: calls.append(args))
    return calls


def ctrl_wheel(widget, x: float, notches: float = 1, modifiers=Qt.KeyboardModifier.ControlModifier) -> None:
    pos = QPointF(x, centre_y(widget, "captions"))
    event = QWheelEvent(pos, widget.mapToGlobal(pos), QPoint(), QPoint(0, round(120 * notches)),
                        Qt.MouseButton.NoButton, modifiers, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


# ---------------------------------------------------------------------- geometry and painting


def test_items_land_at_their_times(timeline):
    timeline.set_analysis(make_analysis(**SAMPLE))
    assert timeline.time_at(timeline.x_of(12.34)) == pytest.approx(12.34)
    assert timeline.x_of(0) == timeline.track_rect("captions").left()
    for frame, _ in SAMPLE["boundaries"]:
        x = timeline.x_of(frame / FPS)
        assert timeline.item_at(QPointF(x, centre_y(timeline, "boundaries"))) == ("boundaries", frame)
    for frame, _ in SAMPLE["captions"]:
        x = timeline.x_of(frame / FPS) + 2  # just inside the block's left edge
        assert timeline.item_at(QPointF(x, centre_y(timeline, "captions"))) == ("captions", frame)
    for frame in SAMPLE["keyframes"]:
        assert timeline.item_at(QPointF(timeline.x_of(frame / FPS), centre_y(timeline, "keyframes"))) == \
            ("keyframe", frame)
    # A caption block lasts until the next caption or cut: just before the cut at 250 it is
    # still the first one; between the cut and the next caption (300) there is none.
    assert timeline.item_at(QPointF(timeline.x_of(249 / FPS) - 2, centre_y(timeline, "captions"))) == ("captions", 0)
    assert timeline.item_at(QPointF(timeline.x_of(275 / FPS), centre_y(timeline, "captions"))) is None
    assert timeline.item_at(QPointF(timeline.x_of(35.0), centre_y(timeline, "boundaries"))) is None


def test_tracks_stack_top_to_bottom(timeline):
    timeline.set_analysis(make_analysis(**SAMPLE))
    names = ["ruler", "thumbnails", "boundaries", "captions", "faces:P1", "faces:P2", "keyframes"]
    rects = [timeline.track_rect(name) for name in names]
    assert all(r.isValid() for r in rects)
    assert [r.top() for r in rects] == sorted(r.top() for r in rects)
    assert timeline.track_rect("faces:P3").isNull()
    assert rects[-1].bottom() < timeline.height() - 10  # above the scrollbar
    assert timeline.minimumSizeHint().height() <= timeline.sizeHint().height()


def test_grab_shows_boundary_colours_at_their_markers(timeline):
    timeline.set_analysis(make_analysis(**SAMPLE))
    image = pixels(timeline)
    y = centre_y(timeline, "boundaries")
    for frame, kind in SAMPLE["boundaries"]:
        x = int(timeline.x_of(frame / FPS))
        assert rgb(BOUNDARY_COLORS[kind]) in {tuple(image[y, x + dx]) for dx in (-1, 0, 1)}, kind
    between = int(timeline.x_of(15.0))
    assert tuple(image[y, between]) not in {rgb(c) for c in BOUNDARY_COLORS.values()}


def test_identity_lanes_show_bars_where_the_appearances_are(timeline):
    timeline.set_analysis(make_analysis(**SAMPLE))
    image = pixels(timeline)
    for pid, _, spans in SAMPLE["identities"]:
        y = centre_y(timeline, f"faces:{pid}")
        for start, end in spans:
            x = int(timeline.x_of((start + end) / 2))
            assert tuple(image[y, x]) == rgb(identity_color(pid))
            assert timeline.item_at(QPointF(x, y)) == ("faces", pid)
        outside = int(timeline.x_of(spans[-1][1] + 5))
        assert tuple(image[y, outside]) != rgb(identity_color(pid))
        assert timeline.item_at(QPointF(outside, y)) is None


def test_partial_analyses_paint_and_keep_the_view(timeline):
    boundaries_only = make_analysis(boundaries=SAMPLE["boundaries"])
    timeline.set_analysis(boundaries_only)
    assert not timeline.grab().isNull()
    assert timeline.track_rect("captions").isValid()
    timeline.set_selection("boundaries", 500)
    for _ in range(3):
        timeline.zoom_in()
    zoomed = timeline.pixels_per_second()
    view = timeline.visible_range()
    timeline.set_analysis(make_analysis(**SAMPLE))  # same video, more stages done
    assert timeline.pixels_per_second() == zoomed and timeline.visible_range() == view
    assert timeline.selection() == ("boundaries", 500)
    assert not timeline.grab().isNull()
    timeline.set_analysis(make_analysis(path="/videos/b.mp4", content_hash="hash-b"))  # another video
    assert timeline.visible_range() == pytest.approx((0.0, 60.0))
    assert timeline.selection() is None
    timeline.set_analysis(None)
    assert not timeline.grab().isNull()


def test_real_analysis_shows_the_cuts(timeline, cuts_video, tmp_path):
    analysis = analyze(cuts_video.path, engines={"boundaries": "builtin"}, cache=StageCache(tmp_path))
    timeline.set_analysis(analysis)
    image = pixels(timeline)
    y = centre_y(timeline, "boundaries")
    cut = rgb(BOUNDARY_COLORS["cut"])
    for t in cuts_video.cut_times:
        x = int(timeline.x_of(t))
        assert any(tuple(image[y, x + dx]) == cut for dx in range(-2, 3)), t


def test_caption_tooltip_is_its_text(timeline, qtbot):
    timeline.set_analysis(make_analysis(**SAMPLE))
    pos = QPoint(int(timeline.x_of(15.0)), centre_y(timeline, "captions"))
    assert timeline.tooltip_at(pos) == "A man walks in and opens the fridge"
    # the block stops at the next shot change (gradual at 20 s), not at the next caption (32 s)
    assert timeline.tooltip_at(QPoint(int(timeline.x_of(25.0)), centre_y(timeline, "captions"))) == ""
    QApplication.sendEvent(timeline, QHelpEvent(QEvent.Type.ToolTip, pos, timeline.mapToGlobal(pos)))
    qtbot.waitUntil(lambda: QToolTip.text() == "A man walks in and opens the fridge")
    QToolTip.hideText()
    event = Boundary(10.0, 250, "event", 0.8, BoundaryCaption("man", "walking", "sitting"))
    captioned = make_analysis().with_boundaries([event])
    timeline.set_analysis(captioned)
    tip = timeline.tooltip_at(QPointF(timeline.x_of(10.0), centre_y(timeline, "boundaries")))
    assert "man: walking → sitting" in tip and "frame 250" in tip


def test_ruler_labels_and_steps():
    assert timecode(61.28, FPS) == "01:01.07"
    assert timecode(3725.0, hours=True) == "1:02:05"
    major, minor = ruler_steps(FPS * MAX_PX_PER_FRAME, FPS)
    assert minor == pytest.approx(1 / FPS) and major < 1  # frame ticks at the deepest zoom
    major, _ = ruler_steps(0.2, FPS)
    assert major >= 300  # a two-hour video fitted into ~1500 px


# ---------------------------------------------------------------------- mouse and zoom


def test_click_on_empty_area_seeks_there(timeline, qtbot):
    timeline.set_analysis(make_analysis(**SAMPLE))
    selected = recorder(timeline.selected)
    for track, t in (("ruler", 17.3), ("boundaries", 33.3), ("faces:P2", 50.0)):
        x = round(timeline.x_of(t))
        with qtbot.waitSignal(timeline.seekRequested) as blocker:
            qtbot.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(x, centre_y(timeline, track)))
        assert blocker.args[0] == pytest.approx(t, abs=1 / FPS), track
    assert selected == []


def test_click_on_boundary_selects_and_seeks(timeline, qtbot):
    timeline.set_analysis(make_analysis(**SAMPLE))
    seeks, selected = recorder(timeline.seekRequested), recorder(timeline.selected)
    x = round(timeline.x_of(500 / FPS)) + 2  # a couple of pixels off still grabs the marker
    qtbot.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(x, centre_y(timeline, "boundaries")))
    assert selected == [("boundaries", 500)]
    assert seeks == [(500 / FPS,)]
    assert timeline.selection() == ("boundaries", 500)
    qtbot.mouseClick(timeline, Qt.MouseButton.LeftButton,
                     pos=QPoint(round(timeline.x_of(35.0)), centre_y(timeline, "faces:P1")))
    assert selected[-1] == ("faces", "P1") and seeks[-1] == (30.0,)  # the appearance's start


def test_ctrl_wheel_zooms_around_the_mouse_down_to_frames(timeline, qtbot):
    timeline.set_analysis(make_analysis(**SAMPLE))
    fit = timeline.pixels_per_second()
    x = 600.0
    anchor = timeline.time_at(x)
    with qtbot.waitSignal(timeline.zoomChanged) as blocker:
        ctrl_wheel(timeline, x)
    assert blocker.args[0] == pytest.approx(fit * 1.25)
    assert timeline.x_of(anchor) == pytest.approx(x, abs=1)
    for _ in range(60):
        ctrl_wheel(timeline, x)
        assert timeline.x_of(anchor) == pytest.approx(x, abs=1)
    assert timeline.pixels_per_second() / FPS >= 40  # single frames
    assert timeline.pixels_per_second() == pytest.approx(FPS * MAX_PX_PER_FRAME)
    assert not timeline.grab().isNull()
    ctrl_wheel(timeline, x, notches=-3)
    assert timeline.pixels_per_second() < FPS * MAX_PX_PER_FRAME
    # A plain wheel scrolls instead.
    zoom, (start, _) = timeline.pixels_per_second(), timeline.visible_range()
    ctrl_wheel(timeline, x, notches=-1, modifiers=Qt.KeyboardModifier.NoModifier)
    assert timeline.pixels_per_second() == zoom and timeline.visible_range()[0] > start


def test_zoom_to_fit_shows_the_whole_video(timeline):
    timeline.set_analysis(make_analysis(**SAMPLE))
    for _ in range(5):
        timeline.zoom_in()
    assert timeline.visible_range()[1] - timeline.visible_range()[0] < 20
    timeline.zoom_to_fit()
    assert timeline.visible_range() == pytest.approx((0.0, 60.0))
    assert timeline.x_of(60.0) == pytest.approx(timeline.width())
    timeline.zoom_out()  # no further than the whole video
    assert timeline.visible_range() == pytest.approx((0.0, 60.0))


def test_dragging_a_boundary_reports_the_new_frame(timeline, qtbot):
    timeline.set_analysis(make_analysis(**SAMPLE))
    for _ in range(2):
        timeline.zoom_in()  # anchored on the playhead at 0
    y = centre_y(timeline, "boundaries")
    start = QPoint(round(timeline.x_of(250 / FPS)), y)
    end = QPoint(start.x() + 123, y)
    dragged = recorder(timeline.boundaryDragged)
    qtbot.mousePress(timeline, Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(timeline, QPoint(start.x() + 60, y))
    qtbot.mouseMove(timeline, end)
    qtbot.mouseRelease(timeline, Qt.MouseButton.LeftButton, pos=end)
    assert len(dragged) == 1
    old, new_time = dragged[0]
    assert old == 250
    assert new_time * FPS == pytest.approx(round(new_time * FPS))  # on a frame
    assert new_time == pytest.approx(timeline.time_at(end.x()), abs=0.5 / FPS + 1e-9)


def test_playhead_pages_along_while_playing(timeline):
    timeline.set_analysis(make_analysis(**SAMPLE))
    for _ in range(4):
        timeline.zoom_in()
    start, end = timeline.visible_range()
    timeline.set_position(end - 0.1)
    assert timeline.visible_range() == (start, end)
    timeline.set_position(end + 0.2)
    new_start, new_end = timeline.visible_range()
    assert new_start > start and new_start <= end + 0.2 <= new_end


# ---------------------------------------------------------------------- thumbnails


def test_thumbnail_strip_wants_frames_and_draws_them(timeline, qtbot):
    timeline.set_analysis(make_analysis(**SAMPLE))
    frames = timeline.thumbnail_frames()
    assert frames[0] == 0 and len(frames) == len(set(frames))
    assert set(SAMPLE["keyframes"]) <= set(frames)  # the keyframe track's thumbnails too
    red = QImage(96, 54, QImage.Format.Format_RGB888)
    red.fill(QColor(255, 0, 0))
    for frame in frames:
        timeline.set_thumbnail(frame, red)
    image = pixels(timeline)
    strip = timeline.track_rect("thumbnails")
    assert tuple(image[strip.center().y(), strip.left() + 10]) == (255, 0, 0)
    keyframe_x = int(timeline.x_of(SAMPLE["keyframes"][0] / FPS))
    assert tuple(image[timeline.track_rect("keyframes").top() + 10, keyframe_x]) == (255, 0, 0)
    with qtbot.waitSignal(timeline.thumbnailsWanted) as blocker:
        timeline.zoom_in()
    assert blocker.args[0] == timeline.thumbnail_frames() and blocker.args[0] != frames


def test_many_items_paint_zoomed_out_and_in(timeline):
    rng = random.Random(5)
    duration = 7200.0
    caption_frames = sorted(rng.sample(range(int(duration * FPS)), 10_000))
    boundary_frames = sorted(rng.sample(range(int(duration * FPS)), 2_000))
    analysis = make_analysis(
        duration=duration,
        boundaries=[(f, rng.choice(("cut", "gradual", "event"))) for f in boundary_frames],
        captions=[(f, f"caption {k}") for k, f in enumerate(caption_frames)],
        identities=[(f"P{k}", None, [(s, s + 20.0) for s in range(k * 60, 7000, 400)]) for k in range(1, 7)],
        keyframes=boundary_frames[::10],
    )
    timeline.resize(1600, 320)
    timeline.set_analysis(analysis)
    image = pixels(timeline)
    assert timeline.last_paint_ms > 0
    y = centre_y(timeline, "boundaries")
    colours = {rgb(c) for c in BOUNDARY_COLORS.values()}
    for f in boundary_frames[5::97]:  # (the first ones lie under the playhead)
        assert tuple(image[y, int(timeline.x_of(f / FPS))]) in colours
    assert tuple(image[centre_y(timeline, "keyframes") + 10, int(timeline.x_of(boundary_frames[10] / FPS))]) == \
        rgb(KEYFRAME_COLOR)
    middle = boundary_frames[1000] / FPS
    timeline.set_position(middle)
    for _ in range(40):
        timeline.zoom_in()
    assert timeline.pixels_per_second() == pytest.approx(FPS * MAX_PX_PER_FRAME)
    assert not timeline.grab().isNull()
    assert timeline.item_at(QPointF(timeline.x_of(middle), y)) == ("boundaries", boundary_frames[1000])
    timeline.repaint()
    assert timeline.last_paint_ms > 0


# ---------------------------------------------------------------------- ThumbnailLoader


@pytest.fixture
def loader_for(qtbot):
    loaders = []

    def make(path):
        loader = ThumbnailLoader(path)
        loaders.append(loader)
        return loader

    yield make
    for loader in loaders:
        loader.close()
    wait_for_closed_threads()


def test_loader_decodes_the_requested_frames(index_video, loader_for, qtbot):
    loader = loader_for(index_video.path)
    ready = recorder(loader.ready)
    loader.request([10, 50, 99, 10])
    qtbot.waitUntil(lambda: len(ready) >= 3, timeout=20_000)
    assert sorted(frame for frame, _ in ready) == [10, 50, 99]
    for frame, image in ready:
        assert (image.width(), image.height()) == (96, 54)
        assert read_index(image_rgb(image)) == frame
    loader.request([50])  # cached: answered at once
    assert ready[-1][0] == 50 and len(ready) == 4
    with qtbot.waitSignal(loader.cropReady, timeout=20_000) as blocker:
        loader.request_crop("P1", 20, (100.0, 40.0, 60.0, 60.0), 64)
    key, crop = blocker.args
    assert key == "P1" and (crop.width(), crop.height()) == (64, 64)


def test_loader_reports_an_unreadable_file_once(tmp_path, loader_for, qtbot):
    path = tmp_path / "notes.mp4"
    path.write_text("not a video\n" * 50)
    loader = loader_for(path)
    failures = recorder(loader.failed)
    qtbot.waitUntil(lambda: len(failures) == 1, timeout=20_000)
    loader.request([0, 1, 2])
    loader.request_crop("P1", 0, (0, 0, 10, 10))
    qtbot.wait(200)
    assert len(failures) == 1 and "notes.mp4" in failures[0][0]


# ---------------------------------------------------------------------- speech and on-screen text

def speech_analysis() -> Analysis:
    words = (Word(10.0, 10.5, "Meet"), Word(10.5, 11.0, "me"), Word(11.0, 11.8, "at"), Word(11.8, 13.0, "noon."))
    base = make_analysis(**SAMPLE)
    transcript = (TranscriptSegment(10.0, 13.0, "Meet me at noon.", words, "en", speaker="P1", speaker_by="alone"),
                  TranscriptSegment(20.0, 22.0, "Who is there?", (), "en"))
    return replace(base, speech=SpeechInfo("speech", "en"), transcript=transcript,
                   screen_text=(ScreenText(30.0, 34.0, "Chapter 3", (10, 10, 200, 40), 0.99),
                                ScreenText(31.0, 33.0, "Exit", (10, 600, 80, 30), 0.95)))


def test_a_click_on_a_spoken_word_seeks_to_it(timeline, qtbot):
    timeline.set_analysis(speech_analysis())
    timeline.zoom_to_fit()
    seeks, selected = recorder(timeline.seekRequested), recorder(timeline.selected)
    y = centre_y(timeline, "speech")
    qtbot.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(round(timeline.x_of(12.2)), y))
    assert selected == [("speech", 10.0)] and seeks == [(11.8,)]  # "noon." starts at 11.8
    tip = timeline.tooltip_at(QPoint(round(timeline.x_of(21.0)), y))
    assert "Who is there?" in tip and "speaker" not in tip
    assert "speaker Alice (alone on screen)" in timeline.tooltip_at(QPoint(round(timeline.x_of(10.2)), y))
    # The speaker's colour fills the block; nobody's block is grey.
    image = pixels(timeline)
    assert tuple(image[y, round(timeline.x_of(10.1))]) != tuple(image[y, round(timeline.x_of(20.1))])
    assert timeline.item_at(QPointF(timeline.x_of(16.0), y)) is None


def test_on_screen_text_blocks_list_every_line_shown(timeline, qtbot):
    timeline.set_analysis(speech_analysis())
    y = centre_y(timeline, "screen-text")
    assert timeline.item_at(QPointF(timeline.x_of(32.0), y)) == ("screen-text", 0)
    assert timeline.tooltip_at(QPoint(round(timeline.x_of(32.0)), y)).endswith("Chapter 3\nExit")
    assert timeline.item_at(QPointF(timeline.x_of(35.0), y)) is None
    # Rows only for what was analysed: no speech row before the speech stage, no text row without text.
    timeline.set_analysis(make_analysis(**SAMPLE))
    assert timeline.track_rect("speech").isNull() and timeline.track_rect("screen-text").isNull()


def test_details_edit_what_is_said_and_who_says_it(qtbot):
    from videoreview.gui.panels.details_panel import DetailsPanel

    panel = DetailsPanel()
    qtbot.addWidget(panel)
    analysis = replace(speech_analysis(), devices={"speech": "cuda"})
    panel.set_analysis(analysis)
    panel.show_item("speech", 10.0)
    page = panel.page("speech")
    assert page.text.toPlainText() == "Meet me at noon." and page.speaker.currentData() == "P1"
    assert " on cuda, language " in panel.info.text()  # where its stage ran
    edits = recorder(panel.editRequested)
    page.text.setPlainText("Meet me at the station at noon.")
    next(b for b in panel.findChildren(QPushButton) if b.text() == "Save text").click()
    page.speaker.setCurrentIndex(page.speaker.findData("P2"))
    page.speaker.activated.emit(page.speaker.currentIndex())
    (text_label, change), (speaker_label, set_speaker) = edits
    edited = set_speaker(change(analysis)).transcript[0]
    assert (edited.text, edited.speaker, edited.speaker_by, edited.edited) == \
        ("Meet me at the station at noon.", "P2", "reviewer", True)
    assert text_label == "Edit what is said" and speaker_label == "Set speaker"


def test_enter_edits_the_selected_caption_or_what_is_said(qtbot, monkeypatch):
    from PySide6.QtWidgets import QInputDialog, QMainWindow

    from videoreview.gui.panels.details_panel import DetailsPanel
    from videoreview.gui.review import ReviewEdits

    window = QMainWindow()
    qtbot.addWidget(window)
    window.details = DetailsPanel()
    analysis = speech_analysis()
    window.details.set_analysis(analysis)
    review = ReviewEdits(window)
    applied, asked = [], []
    monkeypatch.setattr(review, "apply_edit", lambda text, change: applied.append((text, change(analysis))))
    monkeypatch.setattr(QInputDialog, "getMultiLineText",
                        lambda parent, title, label, text: asked.append((title, label, text)) or ("Later.", True))
    window.details.show_item("speech", 10.0)
    review.edit_selected()
    window.details.show_item("captions", 300)
    review.edit_selected()
    assert asked == [("Edit what is said", "Said at 00:10.00", "Meet me at noon."),
                     ("Edit caption", "Caption at 00:12.00", "A man walks in and opens the fridge")]
    assert applied[0][0] == "Edit what is said" and applied[0][1].transcript[0].text == "Later."
    assert applied[1][0] == "Edit caption" and applied[1][1].captions[1].text == "Later."
