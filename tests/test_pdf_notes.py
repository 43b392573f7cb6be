"""The PDF report's Notes section, read back with poppler's tools: each note's SMPTE
timecode, tag, status, author and text beside its frame, with its drawing drawn on it
(found by the rendered page's pixels); and the drawing renderer, shape by shape."""

import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from fake_engines import ENGINES
from videoreview.pipeline import StageCache, analyze
from videoreview.records import Note, Shape
from videoreview.summary.export import write_pdf
from videoreview.summary.export.drawings import draw_shapes

POPPLER = ("pdftotext", "pdftoppm", "pdftohtml")
needs_poppler = pytest.mark.skipif(not all(map(shutil.which, POPPLER)), reason="poppler-utils reads the PDF back")

DPI = 60
GREEN = (0, 255, 0)  # the drawing's colour: no frame of the scene has it
AUTHOR = "Ada Lovelace"
ARROW = ((0.15, 0.2), (0.45, 0.55))  # tail, head
RECT = ((0.55, 0.3), (0.9, 0.8))
DRAWN_TEXT = "The logo is cut off here."
RANGE_TEXT = "Hold this shot longer: the cut comes too soon."


def poppler(tool: str, *args, cwd=None) -> str:
    return subprocess.run([tool, *map(str, args)], capture_output=True, text=True, check=True, cwd=cwd).stdout


def text_of(path: Path, page: int | None = None) -> str:
    """The PDF's (or one page's) text with runs of white space as one space."""
    pages = ("-f", page, "-l", page) if page else ()
    return " ".join(poppler("pdftotext", *pages, path, "-").split())


def close_to(pixels: np.ndarray, colour, tolerance: int = 70) -> np.ndarray:
    """Where ``pixels`` (…, 3) are within ``tolerance`` of ``colour`` on every channel."""
    return (np.abs(pixels.astype(int) - np.array(colour)) <= tolerance).all(axis=-1)


@pytest.fixture(scope="module")
def noted(scene, stage_cache):
    """An Analysis of the face scene (25 fps) by the fake engines, with two notes, given out of time order:
    one at frame 25 with a green arrow and rectangle, one resolved range, frames 75 to 110."""
    analysis = analyze(scene.path, ENGINES, cache=StageCache(stage_cache))
    drawing = (Shape("arrow", ARROW, color="#00ff00", width=0.01), Shape("rect", RECT, color="#00ff00", width=0.01))
    notes = (Note("n2", 3.0, 75, RANGE_TEXT, end_time=4.4, end_frame=110, tag="yellow", status="resolved",
                  author=AUTHOR, created="2024-05-01T10:00:00Z"),
             Note("n1", 1.0, 25, DRAWN_TEXT, tag="red", author=AUTHOR, created="2024-05-01T09:00:00Z",
                  drawing=drawing))
    return replace(analysis, notes=notes)


@needs_poppler
def test_notes_print_with_their_frames_and_drawings(noted, scene, tmp_path):
    out = tmp_path / "notes.pdf"
    assert write_pdf(noted, out, video_path=scene.path) == []
    text = text_of(out)
    for expected in ("Notes", DRAWN_TEXT, RANGE_TEXT, "00:00:01:00", "00:00:03:00 – 00:00:04:10",
                     f"Red · Open · by {AUTHOR}", f"Yellow · Resolved · by {AUTHOR}"):
        assert expected in text, expected
    assert text.index(DRAWN_TEXT) < text.index(RANGE_TEXT)  # in time order

    # The page the notes are on, and where on it the two notes' frames lie: the pictures
    # (pdftohtml, in points) whose tops line up with the notes' timecodes.
    page = next(n for n in range(1, 20) if DRAWN_TEXT in text_of(out, n))
    layout = poppler("pdftohtml", "-xml", "-stdout", "-zoom", "1", "-f", page, "-l", page, out, cwd=tmp_path)
    images = [tuple(int(v) for v in found) for found in
              re.findall(r'<image top="(\d+)" left="(\d+)" width="(\d+)" height="(\d+)"', layout)]
    words = poppler("pdftotext", "-bbox", "-f", page, "-l", page, out, "-")

    def beside(word: str) -> tuple[int, ...]:
        """The picture (top, left, width, height in pixels) beside the note whose first word is ``word``."""
        y = float(re.search(r'yMin="([\d.]+)" xMax="[\d.]+" yMax="[\d.]+">' + re.escape(word) + "<", words).group(1))
        image = min(images, key=lambda box: abs(box[0] - y))
        assert abs(image[0] - y) < 6, (word, y, images)
        return tuple(round(v * DPI / 72) for v in image)

    (top, left, width, height), second = beside("00:00:01:00"), beside("00:00:03:00")

    poppler("pdftoppm", "-png", "-r", DPI, "-f", page, "-l", page, out, tmp_path / "page")
    rendered = np.asarray(Image.open(next(tmp_path.glob("page*.png"))).convert("RGB"))
    green = close_to(rendered, GREEN)
    ys, xs = np.nonzero(green)
    assert len(xs) > 50, "the drawing is not on the page"
    # Every green pixel lies on the first note's frame; none on the other note's.
    assert (left - 1 <= xs).all() and (xs <= left + width + 1).all(), (xs.min(), xs.max(), left, width)
    assert (top - 1 <= ys).all() and (ys <= top + height + 1).all(), (ys.min(), ys.max(), top, height)

    def near(x: float, y: float, reach: int = 2) -> bool:
        """Whether the drawing is within ``reach`` pixels of the frame's point (x, y)."""
        px, py = round(left + x * width), round(top + y * height)
        return bool(green[py - reach:py + reach + 1, px - reach:px + reach + 1].any())

    (x0, y0), (x1, y1) = RECT
    for corner in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
        assert near(*corner), corner
    assert not near((x0 + x1) / 2, (y0 + y1) / 2, reach=4)  # an outline, not a filled box
    assert near(*ARROW[0]) and near(*ARROW[1])
    # The note frames are pictures of the video, not placeholders.
    assert "no picture" not in text_of(out, page)
    s_top, s_left, s_width, s_height = second
    assert rendered[s_top + 2:s_top + s_height - 2, s_left + 2:s_left + s_width - 2].std() > 10

    # The tag's swatch: the tag colour just left of its name.
    for tag, colour in (("Red", (0xff, 0x3b, 0x30)), ("Yellow", (0xff, 0xcc, 0x00))):
        found = re.search(r'xMin="([\d.]+)" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">' + tag + "<", words)
        assert found, tag
        x, y0_text, y1_text = (round(float(v) * DPI / 72) for v in found.groups())
        swatch = rendered[y0_text:y1_text + 1, x - 10:x]
        assert close_to(swatch, colour, tolerance=40).sum() >= 4, tag


def test_no_notes_no_section(noted, tmp_path):
    out = tmp_path / "plain.pdf"
    write_pdf(replace(noted, notes=()), out)
    assert "Notes" not in text_of(out)


def test_a_note_beyond_the_end_is_a_warning(noted, scene, tmp_path):
    late = Note("late", 100.0, 2500, "After the end.", author=AUTHOR)
    out = tmp_path / "late.pdf"
    warnings = write_pdf(replace(noted, notes=(*noted.notes, late)), out, video_path=scene.path)
    assert len(warnings) == 1 and "1 note(s) lie beyond the end" in warnings[0]
    text = text_of(out)
    assert "After the end." in text and "no picture" in text


# -- the drawing renderer, on a blank picture

SIZE = (400, 300)
RED = (255, 0, 0)
WHITE = (255, 255, 255)


def drawn(*shapes: Shape) -> np.ndarray:
    image = Image.new("RGB", SIZE, WHITE)
    draw_shapes(image, shapes)
    return np.asarray(image)


def painted(pixels: np.ndarray, x: float, y: float, colour=RED) -> bool:
    """Whether the normalised point (x, y) is painted ``colour``."""
    return bool(close_to(pixels[round(y * SIZE[1]), round(x * SIZE[0])], colour, tolerance=40))


def blank(pixels: np.ndarray, x: float, y: float) -> bool:
    return bool((pixels[round(y * SIZE[1]), round(x * SIZE[0])] == WHITE).all())


def test_rect_is_an_outline_centred_on_its_edges():
    pixels = drawn(Shape("rect", ((0.7, 0.75), (0.2, 0.25)), color="#ff0000", width=0.02))  # any two corners
    for corner in ((0.2, 0.25), (0.7, 0.25), (0.2, 0.75), (0.7, 0.75)):
        assert painted(pixels, *corner), corner
    assert painted(pixels, 0.45, 0.25) and painted(pixels, 0.2, 0.5)  # edges
    assert blank(pixels, 0.45, 0.5) and blank(pixels, 0.1, 0.1)  # inside and outside
    # 8 px wide (0.02 of 400), half of it outside the box.
    assert painted(pixels, 0.2 - 3 / 400, 0.5) and painted(pixels, 0.2 + 3 / 400, 0.5)
    assert blank(pixels, 0.2 - 6 / 400, 0.5) and blank(pixels, 0.2 + 6 / 400, 0.5)


def test_ellipse_touches_its_box_but_not_its_corners_or_centre():
    pixels = drawn(Shape("ellipse", ((0.2, 0.25), (0.7, 0.75)), color="#ff0000", width=0.02))
    for point in ((0.2, 0.5), (0.7, 0.5), (0.45, 0.25), (0.45, 0.75)):
        assert painted(pixels, *point), point
    for point in ((0.45, 0.5), (0.2, 0.25), (0.7, 0.75)):
        assert blank(pixels, *point), point


def test_arrow_has_a_head_at_its_head_point():
    pixels = drawn(Shape("arrow", ((0.1, 0.5), (0.8, 0.5)), color="#ff0000", width=0.01))
    # A 4 px shaft; a head 16 px long (4 line widths) and about 14 px wide at its base.
    assert painted(pixels, 0.1, 0.5) and painted(pixels, 0.45, 0.5) and painted(pixels, 0.8 - 2 / 400, 0.5)
    beside = 5 / 300  # further from the line than the shaft's half width
    assert painted(pixels, 0.8 - 12 / 400, 0.5 - beside) and painted(pixels, 0.8 - 12 / 400, 0.5 + beside)
    assert blank(pixels, 0.3, 0.5 - beside) and blank(pixels, 0.3, 0.5 + beside)  # shaft only, away from the head
    assert blank(pixels, 0.8 + 6 / 400, 0.5)  # nothing past the point


def test_stroke_follows_its_path():
    path = ((0.1, 0.1), (0.5, 0.4), (0.9, 0.1))
    pixels = drawn(Shape("stroke", path, color="#ff0000", width=0.01))
    for x, y in (*path, (0.3, 0.25), (0.7, 0.25)):
        assert painted(pixels, x, y), (x, y)
    assert blank(pixels, 0.5, 0.1) and blank(pixels, 0.5, 0.6)
    dot = drawn(Shape("stroke", ((0.5, 0.5),), color="#ff0000", width=0.02))
    assert painted(dot, 0.5, 0.5) and blank(dot, 0.55, 0.5)  # one point is a dot


def test_text_hangs_below_and_right_of_its_anchor():
    pixels = drawn(Shape("text", ((0.3, 0.4),), color="#ff0000", text="HELLO"))
    ys, xs = np.nonzero(close_to(pixels, RED, tolerance=40))
    assert len(xs) > 20
    x, y = 0.3 * SIZE[0], 0.4 * SIZE[1]
    assert x - 1 <= xs.min() <= x + 4 and y - 1 <= ys.min() <= y + 6  # its top-left corner at the anchor
    assert ys.max() - y <= 0.045 * SIZE[1] * 1.3  # about 4.5 % of the frame's height
    assert xs.max() - x > 30  # five letters, left to right


def test_a_garbled_colour_draws_in_the_default_colour():
    pixels = drawn(Shape("rect", ((0.2, 0.2), (0.8, 0.8)), color="not a colour", width=0.02))
    assert painted(pixels, 0.2, 0.2, colour=(0xff, 0x3b, 0x30))
