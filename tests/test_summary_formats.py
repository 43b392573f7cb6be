"""How the Summaries panel names and picks summaries (summary/formats.py), without Qt."""

from __future__ import annotations

from videoreview.records import Analysis, FrameCaption, Keyframe, Summary, VideoInfo
from videoreview.summary.compare import Comparison, Reference, Row
from videoreview.summary.formats import (
    alpha_span,
    formats_to_build,
    label_title,
    matching_row,
    short_label,
    summaries_to_build,
    summary_title,
)


def test_the_three_visil_formats_and_an_extra_number_of_keyframes():
    assert formats_to_build() == [("text", 0), ("keyframes+text", 1), ("keyframes+text", 3)]
    assert formats_to_build(3) == formats_to_build(1) == formats_to_build()  # already there: not twice
    assert formats_to_build(5)[-1] == ("keyframes+text", 5)


def test_the_builtin_writer_builds_each_format():
    video = VideoInfo("v.mp4", duration=10.0, fps=25.0, frame_count=250, width=320, height=180)
    analysis = Analysis(video, captions=tuple(FrameCaption(t, int(t * 25), f"shot {t}") for t in (0.0, 5.0)),
                        keyframes=tuple(Keyframe(t, int(t * 25)) for t in (0.0, 4.0, 8.0)))
    summaries = summaries_to_build(analysis, 2)
    assert [(s.format, len(s.keyframe_frames)) for s in summaries] == [
        ("text", 0), ("keyframes+text", 1), ("keyframes+text", 3), ("keyframes+text", 2)]
    assert all(s.text for s in summaries)


def test_titles_as_people_read_them():
    assert [label_title(x) for x in ("text", "1", "3", "2 images, no text")] == [
        "Text only", "1 keyframe + text", "3 keyframes + text", "2 images, no text"]
    assert summary_title(Summary("keyframes+text", "x", (1, 2, 3))) == "3 keyframes + text"
    assert [short_label(x) for x in ("text", "3", "1 image, no text", "2 images, no text")] == [
        "text", "3 kf", "1 kf, no text", "2 kf, no text"]


def test_alpha_span_says_the_range_of_alphas_that_choose_a_summary():
    swept = [0.001, 0.01, 0.1, 1.0]
    assert alpha_span([], swept) == ""
    assert alpha_span([0.01], swept) == "α = 0.01"
    assert alpha_span([0.001, 0.01], swept) == "α ≤ 0.01"
    assert alpha_span([0.1, 1.0], swept) == "α ≥ 0.1"
    assert alpha_span([0.01, 0.1], swept) == "α 0.01 – 0.1"


def test_a_summary_is_matched_to_its_row_by_format_and_keyframes():
    rows = tuple(Row(label, 1.0, 10, "builtin", True, frames, "t") for label, frames in
                 (("text", ()), ("3", (1, 2, 3)), ("3", (4, 5, 6))))
    comparison = Comparison(Reference("r", "typed"), ("k",), -1.0, rows, (0, 1))
    assert matching_row(comparison, Summary("keyframes+text", "x", (4, 5, 6))) is rows[2]
    assert matching_row(comparison, Summary("text", "x")) is rows[0]
    assert matching_row(comparison, Summary("keyframes+text", "x", (7, 8, 9))) is None
    assert matching_row(None, Summary("text", "x")) is None
