"""What people do, in the window: the timeline's People track (a bar per person track, cut
into its status spans, in lanes), the Details pages for a selected object track and a
selected status span, and the Objects toggle under the video. Analyses are built by hand."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PySide6.QtCore import QPoint, QPointF, Qt  # noqa: E402
from PySide6.QtGui import QColor  # noqa: E402

from helpers import close_to, lane_y, main_window, rgb, shown_timeline  # noqa: E402
from videoreview.gui.colors import STATUS_COLORS, UNKNOWN_STATUS_COLOR, identity_color, status_color  # noqa: E402
from videoreview.gui.panels.details_panel import DetailsPanel  # noqa: E402
from videoreview.gui.timeline.style import mix  # noqa: E402
from videoreview.gui.timeline.tracks.lanes import LANE_H, PAD  # noqa: E402
from videoreview.gui.tour import window_steps  # noqa: E402
from videoreview.gui.window_settings import window_settings  # noqa: E402
from videoreview.records import (  # noqa: E402
    PERSON_STATUSES,
    Analysis,
    Appearance,
    Identity,
    ObjectTrack,
    PoseTrack,
    StatusSpan,
    VideoInfo,
)

FPS = 25.0

# id, identity, start, end, statuses: P1 and the unnamed person overlap (two lanes); P2 comes
# after P1 has gone (P1's lane again). P1's status is not known from 14 s to 15 s.
PEOPLE = [(0, "P1", 2.0, 20.0, [(2.0, 8.0, "standing"), (8.0, 14.0, "walking"), (15.0, 20.0, "sitting")]),
          (1, None, 5.0, 12.0, [(5.0, 12.0, "running")]),
          (2, "P2", 25.0, 40.0, [(25.0, 32.0, "arms raised"), (32.0, 40.0, "lying")])]
LANES = {0: 0, 1: 1, 2: 0}
OBJECTS = (ObjectTrack(0, "cup", 2.0, 10.0, 0.55, 8), ObjectTrack(1, "car", 5.0, 20.0, 0.65, 15))


def pose_tracks(people=PEOPLE) -> tuple[PoseTrack, ...]:
    return tuple(PoseTrack(tid, start, end, 0.6 + 0.1 * tid, round(end - start) * 5, (10.0, 20.0, 100.0, 300.0),
                             identity, tuple(StatusSpan(*span) for span in spans), engine="movenet@1")
                 for tid, identity, start, end, spans in people)


def analysis(people=PEOPLE, objects=True, names=None, duration=60.0) -> Analysis:
    video = VideoInfo(path="/videos/people.mp4", duration=duration, fps=FPS, frame_count=round(duration * FPS),
                      width=1280, height=720)
    identities = tuple(Identity(pid, name, (Appearance(1.0, 3.0),)) for pid, name in (names or {}).items())
    return Analysis(video=video, content_hash="people", poses=pose_tracks(people) if people else (),
                    object_tracks=OBJECTS if objects else (), identities=identities,
                    engines={"objects": "nanodet@2", "poses": "movenet@1"})


@pytest.fixture
def timeline(qtbot):
    return shown_timeline(qtbot, (1000, 400))


# ---------------------------------------------------------------------------- the track


def test_a_bar_per_person_cut_into_its_statuses(timeline):
    timeline.set_analysis(analysis())
    names = timeline.track_names()
    assert names.index("objects") < names.index("poses") < names.index("keyframes")  # beside the Objects track
    assert timeline.track_rect("poses").height() == 2 * LANE_H + 2 * PAD  # two lanes: P1 and the other overlap
    for tid, _, _, _, spans in PEOPLE:
        y = lane_y(timeline, "poses", LANES[tid])
        for k, (start, end, status) in enumerate(spans):
            for t in (start + 0.1, (start + end) / 2, end - 0.1):
                assert timeline.item_at(QPointF(timeline.x_of(t), y)) == ("poses", (tid, k)), (status, t)
        other = lane_y(timeline, "poses", 1 - LANES[tid])
        assert timeline.item_at(QPointF(timeline.x_of(spans[0][0] + 1), other)) != ("poses", (tid, 0))
    y = lane_y(timeline, "poses", 0)
    assert timeline.item_at(QPointF(timeline.x_of(14.5), y)) == ("poses", (0, None))  # no status known
    assert timeline.item_at(QPointF(timeline.x_of(22.0), y)) is None  # between P1 and P2
    assert timeline.item_at(QPointF(timeline.x_of(14.0), lane_y(timeline, "poses", 1))) is None  # the other has gone

    image = rgb(timeline.grab().toImage())
    base = timeline.palette().base().color()
    for tid, _, _, _, spans in PEOPLE:
        row = image[lane_y(timeline, "poses", LANES[tid], 0.1)]  # above the letters
        for start, end, status in spans[1:]:  # the first one starts under the tag
            x0, x1 = int(timeline.x_of(start)), int(timeline.x_of(end))
            assert close_to(row[x0 + 1], status_color(status)), status  # its edge in its status's colour
            assert close_to(row[(x0 + x1) // 2], mix(base, status_color(status), 0.5)), status  # and its fill
    p1 = image[lane_y(timeline, "poses", 0, 0.1)]
    unknown = image[lane_y(timeline, "poses", 1, 0.1)]
    assert close_to(p1[int(timeline.x_of(2.0)) + 1], identity_color("P1"))  # the tag says who
    assert close_to(unknown[int(timeline.x_of(5.0)) + 1], UNKNOWN_STATUS_COLOR)  # nobody known: grey
    assert close_to(p1[int(timeline.x_of(14.5))], mix(base, UNKNOWN_STATUS_COLOR, 0.3))  # no status known
    assert close_to(p1[int(timeline.x_of(22.0))], QColor(*p1[int(timeline.x_of(22.5))]), 4)  # nobody: no bar

    # Each segment is labelled: dark letters at its start, none in the rest of it.
    walking = int(timeline.x_of(8.0))
    band = image[lane_y(timeline, "poses", 0, 0.2):lane_y(timeline, "poses", 0, 0.8)]
    assert (band[:, walking + 4:walking + 40].max(axis=2) < 100).sum() > 10
    assert (band[:, walking + 70:walking + 90].max(axis=2) < 100).sum() == 0


def test_a_status_colour_each(qapp):
    assert set(STATUS_COLORS) == set(PERSON_STATUSES)
    names = {status_color(status).name() for status in PERSON_STATUSES}
    assert len(names) == len(PERSON_STATUSES) and UNKNOWN_STATUS_COLOR.name() not in names
    assert status_color("juggling") == UNKNOWN_STATUS_COLOR


def test_tooltip_and_click(qtbot, timeline):
    timeline.set_analysis(analysis(names={"P1": "Ada"}))
    walking = QPointF(timeline.x_of(10.0), lane_y(timeline, "poses", 0))
    assert timeline.tooltip_at(walking) == "Ada (P1) walking: 00:08.00 – 00:14.00\nseen 00:02.00 – 00:20.00, " \
                                           "mean score 0.60"
    assert timeline.tooltip_at(QPointF(timeline.x_of(6.0), lane_y(timeline, "poses", 1))).startswith(
        "person running: 00:05.00 – 00:12.00")
    assert timeline.tooltip_at(QPointF(timeline.x_of(14.5), lane_y(timeline, "poses", 0))).startswith(
        "Ada (P1), status not known here")
    assert timeline.tooltip_at(QPointF(timeline.x_of(22.0), lane_y(timeline, "poses", 0))) == ""

    seeks, selections = [], []
    timeline.seekRequested.connect(seeks.append)
    timeline.selected.connect(lambda kind, key: selections.append((kind, key)))
    qtbot.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=walking.toPoint())
    qtbot.mouseClick(timeline, Qt.MouseButton.LeftButton,
                     pos=QPoint(round(timeline.x_of(14.5)), lane_y(timeline, "poses", 0)))
    assert seeks == [8.0, 2.0]  # the span's start; where no status is known, where the person was first seen
    assert selections == [("poses", (0, 1)), ("poses", (0, None))]


def test_the_selected_span_is_outlined(timeline):
    timeline.set_analysis(analysis())
    x, y = int(timeline.x_of(11.0)), lane_y(timeline, "poses", 0, 0.05)
    before = rgb(timeline.grab().toImage())[y, x]
    timeline.set_selection("poses", (0, 1))
    after = rgb(timeline.grab().toImage())[y, x]
    assert close_to(after, timeline.palette().highlight().color()) and not np.array_equal(before, after)


def test_hidden_without_poses(timeline):
    timeline.set_analysis(analysis(people=()))
    assert "poses" not in timeline.track_names() and timeline.track_rect("poses").isNull()
    without = timeline.sizeHint().height()
    timeline.set_analysis(analysis())
    assert timeline.sizeHint().height() == without + 2 * LANE_H + 2 * PAD


# ---------------------------------------------------------------------- the details


def test_details_of_an_object_track_and_a_status_span(qtbot):
    panel = DetailsPanel()
    qtbot.addWidget(panel)
    panel.set_analysis(analysis(names={"P2": "Bo"}))
    panel.show_item("objects", 1)
    assert panel.title.text() == "<b>Car</b> 00:05.00 – 00:20.00"
    assert panel.info.text() == "Object track 1, mean score 0.65 in 15 samples\nfound by nanodet@2"

    panel.show_item("poses", (2, 1))
    assert panel.title.text() == "<b>Bo (P2)</b> lying 00:32.00 – 00:40.00"
    assert panel.info.text().startswith("Seen 00:25.00 – 00:40.00 in 75 samples, mean score 0.80, named by their face")
    statuses = panel.page("poses").statuses
    assert panel.pages.currentWidget().isAncestorOf(statuses)
    assert [statuses.item(j).text() for j in range(statuses.count())] == \
        ["arms raised: 00:25.00 – 00:32.00", "lying: 00:32.00 – 00:40.00"]
    assert statuses.currentRow() == 1  # the span selected

    picked = []
    panel.selectRequested.connect(lambda kind, key: picked.append((kind, key)))
    statuses.itemClicked.emit(statuses.item(0))
    assert picked == [("poses", (2, 0))]

    panel.show_item("poses", (1, None))
    assert panel.title.text() == "<b>Person</b> 00:05.00 – 00:12.00" and "no face named them" in panel.info.text()
    panel.show_item("poses", (1, 5))  # no such span: nothing
    assert panel.kind is None and panel.pages.currentIndex() == 0


def test_selecting_on_the_timeline_shows_the_details(qtbot, home):
    with main_window(qtbot) as window:
        shown = analysis()
        window.timeline.set_analysis(shown)  # as the window shows a document's analysis
        window.details.set_analysis(shown)
        timeline = window.timeline
        qtbot.mouseClick(timeline, Qt.MouseButton.LeftButton,
                         pos=QPoint(round(timeline.x_of(6.0)), lane_y(timeline, "poses", 1)))
        assert window.details.title.text() == "<b>Person</b> running 00:05.00 – 00:12.00"
        objects = timeline.track_rect("objects")
        qtbot.mouseClick(timeline, Qt.MouseButton.LeftButton,
                         pos=QPoint(round(timeline.x_of(3.0)), objects.top() + PAD + LANE_H // 2))
        assert window.details.title.text() == "<b>Cup</b> 00:02.00 – 00:10.00"
        assert timeline.selection() == ("objects", 0)


# ------------------------------------------------------------------ the Objects button


def test_objects_button_and_menu_action_stay_in_step(qtbot, home):
    with main_window(qtbot) as window:
        button, action = window.transport.overlay_buttons["objects"], window.menus.overlays["objects"]
        assert list(window.transport.overlay_buttons)[-2:] == ["objects", "expressions"] and button.text() == "Objects"
        action.setChecked(True)  # (not left to the picture's size)
        assert button.isChecked() and action.isChecked() and window.view.overlay_visible("objects")
        button.click()  # the bar's button ...
        assert not action.isChecked() and not window.view.overlay_visible("objects")
        assert window_settings().value("overlay/objects", type=bool) is False
        action.trigger()  # ... and the View menu (Alt+6)
        assert button.isChecked() and window.view.overlay_visible("objects")
        action.setChecked(False)
        assert not button.isChecked()
        # Every overlay of the View menu has its button, and the tour names their keys as bound.
        assert set(window.transport.overlay_buttons) == set(window.menus.overlays)
        assert "Alt+1 to Alt+7, or the buttons under the video" in window_steps(window)[0].text
    with main_window(qtbot) as again:  # remembered, on both
        assert not again.transport.overlay_buttons["objects"].isChecked()
        assert not again.menus.overlays["objects"].isChecked()


def test_spans_of_one_status_a_short_gap_apart_are_drawn_as_one(timeline):
    from videoreview.gui.timeline.tracks.people import shown_spans

    people = [(0, "P1", 2.0, 20.0, [(2.0, 8.0, "walking"), (8.5, 14.0, "walking"), (17.0, 20.0, "walking")])]
    track = pose_tracks(people)[0]
    assert shown_spans(track) == [(2.0, 14.0, "walking", 0), (17.0, 20.0, "walking", 2)]
    timeline.set_analysis(analysis(people, objects=False))
    y = lane_y(timeline, "poses", 0)
    gap = timeline.item_at(QPointF(timeline.x_of(8.25), y))
    assert gap == ("poses", (0, 0))  # the joined span
    assert "walking: 00:02.00 – 00:14.00" in timeline.tooltip_at(QPointF(timeline.x_of(8.25), y))
    assert timeline.item_at(QPointF(timeline.x_of(15.5), y)) == ("poses", (0, None))  # a long gap: not known
