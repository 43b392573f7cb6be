"""Objects the detector saw, in the builtin summaries and the PDF report (summary/objects.py):
how many of a label (the most at once), when, what is in view at a keyframe, and what a
caption already says; and what an image-text model's shot tags name besides them."""

import re
import shutil
import subprocess
from dataclasses import replace

import pytest

from test_summary_builder import scene
from videoreview.records import Analysis, FrameCaption, Keyframe, ObjectTrack, ShotTag, VideoInfo
from videoreview.summary import builder, objects
from videoreview.summary.export import write_pdf

# What the builder wrote for scene() before it said objects: a video without object tracks still reads so.
BEFORE = {
    ("text", 0): "A 20 s clip in 3 shots with P1 and Bob (P2). It shows P1 in close-up on the left, with a wine glass. "
                 "Along the way P1, now something moving; 2 cuts.",
    ("keyframes+text", 3): "A 20 s clip in 3 shots with P1 and Bob (P2). It opens on P1 in close-up on the left, "
                           "with a wine glass, leading to [KEYFRAME1]; then the picture cuts 1 time until [KEYFRAME2]; "
                           "then P1, now something moving, 1 cut until [KEYFRAME3]. It ends soon after.",
}


def track(n: int, label: str, start: float, end: float) -> ObjectTrack:
    return ObjectTrack(n, label, start, end, 0.6, int(end - start), "nanodet@1")


def with_objects() -> Analysis:
    """scene() (cuts at 5 and 15 s) with two cups together in the second shot and a dog in the third."""
    return replace(scene(), object_tracks=(track(0, "cup", 5.0, 10.0), track(1, "cup", 6.0, 12.0),
                                           track(2, "dog", 15.0, 20.0)))


def test_the_text_summary_names_the_objects_seen_with_when():
    text = builder.build(with_objects(), "text").text
    assert "Objects seen: two cups (00:05–00:12) and a dog (00:15–00:20)." in text
    assert text.startswith("A 20 s clip in 3 shots with P1 and Bob (P2). It shows P1")
    assert text.endswith("Along the way P1, now something moving; 2 cuts.")


@pytest.mark.parametrize("fmt, k", list(BEFORE))
def test_without_object_tracks_the_text_is_as_before(fmt, k):
    text = builder.build(scene(), fmt, k).text
    assert text == BEFORE[(fmt, k)] and "Objects seen" not in text


def test_a_label_counts_the_most_on_screen_at_once():
    base = scene()
    one_cup_two_shots = replace(base, object_tracks=(track(0, "cup", 0.0, 5.0), track(1, "cup", 5.0, 15.0)))
    seen = objects.seen_objects(one_cup_two_shots)
    assert [(s.label, s.count, s.spans) for s in seen] == [("cup", 1, ((0.0, 15.0),))]
    # Seen over most of the video: no times; more labels than a summary names: the rest counted.
    many = replace(base, object_tracks=(track(0, "cup", 0.0, 20.0),) + tuple(
        track(n, label, 1.0, 3.0 + n) for n, label in enumerate(("dog", "car", "bus", "chair", "book"), 1)))
    assert objects.inventory(many) == "a cup, a book (00:01–00:08), a chair (00:01–00:07), a bus (00:01–00:06) " \
                                      "and 2 more kinds"


def test_people_tracks_count_only_where_nobody_is_identified():
    people = (track(7, "person", 0.0, 20.0), track(8, "person", 2.0, 9.0))
    identified = replace(with_objects(), object_tracks=with_objects().object_tracks + people)
    text = builder.build(identified, "text").text
    assert "person" not in text and "people" not in text  # the identities say who is there
    nobody = replace(identified, identities=(), faces=())
    text = builder.build(nobody, "text").text
    assert text.startswith("A 20 s clip in 3 shots with two people, none recognised.")
    assert "Objects seen: two cups (00:05–00:12) and a dog (00:15–00:20)." in text  # people are not objects
    one = replace(nobody, object_tracks=people[:1])
    assert builder.build(one, "text").text.startswith("A 20 s clip in 3 shots with a person, not recognised.")


def test_keyframe_text_adds_what_is_in_view_that_its_words_do_not_say():
    analysis = replace(with_objects(), object_tracks=with_objects().object_tracks + (track(3, "wine glass", 0.0, 5.0),))
    text = builder.build(analysis, "keyframes+text", 3).text
    # keyframes at 0, 5 and 15 s: the wine glass is in the caption already, one cup is in view at 5 s, the dog at 15 s
    assert "leading to [KEYFRAME1];" in text and "wine glass" in text and text.count("wine glass") == 1
    assert "until [KEYFRAME2] with a cup;" in text and "until [KEYFRAME3] with a dog." in text
    # Later in the same shot, only what changed: the second cup comes in at 6 s, nothing new by 12 s.
    five = builder.build(analysis, "keyframes+text", 5).text
    assert "[KEYFRAME3] with two cups" in five and "[KEYFRAME4] with" not in five
    # A caption that says the object (or a thing of its kind, as the builtin captions do) is not repeated.
    said = replace(analysis, captions=tuple(replace(c, text="New shot: a dog. The camera is still.") if c.time == 15
                                            else c for c in analysis.captions))
    assert "a dog in [KEYFRAME3]." in builder.build(said, "keyframes+text", 3).text


def test_named_knows_words_plurals_and_the_captions_kinds():
    assert objects.named("Two cups on a table.", "cup") and objects.named("P1 with three people", "person")
    assert objects.named("An espresso. The camera pans right.", "cup")  # said instead of the cup by the captioner
    assert objects.named("it cuts to a moped in [KEYFRAME2]", "motorcycle")
    assert not objects.named("P1 in close-up on the left, with a wine glass.", "dog")
    assert not objects.named("A cupboard.", "cup")


# ------------------------------------------------------------------------------ shot tags


def tag(start: float, end: float, name: str, score: float) -> ShotTag:
    return ShotTag(start, end, round(start * 25), name, score, "siglip:tiny@1")


# scene()'s shots are 0-5, 5-15 and 15-20 s: a parrot on a beach, the beach, then a dog (also a detector's label).
TAGS = (tag(0.0, 5.0, "parrot", 0.83), tag(0.0, 5.0, "beach", 0.71), tag(0.0, 5.0, "person", 0.9),
        tag(5.0, 15.0, "beach", 0.62), tag(15.0, 20.0, "dog", 0.77))


def test_the_text_summary_names_what_the_shot_tags_name():
    alone = builder.build(replace(scene(), shot_tags=TAGS), "text").text
    # the longest seen first; "person" is the people part's (P1 and Bob)
    assert "Seen: a beach (00:00–00:15), a parrot (00:00–00:05) and a dog (00:15–00:20)." in alone
    assert "person" not in alone and alone.startswith(BEFORE[("text", 0)].split(" Along")[0])
    both = builder.build(replace(with_objects(), shot_tags=TAGS), "text").text
    assert "Objects seen: two cups (00:05–00:12) and a dog (00:15–00:20). " \
           "Also seen: a beach (00:00–00:15) and a parrot (00:00–00:05)." in both
    assert both.count("dog") == 1  # the detector's dog is the tag's


def test_a_tag_the_object_tracks_give_in_other_words_is_not_said_again():
    assert objects.same_thing("bird", "parrot") and objects.same_thing("dog", "animal")  # one a kind of the other
    assert objects.same_thing("car", "sports car") and objects.same_thing("couch", "sofa")  # coco_kinds' own words
    assert not objects.same_thing("dog", "parrot") and not objects.same_thing("car", "beach")
    assert not objects.same_thing("giraffe", "ox")  # both ruminants: the giraffe is only filed under them
    assert objects.same_thing("giraffe", "ruminant")
    bird = replace(scene(), object_tracks=(track(0, "bird", 0.0, 5.0),), shot_tags=TAGS[:2])
    assert builder.build(bird, "text").text.endswith("Objects seen: a bird (00:00–00:05). "
                                                     "Also seen: a beach (00:00–00:05). Along the way P1, now "
                                                     "something moving; 2 cuts.")
    assert objects.says("A macaw on a perch.", "parrot") and objects.says("Two parrots.", "parrot")
    assert not objects.says("A dog on a beach.", "parrot")  # named() would take the dog for it: both animals


def test_keyframe_text_adds_the_shot_tags_at_each_shot_s_first_keyframe():
    analysis = replace(with_objects(), shot_tags=TAGS)
    text = builder.build(analysis, "keyframes+text", 3).text  # keyframes at 0, 5 and 15 s: one a shot
    assert "leading to [KEYFRAME1] with a parrot and a beach;" in text
    assert "until [KEYFRAME2] with a cup and a beach;" in text
    assert "until [KEYFRAME3] with a dog." in text  # the dog's tag is the detector's dog
    five = builder.build(analysis, "keyframes+text", 5).text  # 0, 5, 8, 12, 15: 8 and 12 are in the 5 s shot
    assert "[KEYFRAME3] with two cups;" in five and "[KEYFRAME4] with" not in five
    said = replace(analysis, captions=tuple(replace(c, text="A parrot on a perch.") if c.time == 0 else c
                                            for c in analysis.captions))
    assert "It opens on a parrot on a perch, leading to [KEYFRAME1] with a beach;" in \
        builder.build(said, "keyframes+text", 3).text


POPPLER = all(map(shutil.which, ("pdftotext", "pdftoppm")))


def pdf_text(path, layout: bool = False) -> str:
    """The PDF's text: as laid out on the page (a table's rows on their lines), or with
    runs of white space as one space."""
    text = subprocess.run(["pdftotext", *(["-layout"] if layout else []), path, "-"], capture_output=True, text=True,
                          check=True).stdout
    return text if layout else " ".join(text.split())


def table_row(text: str, *cells: str) -> bool:
    return re.search(r"^\s*" + r"\s+".join(map(re.escape, cells)) + r"\s*$", text, re.M) is not None


@pytest.mark.skipif(not POPPLER, reason="poppler-utils reads the PDF back")
def test_the_pdf_lists_the_objects_and_what_each_keyframe_shows(tmp_path):
    video = VideoInfo("/videos/kitchen.mp4", duration=20.0, fps=25.0, frame_count=500, width=640, height=360)
    analysis = Analysis(video=video, keyframes=(Keyframe(16.0, 400),),
                        captions=(FrameCaption(16.0, 400, "A kitchen. The camera is still."),),
                        object_tracks=with_objects().object_tracks, engines={"objects": "nanodet@1"})
    out = tmp_path / "objects.pdf"
    assert write_pdf(analysis, out) == []
    text, rows = pdf_text(out), pdf_text(out, layout=True)
    for expected in ("Objects", "At once: the most of a kind on screen together; by nanodet@1.",
                     "A kitchen. The camera is still. In view: a dog"):
        assert expected in text, expected
    assert table_row(rows, "Object", "At once", "Seen", "On screen")
    assert table_row(rows, "cup", "2", "00:05.00 – 00:12.00", "7.0 s")
    assert table_row(rows, "dog", "1", "00:15.00 – 00:20.00", "5.0 s")
    assert table_row(rows, "Object tracks", "3", "nanodet@1", "—")
    bare = tmp_path / "bare.pdf"
    write_pdf(replace(analysis, object_tracks=()), bare)
    assert "In view" not in pdf_text(bare) and "At once" not in pdf_text(bare)


@pytest.mark.models
@pytest.mark.skipif(not POPPLER, reason="poppler-utils reads the PDF back")
def test_a_real_analysis_names_the_cup_in_its_summary_and_report(tmp_path, home):
    from caption_set import make_clip
    from videoreview.pipeline import StageCache, analyze

    path, _labels = make_clip(tmp_path, "coffee-pan")
    analysis = analyze(path, {"boundaries": "builtin", "objects": "nanodet"}, cache=StageCache(tmp_path / "c"))
    assert "Objects seen: a cup" in builder.build(analysis, "text").text
    out = tmp_path / "coffee.pdf"
    write_pdf(analysis, out, video_path=path)
    assert re.search(r"^\s*cup\s+1\s+00:00\.00 – ", pdf_text(out, layout=True), re.M)


@pytest.mark.skipif(not POPPLER, reason="poppler-utils reads the PDF back")
def test_the_pdf_lists_the_shot_tags_and_what_each_keyframe_shows(tmp_path):
    video = VideoInfo("/videos/parrot.mp4", duration=20.0, fps=25.0, frame_count=500, width=640, height=360)
    analysis = Analysis(video=video, keyframes=(Keyframe(1.0, 25), Keyframe(16.0, 400)),
                        captions=(FrameCaption(1.0, 25, "A picture in grey."),
                                  FrameCaption(16.0, 400, "A kitchen. The camera is still.")),
                        object_tracks=with_objects().object_tracks, shot_tags=TAGS, engines={"objects": "nanodet@1"})
    out = tmp_path / "tags.pdf"
    assert write_pdf(analysis, out) == []
    text, rows = pdf_text(out), pdf_text(out, layout=True)
    assert "Shot tags What each shot shows, named by siglip:tiny@1." in text
    assert table_row(rows, "Name", "Shots", "Seen", "On screen", "Probability")
    assert table_row(rows, "beach", "2", "00:00.00 – 00:15.00", "15.0 s", "0.71")
    assert table_row(rows, "parrot", "1", "00:00.00 – 00:05.00", "5.0 s", "0.83")
    assert table_row(rows, "dog", "1", "00:15.00 – 00:20.00", "5.0 s", "0.77")  # the table lists every tag
    # keyframes: the shot's tags the caption and the objects in view do not give
    assert "A picture in grey. In view: a parrot and a beach" in text
    assert "A kitchen. The camera is still. In view: a dog" in text and "In view: a dog and" not in text
    assert table_row(rows, "Shot tags", "5", "siglip:tiny@1", "0")
    bare = tmp_path / "bare.pdf"
    write_pdf(replace(analysis, shot_tags=()), bare)
    assert "Probability" not in pdf_text(bare) and "a parrot" not in pdf_text(bare)
