"""The PDF report's building blocks: a heading kept with what follows it, text, a table,
a grid of pictures with their labels; on the report's fpdf2 document (``self.pdf``)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from .pdf_document import FAMILY, GAP, SMALL_PT

BODY_PT = 10
HEADING_PT = 13
LINE = 1.45  # line height as a multiple of the font size
MAX_PICTURE_ASPECT = 1.0  # portrait pictures are shown no taller than wide


@dataclass(frozen=True)
class Tile:
    """One picture of a grid with a bold title and some text under it."""

    picture: bytes | None
    title: str
    text: str = ""


class Layout:
    """What the report draws with; a subclass sets ``self.pdf``."""

    def heading(self, text: str, keep: float = 40.0) -> None:
        """A section heading, on a new page when less than ``keep`` mm would follow it."""
        pdf = self.pdf
        if pdf.get_y() + keep > pdf.page_break_trigger:
            pdf.add_page()
        else:
            pdf.ln(4)
        self.text(text, HEADING_PT, "B")
        pdf.ln(1)

    def text(self, text: str, size: float, style: str = "") -> None:
        pdf = self.pdf
        pdf.set_font(FAMILY, style, size)
        pdf.multi_cell(0, pdf.font_size * LINE, text, align="L", new_x="LMARGIN", new_y="NEXT")

    def table(self, headings: Sequence[str] | None, rows, widths, align="LEFT") -> None:
        pdf = self.pdf
        pdf.set_font(FAMILY, "", SMALL_PT)
        with pdf.table(col_widths=widths, text_align=align, width=pdf.epw, line_height=pdf.font_size * LINE,
                       padding=(0.6, 1.5), borders_layout="HORIZONTAL_LINES", v_align="TOP",
                       first_row_as_headings=headings is not None) as table:
            for row in ([headings] if headings else []) + list(rows):
                table.row([str(cell) for cell in row])
        pdf.ln(2)

    def grid(self, heading: str | None, tiles: Sequence[Tile], columns: int, aspect: float,
             empty: str = "") -> None:
        """Pictures ``columns`` across, each with its title and text under it, after
        ``heading`` (kept with the first row); a row never splits over two pages."""
        pdf = self.pdf
        width = (pdf.epw - GAP * (columns - 1)) / columns
        height = width * min(aspect, MAX_PICTURE_ASPECT)
        rows = [tiles[start:start + columns] for start in range(0, len(tiles), columns)]
        heights = [height + 1.5 + max(self.label(t, width, dry_run=True) for t in row) for row in rows]
        if heading is not None:
            self.heading(heading, keep=heights[0] + 12 if heights else 20)
        if not rows and empty:
            self.text(empty, BODY_PT)
        for row, row_height in zip(rows, heights):
            if pdf.get_y() + row_height > pdf.page_break_trigger:
                pdf.add_page()
            top = pdf.get_y()
            for n, tile in enumerate(row):
                x = pdf.l_margin + n * (width + GAP)
                self.picture(tile.picture, x, top, width, height)
                pdf.set_xy(x, top + height + 1.5)
                self.label(tile, width)
            pdf.set_xy(pdf.l_margin, top + row_height + GAP / 2)

    def label(self, tile: Tile, width: float, dry_run: bool = False) -> float:
        """Draw (or with ``dry_run`` only measure) a tile's title and text at the cursor."""
        pdf = self.pdf
        x, total = pdf.get_x(), 0.0
        for text, style in ((tile.title, "B"), (tile.text, "")):
            if text:
                pdf.set_font(FAMILY, style, SMALL_PT)
                total += pdf.multi_cell(width, pdf.font_size * LINE, text, align="L", new_x="LEFT", new_y="NEXT",
                                        dry_run=dry_run, output="HEIGHT")
                pdf.set_x(x)
        return total

    def picture(self, jpeg: bytes | None, x: float, y: float, w: float, h: float) -> None:
        pdf = self.pdf
        if jpeg is not None:
            pdf.image(io.BytesIO(jpeg), x, y, w, h, keep_aspect_ratio=True)
            return
        pdf.rect(x, y, w, h)
        pdf.set_font(FAMILY, "", SMALL_PT)
        pdf.set_xy(x, y + h / 2 - pdf.font_size)
        pdf.multi_cell(w, pdf.font_size * LINE, "no picture", align="C")
