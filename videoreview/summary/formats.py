"""The summaries a reviewer builds and how they are named and compared on screen: which
formats, their titles ("3 keyframes + text"), and which alphas of a ViSIL comparison
choose each. No Qt here: the Summaries panel shows what these say."""

from __future__ import annotations

from ..records import Analysis, Summary
from . import builder
from .compare import Comparison, format_label


def formats_to_build(extra_keyframes: int = 0) -> list[tuple[str, int]]:
    """ViSIL's three formats as (format, keyframes), plus keyframes + text with
    ``extra_keyframes`` when that is another number (0: none)."""
    formats = [("text", 0), ("keyframes+text", 1), ("keyframes+text", 3)]
    if extra_keyframes > 0 and extra_keyframes not in (1, 3):
        formats.append(("keyframes+text", extra_keyframes))
    return formats


def summaries_to_build(analysis: Analysis, extra_keyframes: int = 0) -> list[Summary]:
    """The formats of ``formats_to_build``, by the builtin writer."""
    return [builder.build(analysis, fmt, k) for fmt, k in formats_to_build(extra_keyframes)]


def label_title(label: str) -> str:
    """A row's format label ("text", "3", "3 images, no text") as people read it."""
    if label.isdigit():
        return f"{label} keyframe{'s' if label != '1' else ''} + text"
    return "Text only" if label == "text" else label


def summary_title(summary: Summary) -> str:
    return label_title(format_label(summary))


def short_label(label: str) -> str:
    """A row's format label for the plot, where space is short: "text", "3 kf", ..."""
    if label.isdigit():
        return f"{label} kf"
    return label.replace(" images", " kf").replace(" image", " kf")


def alpha_span(alphas: list[float], swept: list[float]) -> str:
    """The alphas (of those ``swept``) that choose a summary, as a range: "α ≤ 0.03",
    "α ≥ 0.1", "α 0.01 – 0.03" ("" for none)."""
    if not alphas:
        return ""
    low, high = min(alphas), max(alphas)
    if low == high:
        return f"α = {low:g}"
    if low == min(swept):
        return f"α ≤ {high:g}"
    return f"α ≥ {low:g}" if high == max(swept) else f"α {low:g} – {high:g}"


def matching_row(comparison: Comparison | None, summary: Summary):
    """The comparison's row for this summary's format and keyframes, or None."""
    if comparison is None:
        return None
    return next((r for r in comparison.rows
                 if r.format == format_label(summary) and r.keyframes == tuple(summary.keyframe_frames)), None)
