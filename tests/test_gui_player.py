"""Player, VideoView and TransportBar on real index-coded videos: every check of which
frame is on screen reads the frame's own index back from the picture."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PySide6.QtCore import QPointF, QTimer  # noqa: E402
from PySide6.QtGui import QColor, QImage  # noqa: E402

import videos as V  # noqa: E402
from helpers import rgb  # noqa: E402
from videoreview.gui.colors import identity_color  # noqa: E402
from videoreview.gui.video.transport import TransportBar, format_time  # noqa: E402
from videoreview.gui.video.video_view import VideoView  # noqa: E402
from videoreview.records import (  # noqa: E402
    Analysis,
    Boundary,
    BoundaryCaption,
    FaceDetection,
    FrameCaption,
    Identity,
    TranscriptSegment,
    VideoInfo,
    Word,
)

WAIT_MS = 5000  # generous: the machine may be busy with other tests


def info_for(video: V.SyntheticVideo) -> VideoInfo:
    width, height = video.size
    return VideoInfo(str(video.path), video.duration, video.fps, video.frame_count, width, height,
                     rotation=video.rotation)


def index_on_screen(view: VideoView) -> int:
    """The index coded in the frame on screen (-1: none)."""
    image = view.shown_image()
    return -1 if image.isNull() else V.read_index(rgb(image))


def settled_on(view: VideoView, n: int) -> bool:
    return view.player.current_frame() == n and index_on_screen(view) == n


def open_video(qtbot, view: VideoView, video: V.SyntheticVideo) -> None:
    with qtbot.waitSignal(view.player.durationKnown, timeout=WAIT_MS) as loaded:
        view.player.open(str(video.path), info_for(video))
    assert loaded.args == [pytest.approx(video.duration)]
    qtbot.waitUntil(lambda: settled_on(view, 0), timeout=WAIT_MS)


def show(qtbot, view: VideoView, n: int) -> None:
    view.player.seek_frame(n)
    qtbot.waitUntil(lambda: settled_on(view, n), timeout=WAIT_MS)


@pytest.fixture(scope="module")
def long_gop(video_dir) -> V.SyntheticVideo:
    """Keyframes only at 0 and 250: most frames are far from one."""
    return V.make_index_video(video_dir, "long_gop.mp4", frames=300, gop=250)


@pytest.fixture(scope="module")
def offset_mkv(video_dir, index_video) -> V.SyntheticVideo:
    """The index video in a container whose first timestamp is 2.5 s."""
    path = video_dir / "offset.mkv"
    if not path.exists():
        V.ffmpeg("-i", index_video.path, "-c", "copy", "-output_ts_offset", "2.5", path)
    return V.SyntheticVideo(path, index_video.fps, index_video.frame_count, index_video.size, index_video.times,
                            index_coded=True)


# ----------------------------------------------------------------------- seeking


def test_seek_frame_shows_exactly_that_frame(qtbot, view, index_video):
    open_video(qtbot, view, index_video)
    for n in (0, 99, 37, 1, 24, 25, 26, 49, 74, 98, 13, 62, 0):
        show(qtbot, view, n)
        assert view.player.current_time() == pytest.approx(n / 25)


def test_seek_far_from_keyframes(qtbot, view, long_gop):
    open_video(qtbot, view, long_gop)
    for n in (249, 123, 2, 248, 251, 299, 150):
        show(qtbot, view, n)


def test_seek_frame_clamps_to_the_video(qtbot, view, index_video):
    open_video(qtbot, view, index_video)
    show(qtbot, view, 50)
    view.player.seek_frame(500)
    qtbot.waitUntil(lambda: settled_on(view, 99), timeout=WAIT_MS)
    view.player.seek_frame(-3)
    qtbot.waitUntil(lambda: settled_on(view, 0), timeout=WAIT_MS)


def test_seek_seconds_shows_the_frame_on_screen_then(qtbot, view, index_video):
    open_video(qtbot, view, index_video)
    for seconds, frame in ((1.5, 37), (2.0, 50), (2.039, 50), (3.99, 99), (0.01, 0), (60.0, 99)):
        view.player.seek(seconds)
        qtbot.waitUntil(lambda frame=frame: settled_on(view, frame), timeout=WAIT_MS)


def test_step_moves_exactly(qtbot, view, long_gop):
    open_video(qtbot, view, long_gop)
    player = view.player
    show(qtbot, view, 140)
    for frames, expected in ((1, 141), (-1, 140), (5, 145), (-10, 135), (-1, 134)):
        player.step(frames)
        qtbot.waitUntil(lambda expected=expected: settled_on(view, expected), timeout=WAIT_MS)
    # Steps faster than the decoder add up: five presses, five frames.
    for _ in range(5):
        player.step(1)
    qtbot.waitUntil(lambda: settled_on(view, 139), timeout=WAIT_MS)
    show(qtbot, view, 298)
    player.step(5)
    qtbot.waitUntil(lambda: settled_on(view, 299), timeout=WAIT_MS)


def test_step_pauses_playback(qtbot, view, index_video):
    open_video(qtbot, view, index_video)
    view.player.play()
    qtbot.waitUntil(lambda: view.player.current_frame() >= 5, timeout=WAIT_MS)
    before = view.player.current_frame()
    view.player.step(1)
    assert not view.player.is_playing()
    qtbot.waitUntil(lambda: settled_on(view, before + 1), timeout=WAIT_MS)
    qtbot.wait(300)  # and no frame of the playback comes after
    assert settled_on(view, before + 1)


def test_rapid_seeks_coalesce_and_end_on_the_last(qtbot, view, long_gop):
    open_video(qtbot, view, long_gop)
    shown: list[int] = []
    view.player.frameShown.connect(lambda frame, _t: shown.append(frame))
    rng = np.random.default_rng(7)
    targets = [int(n) for n in rng.integers(0, 300, size=30)] + [123]
    for n in targets:  # all before the first frame can come back
        view.player.seek_frame(n)
    qtbot.waitUntil(lambda: settled_on(view, 123), timeout=WAIT_MS)
    qtbot.wait(200)
    assert shown[-1] == 123
    assert len(shown) <= 3  # the first, maybe the one in flight, the last

    # Like dragging a playhead: a new target every 5 ms. Intermediate frames show, and
    # when the drag stops no backlog of old seeks remains.
    drag = iter(range(10, 250, 4))
    timer = QTimer(interval=5)
    shown_while_dragging: list[int] = []

    def move() -> None:
        target = next(drag, None)
        if target is None:
            timer.stop()
            shown_while_dragging.extend(shown)
        else:
            view.player.seek_frame(target)

    timer.timeout.connect(move)
    shown.clear()
    timer.start()
    qtbot.waitUntil(lambda: not timer.isActive() and settled_on(view, 246), timeout=WAIT_MS)
    assert shown_while_dragging and shown[-1] == 246
    assert len(shown) - len(shown_while_dragging) <= 2  # the seek in flight, then the last target


def test_container_starting_after_zero(qtbot, view, offset_mkv):
    open_video(qtbot, view, offset_mkv)
    show(qtbot, view, 37)
    assert view.player.current_time() == pytest.approx(37 / 25)
    show(qtbot, view, 99)


# ---------------------------------------------------------------------- playback


def test_play_then_pause(qtbot, view, index_video):
    open_video(qtbot, view, index_video)
    player = view.player
    shown: list[int] = []
    player.frameShown.connect(lambda frame, _t: shown.append(frame))
    with qtbot.waitSignal(player.playingChanged, timeout=WAIT_MS) as started:
        player.play()
    assert started.args == [True] and player.is_playing()
    qtbot.waitUntil(lambda: player.current_frame() >= 10, timeout=WAIT_MS)
    with qtbot.waitSignal(player.playingChanged, timeout=WAIT_MS) as stopped:
        player.pause()
    assert stopped.args == [False] and not player.is_playing()
    assert len(shown) >= 5 and shown == sorted(shown)
    qtbot.wait(200)
    assert settled_on(view, player.current_frame())


def test_close_while_playing_stops_with_the_gil_released(qtbot, view, index_video):
    from PySide6.QtMultimedia import QMediaPlayer

    from videoreview.gui.video import gil_free_calls

    # The GIL-free calls are the ones made here (Linux's C++ ABI), and they do the job.
    assert gil_free_calls._function(gil_free_calls.STOP) is not None
    assert gil_free_calls._function(gil_free_calls.SET_SOURCE) is not None
    open_video(qtbot, view, index_video)
    qt = view.player._player
    assert qt.source().isLocalFile()
    with qtbot.waitSignal(view.player.playingChanged, timeout=WAIT_MS):
        view.player.play()
    with qtbot.waitSignal(view.player.videoChanged, timeout=WAIT_MS) as closed:
        view.player.close()
    assert closed.args == [None]
    assert qt.playbackState() == QMediaPlayer.PlaybackState.StoppedState and qt.source().isEmpty()
    open_video(qtbot, view, index_video)  # and it opens again
    assert qt.source().toLocalFile() == str(index_video.path)


def test_playing_to_the_end_keeps_the_last_frame(qtbot, view, index_video):
    open_video(qtbot, view, index_video)
    player = view.player
    show(qtbot, view, 92)
    player.play()
    qtbot.waitUntil(lambda: not player.is_playing() and settled_on(view, 99), timeout=WAIT_MS)
    with qtbot.waitSignal(player.playingChanged, timeout=WAIT_MS):
        player.play()  # from the end: starts over
    qtbot.waitUntil(lambda: 0 < player.current_frame() < 90, timeout=WAIT_MS)
    player.pause()


def test_set_rate(qtbot, view, index_video):
    open_video(qtbot, view, index_video)
    player = view.player
    with qtbot.waitSignal(player.rateChanged, timeout=WAIT_MS) as changed:
        player.set_rate(2.0)
    assert changed.args == [2.0] and player.rate() == 2.0
    player.set_rate(10)
    assert player.rate() == 4.0
    player.set_rate(0.1)
    assert player.rate() == 0.25
    player.play()
    qtbot.waitUntil(lambda: player.current_frame() >= 3, timeout=WAIT_MS)
    player.pause()


def test_shuttle_jkl(qtbot, view, index_video):
    open_video(qtbot, view, index_video)
    player = view.player
    player.shuttle("L")
    assert player.is_playing() and player.rate() == 1.0
    player.shuttle("l")
    assert player.is_playing() and player.rate() == 2.0
    player.shuttle("L")
    player.shuttle("L")
    assert player.rate() == 4.0  # the top speed
    player.shuttle("K")
    assert not player.is_playing() and player.rate() == 1.0

    show(qtbot, view, 90)
    player.shuttle("J")
    assert player.is_playing() and player.rate() == -1.0
    qtbot.waitUntil(lambda: player.current_frame() <= 84, timeout=WAIT_MS)
    player.shuttle("J")
    assert player.rate() == -2.0
    qtbot.waitUntil(lambda: player.current_frame() <= 70, timeout=WAIT_MS)
    player.shuttle("K")
    assert not player.is_playing() and player.rate() == 1.0
    # A seek asked for just before K is still served: wait for the frame it ends on.
    qtbot.waitUntil(lambda: settled_on(view, player.target_frame()), timeout=WAIT_MS)
    stopped_at = player.current_frame()
    qtbot.wait(300)
    assert settled_on(view, stopped_at) and stopped_at <= 70

    # Any seek stops reverse play; reverse play stops by itself at the first frame.
    player.shuttle("J")
    player.seek_frame(50)
    assert not player.is_playing()
    qtbot.waitUntil(lambda: settled_on(view, 50), timeout=WAIT_MS)
    show(qtbot, view, 4)
    player.shuttle("J")
    qtbot.waitUntil(lambda: not player.is_playing() and settled_on(view, 0), timeout=WAIT_MS)
    with pytest.raises(ValueError):
        player.shuttle("X")


def test_video_with_audio_plays_and_mutes(qtbot, view, audio_video):
    video = V.SyntheticVideo(audio_video, 25.0, 100, (320, 180), np.arange(100) / 25, index_coded=True)
    open_video(qtbot, view, video)
    player = view.player
    with qtbot.waitSignal(player.mutedChanged, timeout=WAIT_MS) as muted:
        player.set_muted(True)
    assert muted.args == [True] and player.is_muted()
    player.play()
    qtbot.waitUntil(lambda: player.current_frame() >= 5, timeout=WAIT_MS)
    player.pause()
    player.set_muted(False)
    assert not player.is_muted()


# ------------------------------------------------------------------------ errors


def test_bad_files_give_one_clear_error(qtbot, view, tmp_path):
    not_video = tmp_path / "notes for review.mp4"
    not_video.write_text("this is not a video\n" * 200)
    missing = tmp_path / "gone.mp4"
    audio_only = V.make_audio_only(tmp_path)
    for path in (not_video, missing, audio_only):
        info = VideoInfo(str(path), 4.0, 25.0, 100, 320, 180)
        with qtbot.waitSignal(view.player.error, timeout=WAIT_MS) as failed:
            view.player.open(str(path), info)
        assert path.name in failed.args[0]
        assert view.player.video_info() is None
        view.player.seek_frame(10)  # harmless with nothing open
        assert view.player.current_frame() == -1


# ---------------------------------------------------------------------- overlays

P1_BOX = (20.0, 30.0, 60.0, 70.0)
P2_BOX = (200.0, 40.0, 50.0, 60.0)
P1_LATER = (30.0, 30.0, 60.0, 70.0)
STRANGER = (120.0, 100.0, 40.0, 40.0)


def review_analysis(video: V.SyntheticVideo) -> Analysis:
    return Analysis(
        info_for(video),
        captions=(FrameCaption(0.0, 0, "zero"), FrameCaption(1.0, 25, "one"),
                  FrameCaption(2.0, 50, "two", edited=True), FrameCaption(3.0, 75, "three")),
        boundaries=(Boundary(2.0, 50, "cut", 0.9),
                    Boundary(3.0, 75, "event", 0.7, BoundaryCaption("the ball", "rolling", "stopped"))),
        faces=(FaceDetection(1.0, 25, P1_BOX, 0.9, 0, "P1"), FaceDetection(1.0, 25, P2_BOX, 0.8, 1, "P2"),
               FaceDetection(1.8, 45, P1_LATER, 0.9, 0, "P1"), FaceDetection(3.2, 80, STRANGER, 0.6, 2, None)),
        identities=(Identity("P1", name="Alice"), Identity("P2")),
    )


EVENT_LABEL = "event: the ball — rolling → stopped"
ALICE_AND_P2 = [("Alice (P1)", P1_BOX), ("P2", P2_BOX)]
EXPECTED = {  # frame: (caption, boundary label, faces)
    0: ("zero", None, []),
    24: ("zero", None, []),
    25: ("one", None, ALICE_AND_P2),
    39: ("one", None, ALICE_AND_P2),  # 0.56 s after the sample
    41: ("one", None, []),  # 0.64 s: too old
    45: ("one", None, [("Alice (P1)", P1_LATER)]),
    49: ("one", None, [("Alice (P1)", P1_LATER)]),
    50: ("two", "cut", []),  # the cut: faces from before it are gone
    52: ("two", "cut", []),
    59: ("two", "cut", []),
    60: ("two", None, []),
    74: ("two", None, []),
    75: ("three", EVENT_LABEL, []),
    80: ("three", EVENT_LABEL, [("?", STRANGER)]),
    84: ("three", EVENT_LABEL, [("?", STRANGER)]),  # 0.36 s after the event
    85: ("three", None, [("?", STRANGER)]),
    99: ("three", None, []),
}


def test_overlays_follow_the_frame_shown(qtbot, view, index_video):
    open_video(qtbot, view, index_video)
    view.set_analysis(review_analysis(index_video))
    for frame in (0, 25, 50, 24, 39, 41, 45, 49, 52, 59, 60, 74, 75, 80, 84, 85, 99, 25):
        show(qtbot, view, frame)
        caption, boundary, faces = EXPECTED[frame]
        state = view.overlay_state()
        assert (state["caption"], state["boundary"], state["faces"]) == (caption, boundary, faces), frame
        assert state["caption_edited"] == (caption == "two")


def test_a_caption_from_before_a_cut_is_not_shown_after_it(qtbot, view, index_video):
    """Captions are sampled at 1 fps: just after a cut, the last one describes the old shot."""
    open_video(qtbot, view, index_video)
    analysis = review_analysis(index_video)
    view.set_analysis(Analysis(analysis.video, captions=(FrameCaption(0.0, 0, "zero"), FrameCaption(1.6, 40, "late")),
                               boundaries=(Boundary(2.0, 50, "cut", 0.9),)))
    show(qtbot, view, 49)
    assert view.overlay_state()["caption"] == "late"
    show(qtbot, view, 51)
    assert view.overlay_state()["caption"] is None


def drawn(view) -> dict:
    """What the overlays report drawn (each capability's overlay says its part of the state)."""
    return {key: value for key, value in view.overlay_state().items() if value not in (None, False, [])}


def test_overlays_toggle_and_update_with_new_analyses(qtbot, view, index_video):
    open_video(qtbot, view, index_video)
    analysis = review_analysis(index_video)
    view.set_analysis(Analysis(analysis.video, captions=analysis.captions))  # only the captions stage so far
    show(qtbot, view, 25)
    assert drawn(view) == {"caption": "one"}  # nothing else drawn: no faces, speech, notes, ...
    view.set_analysis(analysis)
    assert view.overlay_state()["faces"] == ALICE_AND_P2
    show(qtbot, view, 50)
    for name, key, hidden in (("captions", "caption", None), ("boundaries", "boundary", None)):
        view.set_overlay_visible(name, False)
        assert not view.overlay_visible(name) and view.overlay_state()[key] is hidden
        view.set_overlay_visible(name, True)
        assert view.overlay_visible(name) and view.overlay_state()[key] is not None
    show(qtbot, view, 25)
    view.set_overlay_visible("faces", False)
    assert view.overlay_state()["faces"] == []
    show(qtbot, view, 26)  # stays hidden while frames change
    assert view.overlay_state()["faces"] == []
    view.set_overlay_visible("faces", True)
    assert view.overlay_state()["faces"] == ALICE_AND_P2
    view.set_analysis(None)
    assert view.overlay_state()["faces"] == [] and drawn(view) == {}
    with pytest.raises(ValueError):
        view.set_overlay_visible("subtitles", True)


def _colour_near(image: QImage, point: QPointF, color: QColor, radius: int = 3) -> bool:
    pixels = rgb(image)
    x, y = round(point.x()), round(point.y())
    patch = pixels[y - radius:y + radius + 1, x - radius:x + radius + 1].astype(int)
    want = np.array([color.red(), color.green(), color.blue()])
    return bool((np.abs(patch - want).max(axis=2) <= 12).any())


def test_face_boxes_are_drawn_in_the_identity_colour(qtbot, view, index_video):
    open_video(qtbot, view, index_video)
    view.set_analysis(review_analysis(index_video))
    show(qtbot, view, 25)
    qtbot.wait(50)
    image = view.grab().toImage()
    for pid, (x, y, w, h) in (("P1", P1_BOX), ("P2", P2_BOX)):
        left_edge = view.mapFromScene(QPointF(x, y + h * 0.6))
        bottom_edge = view.mapFromScene(QPointF(x + w / 2, y + h))
        assert _colour_near(image, left_edge, identity_color(pid)), pid
        assert _colour_near(image, bottom_edge, identity_color(pid)), pid
        inside = view.mapFromScene(QPointF(x + w / 2, y + h / 2))
        assert not _colour_near(image, inside, identity_color(pid)), pid  # outlined, not filled
    view.set_overlay_visible("faces", False)
    qtbot.wait(50)
    image = view.grab().toImage()
    assert not _colour_near(image, view.mapFromScene(QPointF(P1_BOX[0], P1_BOX[1] + 40)), identity_color("P1"))


def test_video_fills_the_view_and_rotation_is_shown(qtbot, view, rotated_video):
    open_video(qtbot, view, rotated_video)  # stored 320x180, shown turned 90° clockwise
    view.resize(300, 600)
    qtbot.wait(100)
    image = rgb(view.grab().toImage())
    # Shown portrait (180x320 scaled to 300x533): the red patch of the stored bottom-left
    # corner is now top-left, and the bars beside the picture are black.
    top_left = view.mapFromScene(QPointF(10, 10))
    assert tuple(image[top_left.y(), top_left.x()]) == pytest.approx((255, 0, 0), abs=40)
    assert image[5, 150].max() < 20 and image[-5, 150].max() < 20


def test_placeholder_without_a_video(qtbot, view):
    image = rgb(view.grab().toImage())
    assert image.max() > 100  # the "Drop a video here" text on black
    assert view.overlay_state()["caption"] is None


# --------------------------------------------------------------------- transport


def test_transport_bar(qtbot, view, index_video):
    bar = TransportBar(view.player)
    qtbot.addWidget(bar)
    assert bar.time_label.text() == "--:--.-- / --:--.--" and not bar.play_button.isEnabled()
    open_video(qtbot, view, index_video)
    show(qtbot, view, 37)
    assert bar.time_label.text() == "00:01.12 / 00:04.00   frame 37"
    bar.step_forward_button.click()
    qtbot.waitUntil(lambda: settled_on(view, 38), timeout=WAIT_MS)
    bar.step_back_button.click()
    qtbot.waitUntil(lambda: settled_on(view, 37), timeout=WAIT_MS)

    view.player.set_rate(2.0)
    assert bar.speed_box.currentData() == 2.0
    bar.speed_box.setCurrentIndex(bar.speed_box.findData(0.5))
    assert view.player.rate() == 0.5

    with qtbot.waitSignal(view.player.playingChanged, timeout=WAIT_MS):
        bar.play_button.click()
    assert view.player.is_playing() and bar.play_button.toolTip().startswith("Pause")
    bar.play_button.click()
    assert not view.player.is_playing()

    bar.mute_button.click()
    assert view.player.is_muted() and bar.mute_button.isChecked()

    with qtbot.waitSignal(bar.overlayToggled, timeout=WAIT_MS) as toggled:
        bar.overlay_buttons["faces"].click()
    assert toggled.args == ["faces", False]
    with qtbot.assertNotEmitted(bar.overlayToggled):
        bar.set_overlay_checked("faces", True)
    assert bar.overlay_buttons["faces"].isChecked()
    with qtbot.waitSignal(bar.nextBoundary, timeout=WAIT_MS):
        bar.next_boundary_button.click()
    with qtbot.waitSignal(bar.previousKeyframe, timeout=WAIT_MS):
        bar.previous_keyframe_button.click()

    view.player.close()
    assert bar.time_label.text() == "--:--.-- / --:--.--"


def test_format_time():
    assert format_time(0, 25) == "00:00.00"
    assert format_time(61.48, 25) == "01:01.12"
    assert format_time(3725.96, 25) == "1:02:05.24"
    assert format_time(1 / 29.97 * 29, 29.97) == "00:00.29"


def test_speech_subtitles_follow_what_is_said(qtbot, view, index_video):
    open_video(qtbot, view, index_video)
    words = (Word(1.0, 1.4, "Good"), Word(1.4, 2.0, "morning."), Word(2.1, 2.6, "Tea?"))
    analysis = Analysis(info_for(index_video), captions=(FrameCaption(0.0, 0, "zero"),),
                        identities=(Identity("P1", name="Alice"),),
                        transcript=(TranscriptSegment(1.0, 2.6, "Good morning. Tea?", words, speaker="P1"),))
    view.set_analysis(analysis)
    show(qtbot, view, 10)  # 0.4 s: nothing said yet
    assert view.overlay_state()["speech"] is None
    show(qtbot, view, 30)  # 1.2 s: the first sentence, a cue of its own, with the speaker's name
    state = view.overlay_state()
    assert state["speech"] == "Alice: Good morning." and state["caption"] == "zero"
    show(qtbot, view, 55)  # 2.2 s: the next sentence
    assert view.overlay_state()["speech"] == "Alice: Tea?"
    view.set_overlay_visible("speech", False)
    assert view.overlay_state()["speech"] is None and view.overlay_state()["caption"] == "zero"
