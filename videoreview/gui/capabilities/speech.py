"""What is said, in the window: its track (a block per segment in its speaker's colour),
its page in the Details panel (the text and who says it, to edit) and subtitles over the
picture."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter
from PySide6.QtWidgets import QComboBox, QFormLayout, QPlainTextEdit, QPushButton, QWidget

from ...pipeline import edits
from ..capability_view import CapabilityView, OverlayPart
from ..labels import identity_label
from ..panels.details_page import DetailsPage, find, page_layout
from ..timeline.tracks.blocks import SpeechTrack
from ..video.video_overlays import Moment, Overlay, overlay_font


class SpeechPage(DetailsPage):
    def build(self) -> QWidget:
        page = QWidget()
        self.text = QPlainTextEdit()
        self.text.setMaximumHeight(120)
        save = QPushButton("Save text")
        save.clicked.connect(lambda: self.panel.edit("Edit what is said", edits.edit_segment, self.panel.key,
                                                     self.text.toPlainText()))
        self.speaker = QComboBox()
        self.speaker.setToolTip("Who says this")
        self.speaker.activated.connect(lambda: self.panel.edit("Set speaker", edits.set_speaker, self.panel.key,
                                                               self.speaker.currentData()))
        form = QFormLayout()
        form.addRow("Speaker", self.speaker)
        layout = page_layout(page)
        layout.addWidget(self.text)
        layout.addWidget(save)
        layout.addLayout(form)
        return page

    def record(self, analysis, key):
        return find(analysis.transcript, "start", key)

    def show(self, segment) -> None:
        panel = self.panel
        panel.title.setText(f"<b>Speech</b> {panel.time_text(segment.start)} – {panel.time_text(segment.end)}")
        by = {"alone": ", speaker: the only face on screen", "reviewer": ", speaker set by the reviewer"}
        panel.info.setText(f"{panel.by(segment.engine, 'speech')}, language {segment.language or '?'}"
                           f"{by.get(segment.speaker_by, '')}")
        self.text.setPlainText(segment.text)
        self.speaker.clear()
        self.speaker.addItem("nobody / unknown", None)
        for identity in panel.analysis.identities:
            self.speaker.addItem(identity_label(identity.id, identity.name), identity.id)
        self.speaker.setCurrentIndex(max(0, self.speaker.findData(segment.speaker)))


class SpeechOverlay(Overlay):
    """What is being said, as subtitles: yellow on a dark box at the bottom."""

    def content_at(self, moment: Moment) -> str | None:
        cue = moment.index.cue_at(moment.t, moment.slack) if moment.wanted("speech") else None
        return cue.text if cue else None

    def state(self, text: str | None) -> dict:
        return {"speech": text}

    def paint(self, painter, option, widget=None) -> None:
        text: str | None = self.content
        if not text:
            return
        w, h = self.rect.width(), self.rect.height()
        font = overlay_font(max(10.0, h * 0.05 * self.style.caption_size), QFont.Weight.DemiBold)
        pad = font.pixelSize() * 0.4
        flags = Qt.AlignmentFlag.AlignHCenter | Qt.TextFlag.TextWordWrap
        painter.setFont(font)
        text_rect = painter.boundingRect(QRectF(0, 0, w * 0.86 - 2 * pad, h), flags, text)
        box = text_rect.adjusted(-pad, -pad * 0.4, pad, pad * 0.4)
        box.moveCenter(QPointF(w / 2, 0))
        box.moveBottom(h * 0.955)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(0, 0, 0, round(255 * self.style.caption_background)))
        painter.drawRoundedRect(box, pad * 0.6, pad * 0.6)
        painter.setPen(QColor("#ffe14d"))
        painter.drawText(box.adjusted(pad, pad * 0.4, -pad, -pad * 0.4), flags, text)


VIEW = CapabilityView(
    key="speech",
    tracks=(SpeechTrack,),
    row=50,
    page=SpeechPage,
    overlay=OverlayPart("Speech", "Speech subtitles", "Alt+4", SpeechOverlay, z=4, place=4),
)
