"""The captions in the window: their track (a block per caption), their page in the
Details panel (the caption's text, to edit) and the caption as a subtitle over the picture."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter
from PySide6.QtWidgets import QPlainTextEdit, QPushButton, QWidget

from ...pipeline import edits
from ..capability_view import CapabilityView, OverlayPart
from ..panels.details_page import DetailsPage, find, page_layout
from ..timeline.tracks.blocks import CaptionTrack
from ..video.video_overlays import Moment, Overlay, edited_badge, overlay_font


class CaptionPage(DetailsPage):
    def build(self) -> QWidget:
        page = QWidget()
        self.text = QPlainTextEdit()
        self.text.setMaximumHeight(120)
        save = QPushButton("Save caption")
        save.clicked.connect(lambda: self.panel.edit("Edit caption", edits.edit_caption, self.panel.key,
                                                     self.text.toPlainText()))
        layout = page_layout(page)
        layout.addWidget(self.text)
        layout.addWidget(save)
        return page

    def record(self, analysis, key):
        return find(analysis.captions, "frame", key)

    def show(self, caption) -> None:
        panel = self.panel
        panel.title.setText(f"<b>Caption</b> at {panel.time_text(caption.time)} (frame {caption.frame})")
        panel.info.setText(panel.by(caption.engine, "captions"))
        self.text.setPlainText(caption.text)


@dataclass(frozen=True)
class CaptionShown:
    text: str
    edited: bool
    top: bool = False  # drawn at the top: the bottom holds what is said


class CaptionOverlay(Overlay):
    """A subtitle: white text on a translucent dark box near the bottom."""

    def content_at(self, moment: Moment) -> CaptionShown | None:
        caption = moment.index.caption_at(moment.t, moment.slack)
        if caption is None:
            return None
        said = moment.wanted("speech") and moment.index.cue_at(moment.t, moment.slack) is not None
        return CaptionShown(caption.text, caption.edited, top=said)

    def state(self, caption: CaptionShown | None) -> dict:
        return {"caption": caption.text if caption else None, "caption_edited": bool(caption and caption.edited)}

    def paint(self, painter, option, widget=None) -> None:
        caption: CaptionShown | None = self.content
        if caption is None or not caption.text:
            return
        w, h = self.rect.width(), self.rect.height()
        style = self.style
        font = overlay_font(max(10.0, h * 0.045 * style.caption_size), QFont.Weight.Medium)
        pad = font.pixelSize() * 0.5
        flags = Qt.AlignmentFlag.AlignHCenter | Qt.TextFlag.TextWordWrap
        painter.setFont(font)
        text_rect = painter.boundingRect(QRectF(0, 0, w * 0.9 - 2 * pad, h), flags, caption.text)
        box = text_rect.adjusted(-pad, -pad * 0.45, pad, pad * 0.45)
        box.moveCenter(QPointF(w / 2, 0))
        if style.caption_position == "top" or caption.top:
            box.moveTop(h * 0.13)  # clear of the boundary label
        else:
            box.moveBottom(h * 0.955)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(0, 0, 0, round(255 * style.caption_background)))
        painter.drawRoundedRect(box, pad * 0.6, pad * 0.6)
        painter.setPen(QColor("white"))
        painter.drawText(box.adjusted(pad, pad * 0.45, -pad, -pad * 0.45), flags, caption.text)
        if caption.edited:
            edited_badge(painter, QPointF(box.right(), box.top() - pad * 0.3), font.pixelSize() * 1.0)


VIEW = CapabilityView(
    key="captions",
    tracks=(CaptionTrack,),
    row=40,
    page=CaptionPage,
    overlay=OverlayPart("Captions", "Caption overlay", "Alt+1", CaptionOverlay, z=3, place=1),
)
