"""The timeline's colours and fonts for one paint, taken from the palette so that dark and
light themes both work."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QFontDatabase, QPalette

from ..colors import CAPTION_COLOR


def mix(a: QColor, b: QColor, amount: float) -> QColor:
    """``a`` moved ``amount`` of the way towards ``b``."""
    return QColor.fromRgbF(*(x + (y - x) * amount for x, y in zip(a.getRgbF()[:3], b.getRgbF()[:3])))


class Colors:
    def __init__(self, palette: QPalette, font: QFont):
        role = QPalette.ColorRole
        self.base = palette.color(role.Base)
        self.window = palette.color(role.Window)
        self.text = palette.color(role.Text)
        self.dim = palette.color(role.PlaceholderText)
        self.highlight = palette.color(role.Highlight)
        self.playhead = palette.color(role.WindowText)
        self.stripe = mix(self.base, self.text, 0.03)
        self.line = mix(self.base, self.text, 0.14)
        self.line_strong = mix(self.base, self.text, 0.45)
        self.placeholder = mix(self.base, self.text, 0.08)
        self.caption_fill = mix(self.base, CAPTION_COLOR, 0.35)
        self.caption_fill_alt = mix(self.base, CAPTION_COLOR, 0.48)
        self.selection_fill = QColor(self.highlight)
        self.selection_fill.setAlpha(70)
        self.header_font = font
        self.small_font = QFont(font)
        self.small_font.setPointSizeF(font.pointSizeF() * 0.85)
        self.timecode_font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
