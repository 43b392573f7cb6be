"""A note's drawing on its frame, for the PDF report: each Shape drawn with Pillow the way
the window paints it (gui/video/shapes.py): lines centred on the shape's edge with round ends,
arrows with a filled head, bold text a fixed share of the frame's height.

Points are normalised (0..1 of the frame), so they are scaled to the picture's size; a
line is ``width`` × the picture's width wide. Each shape is drawn as a mask SUPERSAMPLE
times larger and shrunk smoothly, then its colour is laid through the mask: Pillow's own
lines have jagged edges, and the frame under the drawing is never resampled.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Iterable

from PIL import Image, ImageColor, ImageDraw, ImageFont

from ...records import Shape
from .fonts import base_fonts

SUPERSAMPLE = 4
TEXT_HEIGHT = 0.045  # a text shape's size, as a share of the frame's height (as in the window)
HEAD_ANGLE = 0.45  # radians between an arrow's shaft and each side of its head
HEAD_WIDTHS = 4  # an arrow head is this many line widths long, and at least HEAD_SHARE of the width
HEAD_SHARE = 0.02
# For a colour an imported file garbled: the record's own default.
DEFAULT_COLOR = next(f.default for f in dataclasses.fields(Shape) if f.name == "color")


def draw_shapes(image: Image.Image, shapes: Iterable[Shape]) -> None:
    """Draw ``shapes`` onto ``image`` (RGB, changed in place), in order: later ones on top."""
    for shape in shapes:
        mask = _mask(shape, image.size)
        if mask is not None:
            image.paste(_rgb(shape.color), None, mask)


def _mask(shape: Shape, size: tuple[int, int]) -> Image.Image | None:
    """Where ``shape`` covers a picture of ``size``: 0..255 per pixel, smooth edges."""
    width, height = size
    big = Image.new("L", (width * SUPERSAMPLE, height * SUPERSAMPLE), 0)
    draw = ImageDraw.Draw(big)
    scale_x, scale_y = big.width, big.height
    points = [(x * scale_x, y * scale_y) for x, y in shape.points]
    line = max(1.0, shape.width * width) * SUPERSAMPLE  # never thinner than one pixel of the picture
    if shape.kind == "stroke":
        _polyline(draw, points, line)
    elif shape.kind in ("rect", "ellipse"):
        (x0, y0), (x1, y1) = points
        # Pillow draws an outline inside the box; a pen is centred on the edge, so grow the box by half a line.
        half = line / 2
        box = (min(x0, x1) - half, min(y0, y1) - half, max(x0, x1) + half, max(y0, y1) + half)
        if shape.kind == "rect":
            draw.rectangle(box, outline=255, width=round(line))
        else:
            draw.ellipse(box, outline=255, width=round(line))
    elif shape.kind == "arrow":
        _arrow(draw, points[0], points[1], line, HEAD_SHARE * scale_x)
    elif shape.kind == "text":
        if not shape.text.strip():
            return None
        font = _font(max(8, round(height * TEXT_HEIGHT)) * SUPERSAMPLE)
        draw.multiline_text(points[0], shape.text, fill=255, font=font, anchor="la")
    return big.resize(size, Image.Resampling.BOX)


def _polyline(draw: ImageDraw.ImageDraw, points: list[tuple[float, float]], line: float) -> None:
    """A path with round joins and ends (a single point is a dot)."""
    if len(points) > 1:
        draw.line(points, fill=255, width=round(line), joint="curve")
    radius = line / 2
    for x, y in (points[0], points[-1]):
        draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=255)


def _arrow(draw: ImageDraw.ImageDraw, tail: tuple[float, float], head: tuple[float, float], line: float,
           least_head: float) -> None:
    """A shaft from ``tail`` to ``head`` and a filled head whose point is at ``head``."""
    angle = math.atan2(head[1] - tail[1], head[0] - tail[0])
    size = max(line * HEAD_WIDTHS, least_head)
    wings = [(head[0] - size * math.cos(angle + a), head[1] - size * math.sin(angle + a))
             for a in (HEAD_ANGLE, -HEAD_ANGLE)]
    _polyline(draw, [tail, head], line)
    draw.polygon([head, *wings], fill=255)
    # The window's pen also strokes the head's outline, rounding its corners: so here.
    _polyline(draw, [head, *wings, head], line)


@functools.cache
def _font(pixels: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """The report's bold font at ``pixels`` (Pillow's own font where it cannot be read)."""
    try:
        bold = base_fonts()["B"]
        return ImageFont.truetype(str(bold.path), pixels, index=bold.index)
    except (OSError, RuntimeError):
        return ImageFont.load_default(pixels)


def _rgb(color: str) -> tuple[int, int, int]:
    try:
        return ImageColor.getrgb(color)[:3]
    except ValueError:
        return ImageColor.getrgb(DEFAULT_COLOR)[:3]
