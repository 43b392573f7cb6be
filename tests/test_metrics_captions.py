"""ProgressCaptioner's caption checks and caption diversity, against hand-worked examples."""

import json

import numpy as np
import pytest

from videoreview.engines.captions.parse import parse_choice
from videoreview.engines.captions.prompts import matching_prompt, progression_prompt
from videoreview.metrics.captions import (
    caption_diversity,
    caption_matching,
    normalise,
    progression_detection,
    text_change_judge,
)
from videoreview.records import FrameCaption


def scripted(answers):
    """A progression judge answering from a table keyed by the first caption."""
    return lambda first, second: answers[first]


# --- progression detection ---------------------------------------------------------


def test_balanced_accuracy_on_imbalanced_set():
    # positives p1..p3 answered A, A, B -> TPR 2/3; the negative answered B -> TNR 1.
    # Balanced accuracy (2/3 + 1) / 2 = 5/6, not plain accuracy 3/4.
    pairs = [("p1", "x", True), ("p2", "x", True), ("p3", "x", True), ("n1", "x", False)]
    r = progression_detection(pairs, scripted({"p1": "A", "p2": "A", "p3": "B", "n1": "B"}))
    assert r.tpr == pytest.approx(2 / 3)
    assert r.tnr == 1.0
    assert r.balanced_accuracy == pytest.approx(5 / 6)
    assert (r.n, r.positives, r.negatives, r.uncertain) == (4, 3, 1, 0)


def test_always_yes_judge_scores_half():
    # Saying "progression" to everything gets 3/4 plain accuracy but only 0.5 balanced.
    pairs = [("p1", "x", True), ("p2", "x", True), ("p3", "x", True), ("n1", "x", False)]
    r = progression_detection(pairs, lambda a, b: "A")
    assert (r.tpr, r.tnr, r.balanced_accuracy) == (1.0, 0.0, 0.5)


def test_uncertain_and_unreadable_count_wrong():
    # positives answered A, C, None -> TPR 1/3; negatives answered B, C -> TNR 1/2.
    pairs = [("p1", "x", True), ("p2", "x", True), ("p3", "x", True), ("n1", "x", False), ("n2", "x", False)]
    r = progression_detection(pairs, scripted({"p1": "A", "p2": "C", "p3": None, "n1": "B", "n2": "C"}))
    assert r.tpr == pytest.approx(1 / 3)
    assert r.tnr == pytest.approx(1 / 2)
    assert r.balanced_accuracy == pytest.approx((1 / 3 + 1 / 2) / 2)
    assert r.uncertain == 3


def test_judge_returning_none_everywhere_scores_zero():
    r = progression_detection([("a", "b", True), ("a", "a", False)], lambda a, b: None)
    assert (r.balanced_accuracy, r.uncertain) == (0.0, 2)


def test_single_class_uses_that_class_rate():
    r = progression_detection([("p1", "x", True), ("p2", "x", True)], scripted({"p1": "A", "p2": "B"}))
    assert (r.tpr, r.tnr, r.balanced_accuracy) == (0.5, None, 0.5)
    r = progression_detection([("n1", "x", False)], scripted({"n1": "B"}))
    assert (r.tpr, r.tnr, r.balanced_accuracy) == (None, 1.0, 1.0)


def test_progression_rejects_empty_input_and_bad_answers():
    with pytest.raises(ValueError, match="at least one"):
        progression_detection([], text_change_judge)
    with pytest.raises(ValueError, match="pair 0"):
        progression_detection([("a", "b", True)], lambda a, b: 0)


def test_text_change_judge():
    assert text_change_judge("A man cuts the bread.", "A man cuts the bread.") == "B"
    assert text_change_judge("A man  cuts\tthe bread.", "a man cuts the bread") == "B"
    assert text_change_judge("A man cuts the bread.", "A man slices the bread.") == "A"
    assert normalise("  Hello,   WORLD! ") == "hello world"


def test_text_change_judge_end_to_end():
    pairs = [
        ("Knife above the bread.", "Knife halfway through the bread.", True),
        ("Knife above the bread.", "knife above the bread", False),
        ("Dough is flat.", "Dough is flat!", True),  # the wording hid a real change
    ]
    r = progression_detection(pairs, text_change_judge)
    assert (r.tpr, r.tnr) == (0.5, 1.0)


def test_progression_prompt_and_parse_path():
    """A model judge: ask progression_prompt, read the letter with parse_choice."""
    seen = []

    canned = {"half": "A. Action Progression", "same": "**B**", "odd": "I cannot say."}

    def reply(prompt):
        seen.append(prompt)
        return canned[prompt.split("Image 2: ")[1].split("\n")[0]]

    def judge(first, second):
        choice = parse_choice(reply(progression_prompt(first, second, "cutting bread")), 3)
        return None if choice is None else "ABC"[choice]

    pairs = [("whole", "half", True), ("whole", "same", False), ("whole", "odd", True)]
    r = progression_detection(pairs, judge)
    assert (r.tpr, r.tnr, r.uncertain) == (0.5, 1.0, 1)
    assert "Image 1: whole Image 2: half" in seen[0] and "Action: cutting bread" in seen[0]


def test_progression_result_to_dict_is_json():
    r = progression_detection([("a", "b", True)], text_change_judge)
    assert json.loads(json.dumps(r.to_dict()))["balanced_accuracy"] == 1.0


# --- caption matching --------------------------------------------------------------


def frame(tag):
    return np.full((4, 4, 3), tag, dtype=np.uint8)


def by_frame(answers):
    """A matching judge answering from a table keyed by the frame's pixel value."""
    return lambda image, captions: answers[int(image[0, 0, 0])]


def test_sequence_versus_frame_accuracy():
    # sequence 0: three frames all right; sequence 1: frame 1 picks caption 0 -> wrong.
    seqs = [
        ([frame(0), frame(1), frame(2)], ["c0", "c1", "c2"]),
        ([frame(10), frame(11)], ["d0", "d1"]),
    ]
    r = caption_matching(seqs, by_frame({0: 0, 1: 1, 2: 2, 10: 0, 11: 0}))
    assert r.sequence_accuracy == 0.5
    assert r.frame_accuracy == pytest.approx(4 / 5)
    assert (r.n_sequences, r.n_frames, r.correct_frames) == (2, 5, (3, 1))


def test_none_option_and_unreadable_count_wrong():
    seqs = [([frame(0), frame(1)], ["c0", "c1"]), ([frame(2), frame(3)], ["e0", "e1"])]
    r = caption_matching(seqs, by_frame({0: 2, 1: 1, 2: 0, 3: None}))  # 2 == len(captions): "none"
    assert (r.sequence_accuracy, r.frame_accuracy) == (0.0, 0.5)
    assert (r.none_chosen, r.unreadable) == (1, 1)


def test_judge_sees_all_captions():
    seen = []

    def judge(image, captions):
        seen.append(list(captions))
        return int(image[0, 0, 0])

    r = caption_matching([([frame(0), frame(1)], ["c0", "c1"])], judge)
    assert r.sequence_accuracy == 1.0
    assert seen == [["c0", "c1"], ["c0", "c1"]]


def test_matching_prompt_and_parse_path():
    # the last letter is "none of the above": C for two captions, B for one
    replies = iter(["A", "**B**", "B. None of the above"])

    def judge(image, captions):
        prompt = matching_prompt(captions)
        assert f"{'ABC'[len(captions)]}. None of the above" in prompt
        return parse_choice(next(replies), len(captions) + 1)

    seqs = [([frame(0), frame(1)], ["c0", "c1"]), ([frame(2)], ["e0"])]
    r = caption_matching(seqs, judge)
    assert (r.correct_frames, r.none_chosen, r.sequence_accuracy) == ((2, 0), 1, 0.5)


def test_matching_errors():
    with pytest.raises(ValueError, match="sequence 1"):
        caption_matching([([frame(0)], ["c0"]), ([frame(1), frame(2)], ["c0"])], lambda i, c: 0)
    with pytest.raises(ValueError, match="at least one"):
        caption_matching([], lambda i, c: 0)
    with pytest.raises(ValueError, match="sequence 0"):
        caption_matching([([], [])], lambda i, c: 0)
    with pytest.raises(ValueError, match="chose 5"):
        caption_matching([([frame(0)], ["c0"])], lambda i, c: 5)
    r = caption_matching([([frame(0)], ["c0"])], lambda i, c: 0)
    assert json.loads(json.dumps(r.to_dict()))["correct_frames"] == [1]


# --- caption diversity -------------------------------------------------------------


def test_diversity_every_pair_distinct():
    caps = ["Hand on knife.", "hand on knife", "Knife cuts bread.", "Bread is sliced.", "Bread is sliced."]
    r = caption_diversity(caps)
    # pairs: same, diff, diff, same -> 2 of 4 identical; 3 texts among 5 captions
    assert (r.pairs, r.identical, r.identical_rate) == (4, 2, 0.5)
    assert (r.unique, r.captions, r.unique_ratio) == (3, 5, 0.6)


def test_diversity_with_distinct_mask():
    caps = [FrameCaption(t, t, x) for t, x in enumerate(["a", "a", "b", "b", "c"])]
    # pair 0 (a, a) frames the same: a repeat there is right and is not counted.
    r = caption_diversity(caps, distinct=[False, True, True, True])
    assert (r.pairs, r.identical) == (3, 1)
    assert r.identical_rate == pytest.approx(1 / 3)
    r = caption_diversity(caps, distinct=[False, False, False, False])
    assert (r.pairs, r.identical_rate) == (0, None)


def test_diversity_errors_and_single_caption():
    with pytest.raises(ValueError, match="at least one"):
        caption_diversity([])
    with pytest.raises(ValueError, match="3 captions make 2 pairs"):
        caption_diversity(["a", "b", "c"], distinct=[True])
    r = caption_diversity(["only"])
    assert (r.pairs, r.identical_rate, r.unique_ratio) == (0, None, 1.0)
    assert r.to_dict()["captions"] == 1
