"""The objects found in a video, in the window: the timeline's Objects track (one bar per
object track, in lanes, under a row of shot tags: the names an image-text model gives each
shot, as chips along the shot) and the video's object boxes (the detections of the sample
shown, toggled like the other overlays). Analyses are built by hand."""

from __future__ import annotations

import math
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PySide6.QtCore import QPoint, QPointF, Qt  # noqa: E402
from PySide6.QtGui import QColor  # noqa: E402

import videos as V  # noqa: E402
from helpers import close_to, lane_y, main_window, rgb, shown_timeline  # noqa: E402
from videoreview.gui.colors import object_color  # noqa: E402
from videoreview.gui.panels.details_panel import DetailsPanel  # noqa: E402
from videoreview.gui.timeline.tracks.lanes import LANE_H, MAX_LANES, PAD, Packed  # noqa: E402
from videoreview.gui.timeline.tracks.objects import TAG_ROW_H  # noqa: E402
from videoreview.gui.video.video_view import VideoView  # noqa: E402
from videoreview.gui.window_settings import window_settings  # noqa: E402
from videoreview.records import Analysis, Boundary, ObjectDetection, ObjectTrack, ShotTag, VideoInfo  # noqa: E402

FPS = 25.0
WAIT_MS = 5000

# id, label, start, end: the cup and the car overlap (two lanes); the dog starts after the cup ends.
TRACKS = [(0, "cup", 2.0, 10.0), (1, "car", 5.0, 20.0), (2, "dog", 12.0, 18.0), (3, "car", 30.0, 41.0)]
LANES = {0: 0, 1: 1, 2: 0, 3: 0}


def object_tracks(spans=TRACKS) -> tuple[ObjectTrack, ...]:
    return tuple(ObjectTrack(tid, label, start, end, 0.55 + 0.1 * tid, round(end - start)) for tid, label, start, end
                 in spans)


def timeline_analysis(tracks=TRACKS, duration=60.0, tags=()) -> Analysis:
    video = VideoInfo(path="/videos/objects.mp4", duration=duration, fps=FPS, frame_count=round(duration * FPS),
                      width=1280, height=720)
    return Analysis(video=video, content_hash="objects", object_tracks=object_tracks(tracks) if tracks else (),
                    shot_tags=shot_tags(tags))


# shot start, end, then each name and probability: a wide shot with room for its three names, a
# 6 s shot with room for one and "+2", then one name a shot.
TAGS = [(0.0, 14.0, ("parrot", 0.83), ("beach", 0.71), ("palm tree", 0.62)),
        (14.0, 20.0, ("beach", 0.6), ("sea", 0.55), ("sand", 0.52)),
        (20.0, 41.0, ("race car", 0.81),), (41.0, 60.0, ("kitchen", 0.77),)]


def shot_tags(shots=TAGS) -> tuple[ShotTag, ...]:
    return tuple(ShotTag(start, end, round(start * FPS), name, score, "siglip:tiny@1", edited=name == "sea")
                 for start, end, *names in shots for name, score in names)


def tag_y(timeline, at: float = 0.5) -> int:
    """A height in the Objects track's row of shot tags (0 its top, 1 its bottom)."""
    return timeline.track_rect("objects").top() + PAD + round(at * (TAG_ROW_H - 1))


def tags_along(timeline, start: float, end: float) -> list[tuple[str, int]]:
    """What a click hits in the tags' row from ``start`` to ``end`` seconds, pixel by pixel:
    each run of one hit as (its tag's name, the run's first x)."""
    runs: list[tuple[str, int]] = []
    for x in range(round(timeline.x_of(start)), round(timeline.x_of(end))):
        hit = timeline.item_at(QPoint(x, tag_y(timeline)))
        name = hit[1][1] if hit is not None and hit[0] == "image-text" else "-"
        if not runs or runs[-1][0] != name:
            runs.append((name, x))
    return runs


@pytest.fixture
def timeline(qtbot):
    return shown_timeline(qtbot, (1000, 320))


# ---------------------------------------------------------------------------- the track


def test_a_bar_per_object_track_over_its_span(timeline):
    timeline.set_analysis(timeline_analysis())
    names = timeline.track_names()
    assert "objects" in names and names.index("captions") < names.index("objects") < names.index("keyframes")
    assert timeline.track_rect("objects").height() == 2 * LANE_H + 2 * PAD  # two lanes: the cup and car overlap
    for tid, label, start, end in TRACKS:
        y = lane_y(timeline, "objects", LANES[tid])
        for t in (start + 0.1, (start + end) / 2, end - 0.1):
            assert timeline.item_at(QPointF(timeline.x_of(t), y)) == ("objects", tid), (label, t)
        for t in (start - 0.5, end + 0.5):  # past its ends: not this bar
            assert timeline.item_at(QPointF(timeline.x_of(t), y)) != ("objects", tid), (label, t)
        other_lane = lane_y(timeline, "objects", 1 - LANES[tid])
        assert timeline.item_at(QPointF(timeline.x_of((start + end) / 2), other_lane)) != ("objects", tid)

    image = rgb(timeline.grab().toImage())
    for tid, label, start, end in TRACKS:
        top = lane_y(timeline, "objects", LANES[tid], 0.15)  # above the label's letters
        x0, x1 = int(timeline.x_of(start)), int(timeline.x_of(end))
        row = image[top]
        assert close_to(row[x0], object_color(label)), label  # the bar's left edge, in its label's colour
        fill = row[x1 - 3]
        assert not close_to(fill, QColor(*row[x0 - 3])), label  # the bar is there up to its end ...
        assert close_to(row[x1 + 3], QColor(*row[x0 - 3]), 4), label  # ... and not after it
        assert np.array_equal(row[(x0 + x1) // 2], fill), label  # one fill from end to end
    # The label is written at the start of each bar (dark letters on the light fill).
    cup_x0 = int(timeline.x_of(2.0))
    band = image[lane_y(timeline, "objects", 0, 0.2):lane_y(timeline, "objects", 0, 0.8), cup_x0 + 4:cup_x0 + 30]
    assert (band.max(axis=2) < 100).sum() > 10
    quiet = image[lane_y(timeline, "objects", 0, 0.2):lane_y(timeline, "objects", 0, 0.8), cup_x0 + 60:cup_x0 + 86]
    assert (quiet.max(axis=2) < 100).sum() == 0  # the rest of the bar: no letters


def test_tooltip_and_click(qtbot, timeline):
    timeline.set_analysis(timeline_analysis())
    pos = QPointF(timeline.x_of(6.0), lane_y(timeline, "objects", 1))
    tip = timeline.tooltip_at(pos)
    assert tip.startswith("car: 00:05.00 – 00:20.00") and "mean score 0.65" in tip
    cup = QPointF(timeline.x_of(6.0), lane_y(timeline, "objects", 0))
    assert "cup: 00:02.00 – 00:10.00" in timeline.tooltip_at(cup)
    assert timeline.tooltip_at(QPointF(timeline.x_of(25.0), lane_y(timeline, "objects", 0))) == ""

    seeks, selections = [], []
    timeline.seekRequested.connect(seeks.append)
    timeline.selected.connect(lambda kind, key: selections.append((kind, key)))
    qtbot.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=pos.toPoint())
    assert seeks == [5.0] and selections == [("objects", 1)]  # to the start of the car's track
    assert timeline.selection() == ("objects", 1)


def test_hidden_without_object_tracks(timeline):
    timeline.set_analysis(timeline_analysis(tracks=()))
    assert "objects" not in timeline.track_names() and timeline.track_rect("objects").isNull()
    without = timeline.sizeHint().height()
    timeline.set_analysis(timeline_analysis())
    assert timeline.sizeHint().height() == without + 2 * LANE_H + 2 * PAD


def test_lanes_stop_at_the_most_the_track_shows():
    """As many lanes as tracks overlap, up to MAX_LANES; past that a track shares the lane
    that frees soonest."""
    spans = [(k, "person", float(k), 30.0 + k) for k in range(MAX_LANES + 2)] + [(99, "cup", 40.0, 45.0)]
    packed = Packed.of(object_tracks(spans))
    assert packed.lane_count == MAX_LANES
    assert packed.lanes.tolist() == [*range(MAX_LANES), 0, 1, 0]
    assert Packed.of(object_tracks([(0, "cup", 0.0, 5.0), (1, "cup", 5.0, 9.0)])).lane_count == 1  # touching


# ------------------------------------------------------------------------------ shot tags


def test_shot_tags_are_chips_along_each_shot_above_the_bars(timeline):
    timeline.set_analysis(timeline_analysis(tags=TAGS))
    assert timeline.track_rect("objects").height() == TAG_ROW_H + 2 * LANE_H + 2 * PAD
    # The bars keep their lanes, under the tags' row.
    cup = timeline.track_rect("objects").top() + PAD + TAG_ROW_H + LANE_H // 2
    assert timeline.item_at(QPointF(timeline.x_of(6.0), cup)) == ("objects", 0)
    assert timeline.item_at(QPointF(timeline.x_of(6.0), cup + LANE_H)) == ("objects", 1)
    # Chips from the shot's start, most probable first; past them, the shot's most probable name.
    wide = tags_along(timeline, 0.0, 14.0)
    assert [name for name, _ in wide] == ["parrot", "beach", "palm tree", "parrot"]
    # A shot too short for its names: the first, then "+2", which stands for the first of the rest.
    short = tags_along(timeline, 14.0, 20.0)
    assert [name for name, _ in short] == ["beach", "sea", "beach"]
    assert timeline.item_at(QPoint(round(timeline.x_of(30.0)), tag_y(timeline))) == ("image-text", (500, "race car"))

    image = rgb(timeline.grab().toImage())
    chips = [("parrot", wide[0][1] + 2), *wide[1:3]]  # the first chip starts 2 px into its shot
    for (name, x), after in zip(chips, [wide[1][1], wide[2][1], wide[3][1]]):
        assert close_to(image[tag_y(timeline), x], object_color(name), 24), name  # the chip's edge, in its colour
        letters = image[tag_y(timeline, 0.2):tag_y(timeline, 0.8), x + 3:after - 4]
        assert (letters.max(axis=2) < 110).sum() > 8, name  # its name written in it
    more = image[tag_y(timeline, 0.2):tag_y(timeline, 0.8), short[1][1] + 2:short[2][1] - 4]
    assert (more.max(axis=2) < 190).sum() > 3  # "+2"
    # Each shot's line along its span, stopping short of the next shot.
    y = tag_y(timeline, 1.0) - 1
    background = QColor(*image[y - 5, round(timeline.x_of(12.0))])  # over the line, past the chips
    assert not close_to(image[y, round(timeline.x_of(12.0))], background, 20)  # drawn along the shot
    assert close_to(image[y, math.floor(timeline.x_of(14.0)) - 1], background, 4)  # and not up to the next


def test_a_shot_tag_s_tooltip_and_click(qtbot, timeline):
    timeline.set_analysis(timeline_analysis(tags=TAGS))
    name, x = tags_along(timeline, 0.0, 14.0)[1]
    assert name == "beach"
    pos = QPointF(x + 5, tag_y(timeline))
    assert timeline.tooltip_at(pos) == ("beach: probability 0.71\nshot 00:00.00 – 00:14.00\nnamed by siglip:tiny@1\n"
                                        "also in this shot: parrot 0.83, palm tree 0.62")
    sea = QPointF(tags_along(timeline, 14.0, 20.0)[1][1] + 2, tag_y(timeline))
    assert timeline.tooltip_at(sea).startswith("sea: probability 0.55\nshot 00:14.00 – 00:20.00\n"
                                               "named by siglip:tiny@1, edited by a reviewer")
    seeks, selections = [], []
    timeline.seekRequested.connect(seeks.append)
    timeline.selected.connect(lambda kind, key: selections.append((kind, key)))
    before = rgb(timeline.grab().toImage())[tag_y(timeline, 0.0), round(x) + 8]
    qtbot.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=pos.toPoint())
    assert seeks == [0.0] and selections == [("image-text", (0, "beach"))]  # to the shot's start
    after = rgb(timeline.grab().toImage())[tag_y(timeline, 0.0), round(x) + 8]
    assert close_to(after, timeline.palette().highlight().color()) and not np.array_equal(before, after)  # outlined


def test_the_track_shows_for_shot_tags_alone(timeline):
    timeline.set_analysis(timeline_analysis(tracks=(), tags=TAGS))
    assert "objects" in timeline.track_names()
    assert timeline.track_rect("objects").height() == TAG_ROW_H + 2 * PAD
    assert timeline.item_at(QPoint(round(timeline.x_of(45.0)), tag_y(timeline))) == ("image-text", (1025, "kitchen"))
    assert timeline.item_at(QPoint(round(timeline.x_of(45.0)), timeline.track_rect("objects").bottom() - 1)) is None
    timeline.set_analysis(timeline_analysis(tracks=()))
    assert "objects" not in timeline.track_names()


def test_details_of_a_shot_tag(qtbot):
    panel = DetailsPanel()
    qtbot.addWidget(panel)
    panel.set_analysis(timeline_analysis(tags=TAGS))
    panel.show_item("image-text", (0, "palm tree"))
    assert panel.title.text() == "<b>Palm tree</b> in the shot 00:00.00 – 00:14.00"
    assert panel.info.text() == ("Shot tag, probability 0.62: the model's own that the name describes the picture, "
                                 "averaged over the shot's frames\nnamed by siglip:tiny@1\n"
                                 "Also named in this shot: parrot (0.83), beach (0.71)")
    assert panel.badge.isHidden()
    panel.show_item("image-text", (350, "sea"))
    assert not panel.badge.isHidden()  # a reviewer's
    panel.show_item("image-text", (350, "parrot"))  # not a name of that shot: nothing
    assert panel.kind is None


def test_clicking_a_shot_tag_in_the_window_shows_its_details(qtbot, home):
    with main_window(qtbot) as window:
        shown = timeline_analysis(tags=TAGS)
        window.timeline.set_analysis(shown)  # as the window shows a document's analysis
        window.details.set_analysis(shown)
        timeline = window.timeline
        timeline.reveal("objects")
        qtbot.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(round(timeline.x_of(30.0)), tag_y(timeline)))
        assert window.details.title.text() == "<b>Race car</b> in the shot 00:20.00 – 00:41.00"
        assert timeline.selection() == ("image-text", (500, "race car"))


def test_the_tags_row_in_a_screenshot(timeline, tmp_path):
    """The row as a reviewer sees it (a picture to look at: tmp_path/objects-tags.png)."""
    timeline.set_analysis(timeline_analysis(tags=TAGS))
    timeline.set_selection("image-text", (500, "race car"))
    assert timeline.grab().save(str(tmp_path / "objects-tags.png"))


# ----------------------------------------------------------------------- the boxes

CUP = (20.0, 30.0, 80.0, 60.0)
CAR = (180.0, 80.0, 100.0, 70.0)
CAR_LATER = (190.0, 80.0, 100.0, 70.0)
STRAY = (120.0, 120.0, 30.0, 30.0)  # a detection in no track: never drawn


def boxes_analysis(video: V.SyntheticVideo) -> Analysis:
    width, height = video.size
    info = VideoInfo(str(video.path), video.duration, video.fps, video.frame_count, width, height)
    detections = (ObjectDetection(1.0, 25, "cup", CUP, 0.6, 0), ObjectDetection(1.0, 25, "car", CAR, 0.7, 1),
                  ObjectDetection(1.0, 25, "bird", STRAY, 0.3, -1), ObjectDetection(2.0, 50, "car", CAR_LATER, 0.7, 1),
                  ObjectDetection(3.4, 85, "cup", CUP, 0.6, 2))
    return Analysis(info, boundaries=(Boundary(3.6, 90, "cut", 0.9),), objects=detections,
                    object_tracks=(ObjectTrack(0, "cup", 1.0, 2.0, 0.6, 1), ObjectTrack(1, "car", 1.0, 3.0, 0.7, 2),
                                   ObjectTrack(2, "cup", 3.4, 3.6, 0.6, 1)))


BOXES = {  # frame: the boxes drawn
    0: [],  # before the first sample
    24: [],
    25: [("cup", CUP), ("car", CAR)],
    49: [("cup", CUP), ("car", CAR)],  # 0.96 s after the sample: still standing
    50: [("car", CAR_LATER)],  # the next sample: the cup is gone
    74: [("car", CAR_LATER)],
    75: [],  # a second after the last sample with the car
    85: [("cup", CUP)],
    89: [("cup", CUP)],
    90: [],  # the cut: nothing from before it
    99: [],
}


def open_video(qtbot, view: VideoView, video: V.SyntheticVideo) -> None:
    width, height = video.size
    with qtbot.waitSignal(view.player.durationKnown, timeout=WAIT_MS):
        view.player.open(str(video.path), VideoInfo(str(video.path), video.duration, video.fps, video.frame_count,
                                                    width, height))
    qtbot.waitUntil(lambda: view.player.current_frame() == 0, timeout=WAIT_MS)


def show(qtbot, view: VideoView, frame: int) -> None:
    view.player.seek_frame(frame)
    qtbot.waitUntil(lambda: view.player.current_frame() == frame, timeout=WAIT_MS)


def edge_colour_near(image, view: VideoView, point: QPointF, color: QColor, radius: int = 3) -> bool:
    pixels = rgb(image)
    at = view.mapFromScene(point)
    patch = pixels[at.y() - radius:at.y() + radius + 1, at.x() - radius:at.x() + radius + 1].astype(int)
    return bool((np.abs(patch - [color.red(), color.green(), color.blue()]).max(axis=2) <= 12).any())


def test_boxes_follow_the_samples(qtbot, view, index_video):
    open_video(qtbot, view, index_video)
    view.set_analysis(boxes_analysis(index_video))
    for frame in (0, 25, 49, 50, 24, 74, 75, 85, 89, 90, 99, 25):
        show(qtbot, view, frame)
        assert view.object_boxes() == BOXES[frame], frame


def test_boxes_are_drawn_and_toggled(qtbot, view, index_video):
    open_video(qtbot, view, index_video)
    view.set_analysis(boxes_analysis(index_video))
    x, y, w, h = CAR
    left_edge, bottom_edge, inside = QPointF(x, y + h * 0.6), QPointF(x + w / 2, y + h), QPointF(x + w / 2, y + h / 2)
    car = object_color("car")

    show(qtbot, view, 30)
    qtbot.wait(50)
    image = view.grab().toImage()
    assert edge_colour_near(image, view, left_edge, car) and edge_colour_near(image, view, bottom_edge, car)
    assert not edge_colour_near(image, view, inside, car)  # outlined, not filled
    assert edge_colour_near(image, view, QPointF(CUP[0], CUP[1] + CUP[3] * 0.6), object_color("cup"))
    assert not edge_colour_near(image, view, QPointF(STRAY[0], STRAY[1] + 15), object_color("bird"))

    view.set_overlay_visible("objects", False)
    assert not view.overlay_visible("objects") and view.object_boxes() == []
    show(qtbot, view, 31)  # stays hidden while frames change
    qtbot.wait(50)
    assert view.object_boxes() == []
    assert not edge_colour_near(view.grab().toImage(), view, left_edge, car)
    view.set_overlay_visible("objects", True)
    assert view.object_boxes() == BOXES[25]

    show(qtbot, view, 80)  # no detection then
    qtbot.wait(50)
    assert view.object_boxes() == []
    assert not edge_colour_near(view.grab().toImage(), view, left_edge, car)
    view.set_analysis(None)
    assert view.object_boxes() == []


# ----------------------------------------------------------------------- the toggle


def test_object_boxes_toggle_in_the_view_menu(qtbot, home):
    with main_window(qtbot) as window:
        action = window.menus.overlays["objects"]
        assert action.text() == "Object boxes" and action.shortcut().toString() == "Alt+6"
        # Not chosen yet: the boxes follow the picture's size, and the menu says which it is.
        assert window.view.objects_auto() and action.isChecked() == window.view.overlay_visible("objects")
        action.setChecked(True)
        assert window.view.overlay_visible("objects")
        action.setChecked(False)
        assert not window.view.overlay_visible("objects")
        assert window_settings().value("overlay/objects", type=bool) is False
    with main_window(qtbot) as again:  # remembered
        assert not again.menus.overlays["objects"].isChecked() and not again.view.overlay_visible("objects")
        again.menus.overlays["objects"].setChecked(True)
        assert again.view.overlay_visible("objects")


def test_lane_hits_need_the_lane(timeline):
    """A click between lanes or under the last one hits nothing."""
    timeline.set_analysis(timeline_analysis())
    rect = timeline.track_rect("objects")
    x = timeline.x_of(6.0)
    assert timeline.item_at(QPoint(round(x), rect.top() + 1)) is None  # the padding above the first lane
    assert timeline.item_at(QPoint(round(x), rect.bottom() - 1)) is None  # and below the last


def test_a_label_that_does_not_fit_is_not_printed_cut(timeline):
    # a "person" bar about 30 px wide: wide enough for a label, not for this one (no "pe...")
    timeline.set_analysis(timeline_analysis([(0, "person", 2.0, 4.0), (1, "person", 20.0, 40.0)]))
    narrow = timeline.x_of(4.0) - timeline.x_of(2.0)
    assert 22 <= narrow < 40
    image = rgb(timeline.grab().toImage())
    rows = slice(lane_y(timeline, "objects", 0, 0.2), lane_y(timeline, "objects", 0, 0.8))

    def letters(start: float, end: float) -> int:
        return int((image[rows, int(timeline.x_of(start)) + 2:int(timeline.x_of(end)) - 1].max(axis=2) < 100).sum())

    assert letters(2.0, 4.0) == 0
    assert letters(20.0, 22.5) > 10  # the whole word where it fits
    assert timeline.tooltip_at(QPointF(timeline.x_of(3.0), lane_y(timeline, "objects", 0))).startswith("person")


# ------------------------------------------------------------ short gaps, uncertain tracks, small pictures


def test_bars_of_one_label_a_short_gap_apart_are_drawn_as_one(timeline):
    # a person missed for a sample (6 s to 7 s) is one bar; 8 s later, a bar of their own
    timeline.set_analysis(timeline_analysis([(0, "person", 2.0, 6.0), (1, "person", 7.0, 12.0),
                                             (2, "person", 20.0, 25.0)]))
    packed = Packed.of(object_tracks([(0, "person", 2.0, 6.0), (1, "person", 7.0, 12.0),
                                      (2, "person", 20.0, 25.0)]), lambda track: track.label)
    assert packed.lanes.tolist() == [0, 0, 0] and packed.joined_from[1] == 6.0 and np.isnan(packed.joined_from[2])
    assert packed.run_first.tolist() == [0, 0, 2] and packed.run_ends[0] == 12.0
    image = rgb(timeline.grab().toImage())
    y = lane_y(timeline, "objects", 0, 0.85)  # under the letters
    fill = image[y, round(timeline.x_of(4.0))]
    assert (np.abs(image[y, round(timeline.x_of(6.5))].astype(int) - fill).max() <= 12)  # the gap is filled
    assert (np.abs(image[y, round(timeline.x_of(16.0))].astype(int) - fill).max() > 40)  # a long gap is not
    # one label for the run, none on the joined bar; a click in the gap finds the bar drawn there
    rows = slice(lane_y(timeline, "objects", 0, 0.2), lane_y(timeline, "objects", 0, 0.8))
    letters = (image[rows, round(timeline.x_of(7.0)) + 2:round(timeline.x_of(12.0)) - 1].max(axis=2) < 100).sum()
    assert letters == 0
    assert timeline.item_at(QPointF(timeline.x_of(6.5), lane_y(timeline, "objects", 0))) == ("objects", 1)


def test_boxes_of_uncertain_tracks_are_not_drawn(qtbot, view, index_video):
    open_video(qtbot, view, index_video)
    analysis = boxes_analysis(index_video)
    tracks = list(analysis.object_tracks)
    tracks[1] = ObjectTrack(1, "car", 1.0, 3.0, 0.5, 2)  # the car track: mean score 0.5
    view.set_analysis(Analysis(analysis.video, boundaries=analysis.boundaries, objects=analysis.objects,
                               object_tracks=tuple(tracks)))
    show(qtbot, view, 30)
    assert view.object_boxes() == [("cup", CUP)]


def test_object_boxes_follow_the_picture_size_until_the_user_chooses(qtbot, view, index_video):
    open_video(qtbot, view, index_video)
    view.set_analysis(boxes_analysis(index_video))
    shown = []
    view.objectsShownChanged.connect(shown.append)
    view.resize(640, 360)
    view.set_objects_auto()
    show(qtbot, view, 30)
    assert view.picture_height() < 400 and not view.overlay_visible("objects") and view.object_boxes() == []
    view.resize(1000, 560)
    qtbot.waitUntil(lambda: view.overlay_visible("objects"))
    assert view.picture_height() >= 400 and shown == [False, True] and view.object_boxes() == BOXES[25]
    view.set_overlay_visible("objects", True)  # chosen: it stays, whatever the size
    view.resize(640, 360)
    qtbot.wait(20)
    assert not view.objects_auto() and view.overlay_visible("objects") and shown == [False, True]
