"""Tracks of blocks of text over time: the captions (each lasting until the next one or
the next cut), what is said (in the speaker's colour) and the text read on screen."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPen

from ....timecode import timecode
from ...analysis_index import covering, in_range
from ...colors import CAPTION_COLOR, EDITED_COLOR, TEXT_COLOR, identity_color
from ..style import mix
from .base import Hit, OnlyWhenAnalysed, Track, runs, shows_hours

CAPTION_TEXT_PX = 40  # narrower caption blocks get no text
CAPTION_SEPARATOR_PX = 3  # block starts closer than this to the previous one get no separator line


class CaptionTrack(Track):
    capability = "captions"
    name, label, height, compact_height = "captions", "Captions", 26, 20

    def hit(self, view, t) -> Hit | None:
        model = view.model
        i = int(np.searchsorted(model.caption_starts, t, side="right")) - 1
        if i < 0 or t >= model.caption_ends[i]:
            return None
        c = model.captions[i]
        return Hit("captions", c.frame, c.time, i)

    def tooltip(self, view, hit) -> str:
        caption = view.model.captions[hit.index]
        return caption.text + ("\n(edited)" if caption.edited else "")

    def paint(self, view, p, r, t0, t1, colors) -> None:
        model = view.model
        i0 = int(np.searchsorted(model.caption_ends, t0, side="right"))
        i1 = int(np.searchsorted(model.caption_starts, t1))
        if i0 >= i1:
            return
        # Blocks are contiguous: one fill under them all, then separators and text on top.
        first = max(0, i0 - 1)  # the block before: decides whether the first separator shows
        x0 = (model.caption_starts[first:i1] - view.offset) * view.pps + view.left
        x1 = (model.caption_ends[first:i1] - view.offset) * view.pps + view.left
        top, height = r.top() + 3, r.height() - 6
        skip = i0 - first
        cols = np.floor(x0).astype(np.int64)
        spaced = np.diff(cols, prepend=cols[0] - CAPTION_SEPARATOR_PX) >= CAPTION_SEPARATOR_PX
        # Clamped to the view: deep in a long video the coordinates run to millions, and a
        # block's text stays readable at the left edge while its start is scrolled away.
        x0, x1 = view.clamp_x(x0), view.clamp_x(x1)
        left = math.floor(x0[skip])
        p.fillRect(left, top, math.ceil(x1[-1]) - left, height, colors.caption_fill)
        for x in cols[skip:][spaced[skip:]].tolist():
            p.fillRect(x, top, 1, height, CAPTION_COLOR)
        widths = x1 - x0
        p.setFont(colors.small_font)
        metrics = QFontMetrics(colors.small_font)
        for k in np.flatnonzero(widths[skip:] >= CAPTION_TEXT_PX).tolist():
            i = i0 + k
            block = QRectF(x0[k + skip], top, widths[k + skip], height)
            if i % 2:
                p.fillRect(block.adjusted(1, 0, 0, 0), colors.caption_fill_alt)
            p.setPen(colors.text)
            text = metrics.elidedText(model.captions[i].text, Qt.TextElideMode.ElideRight, int(block.width()) - 10)
            p.drawText(block.adjusted(6, 0, -4, 0), Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, text)
        edited = model.caption_edited[i0:i1]
        if edited.any():
            starts = np.floor(x0[skip:][edited]).astype(np.int64)
            ends = np.ceil(x1[skip:][edited]).astype(np.int64)
            for a, b in runs(starts, ends - starts):
                p.fillRect(a, r.bottom() - 4, max(2, b - a), 3, EDITED_COLOR)
        selected = view.selected_index("captions", model.caption_index_by_frame)
        if selected is not None and i0 <= selected < i1:
            k = selected - first
            p.setPen(QPen(colors.highlight, 2))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(QRectF(x0[k] + 1, top, max(2.0, widths[k] - 2), height))


def paint_blocks(view, p, r, indices, items, label, fill, colors, selected: int | None = None) -> None:
    """Items with a start and an end as blocks with their text (where wide enough)."""
    top, height = r.top() + 3, r.height() - 6
    p.setFont(colors.small_font)
    metrics = QFontMetrics(colors.small_font)
    for i in indices:
        item = items[i]
        x0 = float(view.clamp_x(view.x_of(item.start)))
        x1 = float(view.clamp_x(view.x_of(max(item.end, item.start))))
        block = QRectF(math.floor(x0), top, max(2.0, x1 - math.floor(x0)), height)
        p.fillRect(block, fill(item))
        if getattr(item, "edited", False):
            p.fillRect(QRectF(block.left(), r.bottom() - 4, block.width(), 3), EDITED_COLOR)
        # The text stops where the next block starts: lines on screen together do not print over each other.
        next_x = view.x_of(items[i + 1].start) if i + 1 < len(items) else math.inf
        room = min(block.right(), next_x) - block.left()
        if room >= CAPTION_TEXT_PX:
            p.setPen(colors.text)
            text = metrics.elidedText(label(item), Qt.TextElideMode.ElideRight, int(room) - 8)
            p.drawText(QRectF(block.left() + 4, top, room - 8, height),
                       Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, text)
        if i == selected:
            p.setPen(QPen(colors.highlight, 2))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(block.adjusted(1, 0, -1, 0))


class SpeechTrack(OnlyWhenAnalysed):
    """What is said: a block per segment in its speaker's colour. A click on a word seeks to
    it. Where nothing was said, the row says what the audio held."""

    capability = "speech"
    name, label, height, compact_height = "speech", "Speech", 26, 20
    EMPTY = {"none": "no audio stream", "silent": "silent audio", "no speech": "no speech in the audio"}

    @classmethod
    def shown(cls, model) -> bool:
        return model is not None and model.analysis.speech is not None

    @staticmethod
    def text(view, segment) -> str:
        who = f"{view.model.analysis.person_name(segment.speaker)}: " if segment.speaker else ""
        return who + segment.text

    def hit(self, view, t) -> Hit | None:
        model = view.model
        found = covering(model.segment_starts, model.segment_reach, model.segments, t)
        if not found:
            return None
        i = found[-1]
        segment = model.segments[i]
        word = next((w for w in reversed(segment.words) if w.start <= t), None) if not segment.edited else None
        return Hit("speech", segment.start, word.start if word else segment.start, i)

    def tooltip(self, view, hit) -> str:
        model = view.model
        segment = model.segments[hit.index]
        hours = shows_hours(model)
        when = f"{timecode(segment.start, model.fps, hours)} – {timecode(segment.end, model.fps, hours)}"
        by = {"alone": " (alone on screen)", "reviewer": " (set by the reviewer)"}.get(segment.speaker_by, "")
        who = f"\nspeaker {model.analysis.person_name(segment.speaker)}{by}" if segment.speaker else ""
        return f"{when}{who}\n{segment.text}" + ("\n(edited)" if segment.edited else "")

    def paint(self, view, p, r, t0, t1, colors) -> None:
        model = view.model

        def fill(segment):
            if not segment.speaker:
                return colors.caption_fill
            return mix(colors.base, identity_color(segment.speaker), 0.45)

        selected = view.selected_index("speech", model.segment_index_by_start)
        paint_blocks(view, p, r, in_range(model.segment_starts, model.segment_reach, t0, t1), model.segments,
                     lambda s: self.text(view, s), fill, colors, selected)
        empty = self.EMPTY.get(model.analysis.speech.audio)
        if empty:
            p.setFont(colors.small_font)
            p.setPen(colors.dim)
            p.drawText(r.adjusted(view.left - r.left() + 6, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter, empty)


class ScreenTextTrack(OnlyWhenAnalysed):
    """On-screen text: a block per span read, for as long as it stays on screen."""

    capability = "screen-text"
    name, label, height, compact_height = "screen-text", "On-screen text", 26, 20

    @classmethod
    def shown(cls, model) -> bool:
        return model is not None and bool(model.texts)

    def hit(self, view, t) -> Hit | None:
        model = view.model
        found = covering(model.text_starts, model.text_reach, model.texts, t)
        return Hit("screen-text", found[0], model.texts[found[0]].start, found[0]) if found else None

    def tooltip(self, view, hit) -> str:
        model = view.model
        span = model.texts[hit.index]
        together = [model.texts[i].text for i in in_range(model.text_starts, model.text_reach, span.start, span.end)
                    if model.texts[i].end > span.start]  # the lines on screen with it
        return f"On screen from {timecode(span.start, model.fps, shows_hours(model))}:\n" + "\n".join(together)

    def paint(self, view, p, r, t0, t1, colors) -> None:
        model = view.model
        fill = QColor(TEXT_COLOR)
        fill.setAlpha(110)
        paint_blocks(view, p, r, in_range(model.text_starts, model.text_reach, t0, t1), model.texts,
                     lambda s: s.text, lambda s: fill, colors, view.selected_index("screen-text"))
