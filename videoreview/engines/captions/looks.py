"""What a picture looks like, in a few honest words, where nothing in it is recognised.

    measured = look(picture)          # {"light": 0.21, "colours": [["blue", 0.55], ["black", 0.3]]}
    look_phrase(0.21, {"blue": 0.55, "black": 0.3})  # "a dark picture in blue and black"

``light`` is the mean luma (0 black .. 1 white). The colours are basic colour terms
(Berlin and Kay's eleven, less "pink" folded into red and purple) given to each pixel of a
small copy of the picture from its hue, saturation and value: black, white and grey where
there is little light or colour, otherwise red, amber (orange), yellow, green, blue or
purple by hue, and brown for dark, warm, weakly saturated pixels; each colour's share of
the pixels.
"""

from __future__ import annotations

import cv2
import numpy as np

# OpenCV hue runs 0..180: upper bound of each named hue range
# (orange is said "amber": "orange" is also a fruit, an ImageNet class the library's search
# and the caption metrics would read as one)
HUES = ((8, "red"), (22, "amber"), (34, "yellow"), (85, "green"), (130, "blue"), (165, "purple"), (180, "red"))
DARK, BRIGHT = 0.25, 0.7  # mean luma below / above which a picture is "dark" / "bright"
MAIN = 0.2  # a colour covering at least this share of the picture is named
SIZE = 48  # the picture is measured at this width
FLAT_SIZE = 160  # ...and its saturation and flatness at this one
FLAT_STEP = 2  # grey levels a flat pixel's neighbourhood may vary by (flat_share)
LIT = 40  # grey levels under which a pixel is black (flat_share)
# A shot whose mean saturation is GREYSCALE or less is black and white; else one whose
# pictures are FLAT or more flat on average (flat_share) is "a graphic": a title, a
# drawing, a screen. Measured on the real-footage corpus's tuning part (benchmarks/real_labels.py):
# footage, letterboxed and dark shots included, stays under 0.3 flat; black-and-white film
# is 0.000 saturated, a grey beach in colour 0.09.
FLAT = 0.5
GREYSCALE = 0.02


def colour_shares(picture: np.ndarray) -> dict[str, float]:
    """Share of the pixels of each basic colour in an RGB uint8 picture."""
    h, w = picture.shape[:2]
    small = cv2.resize(picture, (SIZE, max(1, round(SIZE * h / w))), interpolation=cv2.INTER_AREA)
    hsv = cv2.cvtColor(small, cv2.COLOR_RGB2HSV).reshape(-1, 3).astype(np.int32)
    hue, sat, val = hsv[:, 0], hsv[:, 1] / 255, hsv[:, 2] / 255
    names = np.empty(len(hsv), object)
    bounds = np.array([b for b, _ in HUES])
    names[:] = np.array([n for _, n in HUES], object)[np.searchsorted(bounds, hue, side="right").clip(0, len(HUES) - 1)]
    warm = (hue < 22) | (hue >= 165)
    names[warm & (val < 0.55) & (sat < 0.75) & (sat >= 0.2)] = "brown"
    grey = sat < 0.2
    names[grey] = "grey"
    names[grey & (val > 0.85)] = "white"
    names[val < 0.18] = "black"
    colours, counts = np.unique(names.astype(str), return_counts=True)
    return {str(c): float(n) / len(names) for c, n in zip(colours, counts)}


def look(picture: np.ndarray) -> dict:
    """The measurements the caption stage keeps for a sampled frame: light, the three main
    colours with their shares, the mean saturation (0 for a black-and-white picture) and the
    share of flat pixels (``flat_share``), rounded."""
    grey = cv2.cvtColor(picture, cv2.COLOR_RGB2GRAY)
    shares = sorted(colour_shares(picture).items(), key=lambda kv: -kv[1])[:3]
    h, w = picture.shape[:2]
    small = cv2.resize(picture, (FLAT_SIZE, max(1, round(FLAT_SIZE * h / w))), interpolation=cv2.INTER_AREA)
    saturation = cv2.cvtColor(small, cv2.COLOR_RGB2HSV)[..., 1].mean() / 255
    return {"light": round(float(grey.mean()) / 255, 3), "colours": [[c, round(s, 3)] for c, s in shares],
            "saturation": round(float(saturation), 3), "flat": round(flat_share(small), 3)}


def flat_share(picture: np.ndarray) -> float:
    """The share of an RGB picture's lit pixels whose 3x3 neighbourhood is one colour (no
    channel varies by more than FLAT_STEP): large in drawings, titles and screens, small in
    footage, whose noise and texture leave few pixels exactly flat. Black (a fade, a
    letterbox, a night sky) is flat in any picture, so unlit pixels are left out; a picture
    with less than a fifth of them lit is not flat."""
    kernel = np.ones((3, 3), np.uint8)
    spread = cv2.dilate(picture, kernel).astype(np.int16) - cv2.erode(picture, kernel)
    lit = picture.max(axis=2) >= LIT
    if lit.mean() < 0.2:
        return 0.0
    return float((spread.max(axis=2)[lit] <= FLAT_STEP).mean())


def picture_kind(flat: float | None, saturation: float | None) -> str:
    """What a shot's pictures are, from their mean flat share and saturation (None: not
    measured, a stage cache from before): "graphic", "black-and-white picture" or "picture"."""
    if saturation is not None and saturation <= GREYSCALE:
        return "black-and-white picture"
    if flat is not None and flat >= FLAT:
        return "graphic"
    return "picture"


def look_phrase(light: float, colours: dict[str, float], kind: str = "picture") -> str:
    """"a dark picture in blue and black", "a bright picture in white", "a picture in many
    colours" (no colour covers a fifth of it); ``kind`` another word for it (picture_kind):
    "a dark graphic in blue"; a black-and-white picture's colours are not said."""
    if kind == "black-and-white picture":
        return "a dark black-and-white picture" if light < DARK else "a black-and-white picture"
    tone = f"a dark {kind}" if light < DARK else f"a bright {kind}" if light > BRIGHT else f"a {kind}"
    main = [c for c, s in sorted(colours.items(), key=lambda kv: -kv[1]) if s >= MAIN][:2]
    return f"{tone} in {' and '.join(main) if main else 'many colours'}"
