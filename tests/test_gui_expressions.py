"""Facial expressions in the window (gui/capabilities/expressions.py): the track, a span's
Details page, and the expression under each face box over the picture. Analyses are built
by hand."""

from __future__ import annotations

import os
from dataclasses import replace

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QPointF  # noqa: E402

from helpers import lane_y, shown_timeline  # noqa: E402
from test_gui_objects import WAIT_MS, open_video, show  # noqa: E402
from videoreview.gui.panels.details_panel import DetailsPanel  # noqa: E402
from videoreview.records import Analysis, Appearance, Expression, FaceDetection, FaceTrack, Identity, VideoInfo  # noqa: E402

FACE = (100.0, 60.0, 40.0, 40.0)


def analysis(info: VideoInfo | None = None) -> Analysis:
    info = info or VideoInfo("/videos/faces.mp4", 60.0, 25.0, 1500, 1280, 720)
    faces = tuple(FaceDetection(t, round(t * info.fps), FACE, 0.9, 0, "P1") for t in (0.0, 0.5, 1.0, 1.5, 2.0, 2.5))
    track = FaceTrack(0, 0.0, 2.5, 0, 6, 40.0, 0.9, 50.0, 0.8, identity="P1")
    spans = (Expression(0, 0.0, 1.5, "neutral", 0.7, "P1", "fer@1"),
             Expression(0, 1.5, 3.0, "happy", 0.9, "P1", "fer@1"), Expression(1, 10.0, 20.0, "sad", 0.6, None, "fer@1"))
    ada = Identity("P1", "Ada", (Appearance(0.0, 2.5),), (0,))
    return Analysis(info, faces=faces, face_tracks=(track,), identities=(ada,), expressions=spans,
                    engines={"expressions": "fer@1"})


def test_a_block_per_span_under_the_identities_with_its_tooltip_and_click(qtbot):
    timeline = shown_timeline(qtbot, (1000, 400))
    timeline.set_analysis(analysis())
    names = timeline.track_names()
    assert names.index("faces:P1") < names.index("expressions") < names.index("keyframes")
    y = timeline.track_rect("expressions").center().y()
    assert timeline.item_at(QPointF(timeline.x_of(15.0), y)) == ("expressions", 2)
    assert timeline.tooltip_at(QPointF(timeline.x_of(2.0), y)) == "Ada (P1): happy (0.90)"
    assert timeline.item_at(QPointF(timeline.x_of(30.0), y)) is None
    timeline.set_analysis(Analysis(analysis().video))
    assert "expressions" not in timeline.track_names()  # shown only where expressions were read


def test_faces_seen_together_get_a_lane_each(qtbot):
    timeline = shown_timeline(qtbot, (1000, 400))
    together = analysis()
    spans = (*together.expressions[:2], Expression(1, 0.5, 2.5, "sad", 0.6, None, "fer@1"))
    timeline.set_analysis(replace(together, expressions=tuple(sorted(spans, key=lambda e: e.start))))
    first, second = lane_y(timeline, "expressions", 0), lane_y(timeline, "expressions", 1)
    assert timeline.tooltip_at(QPointF(timeline.x_of(1.0), first)) == "Ada (P1): neutral (0.70)"
    assert timeline.tooltip_at(QPointF(timeline.x_of(1.0), second)) == "A face: sad (0.60)"
    assert timeline.item_at(QPointF(timeline.x_of(2.0), first)) == ("expressions", 2)  # P1's happy, sorted third


def test_a_span_s_details(qtbot):
    panel = DetailsPanel()
    qtbot.addWidget(panel)
    panel.set_analysis(analysis())
    panel.show_item("expressions", 1)
    assert panel.title.text() == "<b>Ada (P1)</b> looks happy 00:01.12 – 00:03.00"  # seconds.frames
    assert panel.info.text() == "Face track 0, mean probability 0.90\nread by fer@1"
    panel.show_item("expressions", 7)  # no such span: nothing
    assert panel.kind is None


def test_the_expression_shows_under_the_face(qtbot, view, index_video):
    open_video(qtbot, view, index_video)
    width, height = index_video.size
    view.set_analysis(analysis(VideoInfo(str(index_video.path), index_video.duration, index_video.fps,
                                         index_video.frame_count, width, height)))
    show(qtbot, view, 5)  # 0.2 s: neutral
    qtbot.waitUntil(lambda: view.overlay_state()["expressions"] == [("neutral", FACE)], timeout=WAIT_MS)
    show(qtbot, view, 40)  # 1.6 s: happy
    qtbot.waitUntil(lambda: view.overlay_state()["expressions"] == [("happy", FACE)], timeout=WAIT_MS)
    view.set_overlay_visible("expressions", False)
    assert view.overlay_state()["expressions"] == []
