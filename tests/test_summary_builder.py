"""The builtin summary writer and keyframe budget on hand-made Analyses."""

from dataclasses import replace

import pytest

from videoreview.records import (
    Analysis,
    Boundary,
    BoundaryCaption,
    FaceDetection,
    FrameCaption,
    Identity,
    Keyframe,
    Summary,
    VideoInfo,
)
from videoreview.summary import builder


def scene() -> Analysis:
    """20 s, cuts at 5 and 15 s (shots of 5, 10 and 5 s); P2 (Bob) first seen at 12 s; an event at 9 s."""
    video = VideoInfo("/videos/scene.mp4", duration=20.0, fps=25.0, frame_count=500, width=640, height=360)
    return Analysis(
        video=video,
        boundaries=(Boundary(5.0, 125, "cut", 0.9),
                    Boundary(9.0, 225, "event", 0.6, BoundaryCaption(
                        "P1", "P1 in close-up on the left; camera still",
                        "P1 in close-up on the left; camera still, something moving")),
                    Boundary(15.0, 375, "cut", 0.9)),
        captions=tuple(FrameCaption(float(t), t * 25, f"{'New shot: ' if t in (5, 15) else ''}P1 in close-up on the "
                                    f"left, with a wine glass. The camera is still.") for t in range(20)),
        faces=(FaceDetection(1.0, 25, (10, 10, 50, 50), 1.0, 0, "P1"), FaceDetection(12.0, 300, (300, 10, 50, 50), 1.0,
                                                                                   1, "P2")),
        identities=(Identity("P1"), Identity("P2", name="Bob")),
        keyframes=tuple(Keyframe(float(t), t * 25) for t in (0, 3, 5, 8, 12, 15, 18)),
    )


def test_keyframe_budget_covers_shots_then_identities_then_time():
    analysis = scene()
    assert [k.time for k in builder.choose_keyframes(analysis, 1)] == [5.0]  # the longest shot first
    assert [k.time for k in builder.choose_keyframes(analysis, 3)] == [0.0, 5.0, 15.0]  # one per shot
    assert [k.time for k in builder.choose_keyframes(analysis, 4)] == [0.0, 5.0, 12.0, 15.0]  # Bob appears at 12 s
    assert len(builder.choose_keyframes(analysis, 10)) == 7 and builder.choose_keyframes(analysis, 0) == []


def test_text_summary_is_two_or_three_sentences_from_what_was_measured():
    summary = builder.build(scene(), "text")
    assert summary.format == "text" and summary.keyframe_frames == () and summary.engine == builder.ENGINE
    assert summary.text.startswith("A 20 s clip in 3 shots with P1 and Bob (P2).")
    assert "It shows P1 in close-up on the left, with a wine glass." in summary.text
    assert "P1, now something moving" in summary.text and "2 cuts" in summary.text
    assert 2 <= summary.text.count(". ") + 1 <= 3


def test_keyframe_text_is_glue_between_placeholders_in_order():
    summary = builder.build(scene(), "keyframes+text", 3)
    assert summary.keyframe_frames == (0, 125, 375)
    text = summary.text
    assert text.index("[KEYFRAME1]") < text.index("[KEYFRAME2]") < text.index("[KEYFRAME3]")
    assert "[KEYFRAME4]" not in text
    assert builder.build(scene(), "keyframes", 3).text == ""
    with pytest.raises(ValueError, match="unknown summary format"):
        builder.build(scene(), "poem")


def test_keyframe_text_names_what_a_cut_brings():
    base = scene()
    captions = tuple(FrameCaption(c.time, c.frame, "New shot: a moped. The camera pans right." if c.time == 5 else
                                  "A moped. The camera pans right." if 5 < c.time < 15 else c.text)
                     for c in base.captions)
    text = builder.build(replace(base, captions=captions), "keyframes+text", 3).text
    assert "then it cuts to a moped in [KEYFRAME2]; then it cuts to P1 in close-up on the left" in text


def test_reviewer_edited_summaries_are_kept():
    analysis = scene()
    mine = Summary("text", "My own words.", engine="reviewer", edited=True)
    updated = builder.with_summaries(Analysis(analysis.video, summaries=(mine,)), builder.standard_summaries(analysis))
    assert [(s.format, len(s.keyframe_frames), s.text == "My own words.") for s in updated.summaries] == \
        [("text", 0, True), ("keyframes+text", 1, False), ("keyframes+text", 3, False)]


def test_placeholders_are_kept_once_in_range_and_missing_ones_appended():
    text = "Opens [KEYFRAME1], then [KEYFRAME2]."
    assert builder.with_placeholders(text, 2) == text
    assert builder.with_placeholders("[KEYFRAME2] first, [KEYFRAME2] again, [KEYFRAME7] too.", 2) == \
        "[KEYFRAME2] first, again, too. [KEYFRAME1]"
    assert builder.with_placeholders("No keyframe named.", 3) == \
        "No keyframe named. [KEYFRAME1] [KEYFRAME2] [KEYFRAME3]"
    assert builder.with_placeholders("Words [KEYFRAME1] only.", 0) == "Words only."
    assert builder.with_placeholders("", 1) == "[KEYFRAME1]"


class Writer:
    """A writer whose replies the test sets: what build must do with a model's text."""

    name = "test-writer"

    def __init__(self, reply: str):
        self.reply = reply
        self.calls: list[list[float]] = []

    def __call__(self, analysis, keyframes):
        self.calls.append([k.time for k in keyframes])
        return self.reply


def test_a_writer_writes_the_text_for_the_chosen_keyframes():
    writer = Writer("It opens calmly, leading to [KEYFRAME1]; a cut brings [KEYFRAME3].")
    summary = builder.build(scene(), "keyframes+text", 3, writer)
    assert writer.calls == [[0.0, 5.0, 15.0]] and summary.engine == "test-writer"
    assert summary.text == "It opens calmly, leading to [KEYFRAME1]; a cut brings [KEYFRAME3]. [KEYFRAME2]"
    text_only = builder.build(scene(), "text", writer=Writer("Bob arrives. [KEYFRAME1]"))
    assert text_only.text == "Bob arrives." and text_only.engine == "test-writer"
    assert builder.build(scene(), "keyframes", 3, writer).text == "" and len(writer.calls) == 1  # no text to write


@pytest.mark.parametrize("reply", ["", "   ", "[KEYFRAME1] [KEYFRAME2]"])
def test_a_writer_that_gives_nothing_leaves_the_builtin_text(reply):
    summary = builder.build(scene(), "keyframes+text", 2, Writer(reply))
    assert summary.engine == builder.ENGINE and summary.text == builder.build(scene(), "keyframes+text", 2).text
