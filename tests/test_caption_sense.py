"""The caption evaluation set and its metric: the clips build from real photographs with
their labels, and the metric counts what it says it counts."""

from __future__ import annotations

import json

from caption_set import CLIPS, make_clip
from helpers import run
from videoreview.metrics.caption_sense import ShotLabels, object_labels, score
from videoreview.records import Analysis, FrameCaption, VideoInfo


def test_object_labels_are_whole_words_longest_first_without_the_captions_grammar():
    assert object_labels("Shot 1: no people; Egyptian cat, tiger cat. Camera static.") == ["egyptian cat",
                                                                                            "tiger cat"]
    assert object_labels("A large parrot close to the camera; the camera tilts up.") == ["parrot"]
    assert object_labels("Scatter and category") == []  # no "cat" inside other words


def test_the_scores_count_subjects_churn_and_false_labels():
    shots = [ShotLabels(0.0, 3.0, ("cat", "tabby")), ShotLabels(3.0, 6.0, ("coffee", "espresso"), ("spoon",))]
    captions = [(0.0, "A tabby."), (1.0, "A cat."), (2.0, "A racket."), (3.0, "An espresso and a spoon."),
                (4.0, "No people; espresso."), (5.0, "no cats here, a spoon")]
    result = score(captions, shots)
    assert result.captions == 6 and result.false_labels == 1 / 6  # the racket
    assert result.subject_named == 4 / 6  # "no cats" names no cat; the racket frame names none
    assert result.churn_max == 3 and result.churn_mean == (3 + 2) / 2  # tabby, cat, racket; espresso, spoon


def test_the_set_builds_from_real_photographs_with_labels(tmp_path, home):
    assert len(CLIPS) >= 12
    path, labels = make_clip(tmp_path, "cuts")
    shots = json.loads(labels.read_text())["shots"]
    assert [(s["start"], s["end"]) for s in shots] == [(0.0, 3.0), (3.0, 6.0), (6.0, 9.0)]
    analysis = Analysis(VideoInfo(str(path), 9.0, 25.0, 225, 640, 360),
                        captions=(FrameCaption(1.0, 25, "Shot 1: a tabby cat."), FrameCaption(4.0, 100, "A racket.")))
    out = tmp_path / "a.json"
    analysis.save(out)
    scored = run("eval", "captions-sense", str(out), str(labels), "--json", home=home)
    assert scored.returncode == 0, scored.stderr
    assert json.loads(scored.stdout)["false_labels"] == 0.5
    bad = run("eval", "captions-sense", str(out), str(path), home=home)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
