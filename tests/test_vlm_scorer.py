"""The VLM scorer for ViSIL on tiny LLaVA-OneVision and Qwen2-VL models: its keyword
log-probabilities against a teacher-forced pass written out here independently, token
counts against what the processor inserts, and the F.1 / F.2 calls.

Random and overfitted tiny models give meaningless probabilities; what is checked is
that the right tokens of the right sequence are scored, with the images in order."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PIL import Image

from tiny_vlm import colour_frame
from videoreview.engines.captions.vlm import FAMILIES, VisionLanguageModel
from videoreview.engines.scoring.protocol import Source, recovery_prompt
from videoreview.engines.scoring.vlm import VLMScorer, describe_video, parse_keywords, vlm_keywords

# Words split differently by the tiny tokenizer: one token with its space (" door"), the
# space in a token with the first letter (" f"), the space as a token of its own (" ", "z").
KEYWORDS = ["person", "walks", "zebra", "door", "frisbee", "opens"]
MASKED = "a [MASK] [MASK] past a [MASK] to the [MASK] with a [MASK] and [MASK] it."
SIZE = (384, 216)  # no family scales frames this small, so the processor sees them as they are
FRAMES = {i: np.random.default_rng(i).integers(0, 256, (SIZE[1], SIZE[0], 3), dtype=np.uint8) for i in range(12)}
VIDEO = (0, 3, 6, 9)
ONE_IMAGE = Source("summary", "a person opens the door.", (4,))


class Reader:
    """read_frames for the scorer: synthetic frames by index, remembering what was asked."""

    def __init__(self, frames=FRAMES):
        self.frames = frames
        self.calls: list[tuple[int, ...]] = []

    def __call__(self, indices):
        self.calls.append(tuple(indices))
        return [self.frames[i] for i in indices]


@pytest.fixture(scope="module")
def models(taught):
    return {family: VisionLanguageModel(taught[family], device="cpu") for family in FAMILIES}


def direct_log_probs(model: VisionLanguageModel, images, prompt: str, keywords) -> list[float]:
    """Teacher forcing written out: the processor on chat prompt + answer, one forward
    pass, and each keyword's tokens found by tokenising the answer prefix by prefix."""
    processor, tokenizer = model.processor, model.processor.tokenizer
    content = [{"type": "image"} for _ in images] + [{"type": "text", "text": prompt}]
    head = processor.apply_chat_template([{"role": "user", "content": content}], add_generation_prompt=True)
    answer = " ".join(keywords)
    pil = [[Image.fromarray(frame) for frame in images]] if images else None
    inputs = processor(text=[head + answer], images=pil, return_tensors="pt")
    with torch.inference_mode():
        logits = model.model(**inputs).logits[0]
    log_probs = torch.log_softmax(logits.double(), dim=-1)
    ids = inputs["input_ids"][0].tolist()
    prefix_lengths = [len(tokenizer(" ".join(keywords[:i]), add_special_tokens=False)["input_ids"])
                      for i in range(len(keywords) + 1)]
    start = len(ids) - prefix_lengths[-1]
    assert ids[start:] == tokenizer(answer, add_special_tokens=False)["input_ids"]
    out = []
    for i in range(len(keywords)):
        span = range(start + prefix_lengths[i], start + prefix_lengths[i + 1])
        assert len(span) > 0
        out.append(sum(log_probs[p - 1, ids[p]].item() for p in span))  # logits at p - 1 predict token p
    return out


@pytest.mark.parametrize("family", FAMILIES)
def test_log_probs_are_teacher_forcing_on_the_keywords(models, family):
    model = models[family]
    reader = Reader()
    scorer = VLMScorer(model, reader, VIDEO)
    assert scorer.name == f"{family}:{family}" and scorer.approximate is False
    summary = Source("summary", "a person opens the door.", (7, 2))
    for source, images in [(Source("video"), [FRAMES[i] for i in VIDEO]),
                           (ONE_IMAGE, [FRAMES[4]]),
                           (summary, [FRAMES[7], FRAMES[2]]),
                           (Source("summary", "a person opens the door."), [])]:
        got = scorer.keyword_log_probs(KEYWORDS, MASKED, source)
        expected = direct_log_probs(model, images, recovery_prompt(source, MASKED), KEYWORDS)
        assert len(got) == len(KEYWORDS) and all(isinstance(v, float) and v <= 0 for v in got)
        assert got == pytest.approx(expected, abs=1e-4)
    assert reader.calls == [VIDEO, (4,), (7, 2)]  # keyframes in the summary's order; none for text


@pytest.mark.parametrize("family", FAMILIES)
def test_log_probs_depend_on_the_caption_and_the_images(models, family):
    scorer = VLMScorer(models[family], Reader(), VIDEO)
    base = scorer.keyword_log_probs(KEYWORDS, MASKED, ONE_IMAGE)
    video = scorer.keyword_log_probs(KEYWORDS, MASKED, Source("video"))
    reversed_video = VLMScorer(models[family], Reader(), VIDEO[::-1])
    other_caption = "the [MASK] [MASK] in the [MASK] [MASK] [MASK] [MASK]."
    pairs = [(scorer.keyword_log_probs(KEYWORDS, other_caption, ONE_IMAGE), base),
             (scorer.keyword_log_probs(KEYWORDS, MASKED, Source("summary", ONE_IMAGE.text, (5,))), base),
             (reversed_video.keyword_log_probs(KEYWORDS, MASKED, Source("video")), video)]
    for changed, original in pairs:
        assert max(abs(a - b) for a, b in zip(changed, original)) > 1e-4


@pytest.mark.parametrize("family", FAMILIES)
def test_batched_sources_score_as_one_by_one(models, family):
    scorer = VLMScorer(models[family], Reader(), VIDEO)
    sources = [ONE_IMAGE, Source("video"), Source("summary", "someone walks in.", (8,)),
               Source("summary", "a much longer text summary of the clip, with a door in it."),
               Source("summary", "short."), Source("summary", "", (1, 2, 3))]
    many = scorer.keyword_log_probs_many(KEYWORDS, MASKED, sources)
    for source, values in zip(sources, many):
        assert values == pytest.approx(scorer.keyword_log_probs(KEYWORDS, MASKED, source), abs=1e-4)
    assert scorer.keyword_log_probs([], MASKED, ONE_IMAGE) == []


def test_repeated_runs_average_to_the_same_on_cpu(untrained):
    model = VisionLanguageModel(untrained, device="cpu")
    once = VLMScorer(model, Reader(), VIDEO).keyword_log_probs(KEYWORDS, MASKED, ONE_IMAGE)
    twice = VLMScorer(model, Reader(), VIDEO, runs=2).keyword_log_probs(KEYWORDS, MASKED, ONE_IMAGE)
    assert twice == pytest.approx(once, abs=1e-9)
    with pytest.raises(ValueError):
        VLMScorer(model, Reader(), VIDEO, runs=0)
    with pytest.raises(ValueError):
        VLMScorer(model, Reader(), ())


def image_tokens_inserted(model: VisionLanguageModel, images: int) -> int:
    processor = model.processor
    head = processor.apply_chat_template(
        [{"role": "user", "content": [{"type": "image"}] * images + [{"type": "text", "text": "x"}]}],
        add_generation_prompt=True)
    inputs = processor(text=[head], images=[[Image.fromarray(FRAMES[0])] * images], return_tensors="pt")
    return int((inputs["input_ids"] == processor.image_token_id).sum())


@pytest.mark.parametrize("family", FAMILIES)
def test_tokens_count_text_and_the_image_tokens_inserted(models, family):
    model = models[family]
    scorer = VLMScorer(model, Reader(), VIDEO)
    text = "a person walks to the door and opens it."
    text_tokens = len(model.processor.tokenizer(text, add_special_tokens=False)["input_ids"])
    text_only, one, three = (scorer.tokens(Source("summary", text, frames)) for frames in [(), (1,), (1, 2, 3)])
    assert text_only == text_tokens < one < three
    assert one - text_only == image_tokens_inserted(model, 1)
    assert three - one == image_tokens_inserted(model, 3) - image_tokens_inserted(model, 1)
    assert scorer.tokens(Source("video")) == image_tokens_inserted(model, len(VIDEO))
    if family == "qwen2_vl":  # a fixed count per image (LLaVA-OneVision spends more on a lone image)
        assert three - one == 2 * image_tokens_inserted(model, 1)


def test_parse_keywords():
    text = "A man in a red coat walks his dog to the park, and the dog catches a frisbee. Video ends."
    assert parse_keywords('["dog", "walks", "man"]', text) == ["man", "walks", "dog"]  # order of the text
    assert parse_keywords("Here are the keywords:\n\u201cignored\u201d [\u201cFrisbee\u201d, \u201cpark\u201d] "
                          "Hope this helps [\"coat\"]", text) == ["park", "frisbee"]  # curly quotes, junk around
    assert parse_keywords("['coat', 'red']", text) == ["red", "coat"]  # single quotes
    assert parse_keywords('["dog", "dog", "DOG", "cat", "red coat", "video", "", "catch"]', text) == ["dog"]
    assert parse_keywords("no array here", text) == [] and parse_keywords("[1, 2]", text) == []
    assert parse_keywords('["dog"', text) == []
    many = " ".join(f"w{i}" for i in range(30))
    reply = "[" + ", ".join(f'"w{i}"' for i in reversed(range(30))) + "]"
    assert parse_keywords(reply, many) == [f"w{i}" for i in range(20)]


def test_keywords_and_description_run_end_to_end(untrained):
    model = VisionLanguageModel(untrained, device="cpu")
    keywords = vlm_keywords(model, "a person walks to the door and opens it.", max_new_tokens=8)
    assert isinstance(keywords, list) and all(isinstance(k, str) for k in keywords)  # junk from a random model
    description = describe_video(model, [colour_frame("red"), colour_frame("blue")], max_new_tokens=8)
    assert isinstance(description, str)
