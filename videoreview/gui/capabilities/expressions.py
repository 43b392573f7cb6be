"""Facial expressions in the window: a track of what each face shows (a block per span, in
the expression's colour; faces seen at the same time in lanes of their own), a span's page
in the Details panel, and the expression under each face box over the picture. A selection
is the span's place in the Analysis's list."""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QFontMetricsF, QPainter

from ..analysis_index import covering, in_range, spans
from ..capability_view import CapabilityView, OverlayPart
from ..labels import identity_label
from ..panels.details_page import DetailsPage
from ..timeline.tracks.base import Hit
from ..timeline.tracks.lanes import LABEL_PX, LANE_H, LanedTrack, paint_outline, whole_label
from ..video.video_overlays import Box, Moment, Overlay, draw_pill, overlay_font
from .faces import FACE_HOLD_SECONDS  # a face sample stands as long as the faces overlay draws it

COLORS = {"angry": "#d93025", "disgust": "#7cb342", "fear": "#8e24aa", "happy": "#f9ab00", "sad": "#1a73e8",
          "surprise": "#e8710a", "neutral": "#9aa0a6"}
_SPANS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # AnalysisIndex -> (starts, reach)


def color(label: str, alpha: int = 255) -> QColor:
    shade = QColor(COLORS.get(label, "#9aa0a6"))
    shade.setAlpha(alpha)
    return shade


def sorted_spans(model) -> tuple:
    """The starts and reaches of the model's expression spans (sorted by start), made once per model."""
    if model not in _SPANS:
        _SPANS[model] = spans(model.analysis.expressions)
    return _SPANS[model]


def who(analysis, identity: str | None) -> str:
    names = {i.id: i.name for i in analysis.identities}
    return identity_label(identity, names.get(identity)) if identity else "A face"


@dataclass(frozen=True)
class FaceSpan:
    """The time a face track has expressions in: what the lanes are packed by."""

    id: int  # the face track's
    start: float
    end: float


class ExpressionTrack(LanedTrack):
    """A lane per face seen at the same time; on it a block per span of its expression."""

    capability = "expressions"
    name, label = "expressions", "Expressions"

    @staticmethod
    def records(analysis) -> tuple:
        spans: dict[int, list] = {}
        for e in analysis.expressions:
            spans.setdefault(e.track, []).append(e)
        return tuple(FaceSpan(track, min(e.start for e in of), max(e.end for e in of)) for track, of in spans.items())

    def lane_of(self, model) -> dict[int, int]:
        packed = self.packed(model)
        return {face.id: int(lane) for face, lane in zip(packed.tracks, packed.lanes)}

    def hit_at(self, view, t, y) -> Hit | None:
        items = view.model.analysis.expressions
        lane = int((y - self.lane_top(self.top, 0)) // LANE_H)
        lanes = self.lane_of(view.model)
        found = [i for i in covering(*sorted_spans(view.model), items, t) if lanes.get(items[i].track) == lane]
        return Hit("expressions", found[0], items[found[0]].start, found[0], items[found[0]].end) if found else None

    def tooltip(self, view, hit) -> str:
        span = view.model.analysis.expressions[hit.index]
        return f"{who(view.model.analysis, span.identity)}: {span.label} ({span.score:.2f})"

    def paint(self, view, p, r, t0, t1, colors) -> None:
        items = view.model.analysis.expressions
        lanes = self.lane_of(view.model)
        selected = view.selected_index("expressions")
        p.setFont(colors.small_font)
        metrics = QFontMetrics(colors.small_font)
        for i in in_range(*sorted_spans(view.model), t0, t1):
            span = items[i]
            x0, x1 = (float(view.clamp_x(view.x_of(t))) for t in (span.start, span.end))
            bar = self.bar_rect(x0, x1, r.top(), lanes[span.track])
            p.fillRect(bar, color(span.label, 150))
            text = whole_label(metrics, span.label, bar.width() - 6) if bar.width() >= LABEL_PX else ""
            if text:
                p.setPen(colors.text)
                p.drawText(bar.adjusted(4, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, text)
            if i == selected:
                paint_outline(p, bar, colors)


class ExpressionPage(DetailsPage):
    """Whose face, what it shows, when, how sure; no controls."""

    def record(self, analysis, key):
        items = analysis.expressions
        return items[key] if isinstance(key, int) and 0 <= key < len(items) else None

    def show(self, span) -> None:
        panel = self.panel
        panel.title.setText(f"<b>{who(panel.analysis, span.identity)}</b> looks {span.label} "
                            f"{panel.time_text(span.start)} – {panel.time_text(span.end)}")
        panel.info.setText(f"Face track {span.track}, mean probability {span.score:.2f}\n"
                           f"read {panel.by(span.engine, 'expressions')}")


@dataclass(frozen=True)
class ExpressionShown:
    label: str
    box: Box


class ExpressionOverlay(Overlay):
    """The expression a face shows, in a pill under its box."""

    def content_at(self, moment: Moment) -> tuple[ExpressionShown, ...] | None:
        index = moment.index
        items = index.analysis.expressions
        if not items:
            return None
        now = [items[i] for i in covering(*sorted_spans(index), items, moment.t)]
        label = {span.track: span.label for span in now}
        shown = tuple(ExpressionShown(label[face.track], tuple(face.box))
                      for face in index.faces_at(moment.t, moment.slack, FACE_HOLD_SECONDS) if face.track in label)
        return shown or None

    def state(self, shown: tuple[ExpressionShown, ...] | None) -> dict:
        return {"expressions": [(each.label, each.box) for each in shown or ()]}

    def paint(self, painter, option, widget=None) -> None:
        shown: tuple[ExpressionShown, ...] | None = self.content
        if not shown:
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        font = overlay_font(max(9.0, self.rect.height() * 0.028), QFont.Weight.DemiBold)
        metrics = QFontMetricsF(font)
        for each in shown:
            x, y, w, h = each.box
            width, height = metrics.horizontalAdvance(each.label) + font.pixelSize(), metrics.height() * 1.2
            pill = QRectF(x + w / 2 - width / 2, y + h + height * 0.2, width, height)
            draw_pill(painter, pill, color(each.label, 220), each.label, font)


VIEW = CapabilityView(
    key="expressions",
    tracks=(ExpressionTrack,),
    row=95,  # under the identities whose faces they are
    page=ExpressionPage,
    overlay=OverlayPart("Expressions", "Facial expressions", "Alt+7", ExpressionOverlay, z=1.05, place=7),
)
