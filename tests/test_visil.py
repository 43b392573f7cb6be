"""ViSIL arithmetic, keyword extraction and masking, and summary selection, against
hand-computed values (a scorer whose probabilities the test sets)."""

import math

import pytest

from videoreview.summary.visil import MASK, Source, extract_keywords, mask_caption, pareto_frontier, select, visil


class TableScorer:
    """P(k_i | source) from a table the test controls; tau = words + 100 per image."""

    name = "table"
    approximate = True

    def __init__(self, table):
        self.table = table
        self.calls = []

    def keyword_log_probs(self, keywords, masked_caption, source):
        self.calls.append((source.kind, masked_caption))
        return [math.log(p) for p in self.table[(source.kind, source.images)]]

    def tokens(self, source):
        return len(source.text.split()) + 100 * source.images


REFERENCE = "A man opens the fridge, takes out a bottle of milk and pours a glass. The video ends."


def test_keywords_are_content_words_in_order_once_lowercase():
    assert extract_keywords(REFERENCE) == ["man", "opens", "fridge", "takes", "bottle", "milk", "pours", "glass",
                                           "ends"]
    assert extract_keywords("Milk, MILK and milk-shakes; P1 waves at 3 o'clock") == \
        ["milk", "milk-shakes", "p1", "waves", "o'clock"]
    assert extract_keywords("Ein Mann öffnet den Kühlschrank") == ["ein", "mann", "öffnet", "den", "kühlschrank"]
    many = " ".join(f"word{n}x" for n in range(40))
    assert len(extract_keywords(many)) == 20 and extract_keywords("the a of and video") == []


def test_masking_replaces_each_keyword_once_in_order():
    text = "The man opens the fridge; the man smiles at the fridge."
    masked = mask_caption(text, ["man", "fridge", "smiles"])
    assert masked == f"The {MASK} opens the {MASK}; the man {MASK} at the fridge."
    assert mask_caption("Manhattan man", ["man"]) == f"Manhattan {MASK}"  # whole words only
    assert mask_caption("no match here", ["fridge"]) == "no match here"


def test_visil_is_the_log_ratio_of_recovery_probabilities():
    keywords = ["man", "fridge"]
    scorer = TableScorer({("video", 0): [0.5, 0.25], ("summary", 0): [0.25, 0.125], ("summary", 1): [0.5, 0.125]})
    text = Source("summary", "A man at a fridge.")
    score = visil(REFERENCE, keywords, text, scorer)
    assert score.log_p_video == pytest.approx(math.log(0.5 * 0.25))
    assert score.log_p_summary == pytest.approx(math.log(0.25 * 0.125))
    assert score.visil == pytest.approx(math.log(4.0))  # the text summary loses a factor of 4
    assert score.tokens == 5 and score.scorer == "table" and score.approximate
    assert scorer.calls[0] == ("video", f"A {MASK} opens the {MASK}, takes out a bottle of milk and pours a glass. "
                                        "The video ends.")
    one_image = visil(REFERENCE, keywords, Source("summary", "A man.", (10,)), scorer, video_log_p=score.log_p_video)
    assert one_image.visil == pytest.approx(math.log(2.0)) and one_image.tokens == 102
    assert len(scorer.calls) == 3  # the video's log P was reused


def test_a_scorer_that_breaks_probability_is_refused():
    scorer = TableScorer({("video", 0): [0.5], ("summary", 0): [1.5]})
    with pytest.raises(ValueError, match="above 0"):
        visil(REFERENCE, ["man"], Source("summary", "x"), scorer)
    short = TableScorer({("video", 0): [0.5, 0.5], ("summary", 0): [0.5]})
    with pytest.raises(ValueError, match="1 log-probabilities for 2 keywords"):
        visil(REFERENCE, ["man", "fridge"], Source("summary", "x"), short)


def test_pareto_frontier_and_selection():
    points = [(3.0, 10), (2.0, 50), (2.5, 60), (1.0, 200), (4.0, 5)]  # (ViSIL, tokens)
    assert pareto_frontier(points) == [4, 0, 1, 3]  # (2.5, 60) is beaten by (2.0, 50)
    assert select(points, [0.0, 0.01, 1.0]) == [3, 1, 4]
