"""The PDF report's fpdf2 document: its footer, and per text whether HarfBuzz shapes it and
which characters no registered font draws (printed as U+FFFD)."""

from __future__ import annotations

import functools
import unicodedata

from .fonts import drawable

FAMILY = "report"
SMALL_PT = 9  # tables and picture labels: the smallest text in the report
MARGIN = 15  # mm
GAP = 5  # mm between pictures
REPLACEMENT = "\ufffd"  # drawn for characters no installed font covers (Noto Sans has it)


@functools.cache
def document_class():
    from fpdf import FPDF  # imported on first export: the window starts without it

    class Document(FPDF):
        """FPDF with the report's footer, deciding per text whether to shape it. It
        remembers every character it is given and draws those no registered font covers
        as U+FFFD, so the reader sees that something is missing (an empty glyph would
        hide it)."""

        def __init__(self, footer_text: str):
            self.drawn: set[str] = set()
            self.covered: frozenset[int] = frozenset()  # code points the registered fonts draw
            self.footer_text = footer_text
            super().__init__(orientation="P", unit="mm", format="A4")

        def normalize_text(self, text: str) -> str:
            # Every text fpdf2 draws or measures passes here first, table cells included.
            chars = set(text)
            self.drawn |= chars
            self.set_text_shaping(needs_shaping(chars))
            missing = {c for c in chars if ord(c) not in self.covered and drawable(c)}
            if missing:
                text = "".join(REPLACEMENT if c in missing else c for c in text)
            return super().normalize_text(text)

        def _render_styled_text_line(self, text_line, *args, **kwargs):
            # fpdf2 2.8.9 (py-pdf/fpdf2#1772): a line that starts in a fallback font while
            # the page has no font set yet sets the page's font inside the line's q ... Q,
            # where it is lost, and counts it as set: the next text then prints in the
            # wrong font's glyphs. Setting it outside the line first avoids that.
            fragments = text_line.fragments
            if (fragments and self.current_font is not None and not self.current_font_is_set_on_page
                    and fragments[0].font.fontkey in (self._fallback_font_ids or ())):
                self._out(self._set_font_for_page(self.current_font, self.font_size_pt))
            return super()._render_styled_text_line(text_line, *args, **kwargs)

        def footer(self) -> None:
            shaping = self.text_shaping  # a page can end inside a paragraph: give it its setting back
            self.set_y(-MARGIN + 2)
            self.set_font(FAMILY, "", SMALL_PT)
            page = f"Page {self.page_no()} of {{nb}}"
            room = self.epw - self.get_string_width(page.replace("{nb}", "000")) - GAP
            self.cell(room, 5, fit(self, self.footer_text, room), align="L")
            self.cell(0, 5, page, align="R")
            self.text_shaping = shaping

    return Document


def needs_shaping(chars: set[str]) -> bool:
    """Whether HarfBuzz must lay out text made of ``chars``: right-to-left scripts, and
    marks placed on a base letter (Indic, Thai, decomposed accents). Latin, Greek,
    Cyrillic and CJK print the same without it, and line breaking is three times faster."""
    return any(unicodedata.bidirectional(c) in ("R", "AL") or unicodedata.category(c) in ("Mn", "Mc", "Me")
               for c in chars)


def fit(pdf, text: str, width: float) -> str:
    """``text`` cut with an ellipsis to fit ``width`` at the current font."""
    if pdf.get_string_width(text) <= width:
        return text
    while text and pdf.get_string_width(text + "…") > width:
        text = text[:-1]
    return text + "…"
