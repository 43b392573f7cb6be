"""The objects found, in the window: the Objects track (a bar per object track, in lanes;
the shot tags' row above it is image-text's), an object track's page in the Details
panel and a box per object over the picture."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen

from ..capability_view import CapabilityView, OverlayPart
from ..colors import object_color
from ..panels.details_page import DetailsPage, find
from ..timeline.tracks.objects import ObjectsTrack
from ..video.video_overlays import Box, Moment, Overlay, overlay_font, text_color_on

OBJECT_HOLD_SECONDS = 1.0  # objects are sampled at least once a second: a detection stands until the next sample
# Object tracks whose mean score is under this get no box on the picture (still on the
# timeline, with their score): on the real footage's tuning part it hid 87 % of the
# boxes of wrongly labelled tracks and 14 % of the right ones (benchmarks/real_labels.py).
MIN_BOX_SCORE = 0.6
MIN_LABEL_PX = 10.0  # object labels' smallest text height on screen


class ObjectPage(DetailsPage):
    """An object track: what, when, how sure; no controls."""

    def record(self, analysis, key):
        return find(analysis.object_tracks, "id", key)

    def show(self, track) -> None:
        panel = self.panel
        panel.title.setText(f"<b>{track.label.capitalize()}</b> {panel.time_text(track.start)} – "
                            f"{panel.time_text(track.end)}")
        seen = f" in {track.detections} samples" if track.detections else ""
        engine = track.engine or panel.analysis.engines.get("objects", "")
        panel.info.setText(f"Object track {track.id}, mean score {track.score:.2f}{seen}\n"
                           f"found {panel.by(engine, 'objects')}")


@dataclass(frozen=True)
class ObjectShown:
    label: str
    box: Box
    color: QColor


class ObjectOverlay(Overlay):
    """A thin box per object in its label's colour, the label small on a tab inside its
    top-left corner (a face's tab sits above its box, so a person's face and body stay told
    apart); a box too small for the tab to leave it seen has none. Objects are context:
    they are drawn quieter than faces, which a reviewer acts on."""

    def __init__(self, z: float) -> None:
        super().__init__(z)
        self.boxed: set[int] = set()  # the object tracks sure enough for a box (MIN_BOX_SCORE)

    def set_index(self, index) -> None:
        tracks = index.analysis.object_tracks if index is not None else ()
        self.boxed = {t.id for t in tracks if t.score >= MIN_BOX_SCORE}

    def content_at(self, moment: Moment) -> tuple[ObjectShown, ...] | None:
        objects = tuple(ObjectShown(o.label, tuple(o.box), object_color(o.label))
                        for o in moment.index.objects_at(moment.t, moment.slack, OBJECT_HOLD_SECONDS)
                        if o.track in self.boxed)
        return objects or None

    def paint(self, painter, option, widget=None) -> None:
        objects: tuple[ObjectShown, ...] | None = self.content
        if not objects:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)  # crisp 1 px lines (boxes are axis-aligned)
        # Smaller than a face's tab, but never under MIN_LABEL_PX on screen: a video shown
        # smaller than its size would shrink the labels past reading.
        scale = painter.worldTransform().m22() or 1.0
        font = overlay_font(max(self.rect.height() * 0.02, MIN_LABEL_PX / scale), QFont.Weight.Medium)
        metrics = QFontMetricsF(font)
        for shown in objects:
            box = QRectF(*shown.box).intersected(self.rect)
            if box.isEmpty():
                continue
            for color, width in ((QColor(0, 0, 0, 90), 2.5), (shown.color, 1.0)):
                pen = QPen(color, width)
                pen.setCosmetic(True)  # the same on screen at any zoom
                painter.setPen(pen)
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(box)
            pad = font.pixelSize() * 0.3
            if box.height() < 2.5 * (metrics.height() + pad * 0.4):
                continue  # the tab would hide the thing (a crowd far off): the box alone
            # Wider than a small box if need be, but not past the picture's right edge.
            room = max(self.rect.right() - box.left(), box.width()) - 2 * pad
            text = metrics.elidedText(shown.label, Qt.TextElideMode.ElideRight, room)
            tab = QRectF(box.left(), box.top(), metrics.horizontalAdvance(text) + 2 * pad,
                         metrics.height() + pad * 0.4)
            fill = QColor(shown.color)
            fill.setAlpha(170)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(fill)
            painter.drawRect(tab)
            painter.setFont(font)
            painter.setPen(text_color_on(shown.color))
            painter.drawText(tab, Qt.AlignmentFlag.AlignCenter, text)


VIEW = CapabilityView(
    key="objects",
    tracks=(ObjectsTrack,),
    row=70,
    page=ObjectPage,
    overlay=OverlayPart("Objects", "Object boxes", "Alt+6", ObjectOverlay, z=0.9, place=6),  # under the faces
)
