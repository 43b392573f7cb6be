"""The bundled text embedding, the builtin ViSIL scorer (an approximation) and the
comparison of summaries, on hand-made Analyses and on a generated clip."""

import math

import numpy as np
import pytest

from fake_engines import ENGINES
from videoreview.engines.embeddings.minilm import TextEmbedder, _check_weights, bundled_model_dir
from videoreview.engines.scoring.builtin import CEIL, FLOOR, BuiltinScorer
from videoreview.errors import ModelError
from videoreview.pipeline import StageCache, analyze
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
from videoreview.summary.compare import Cancelled, Reference, builtin_reference, compare
from videoreview.summary.visil import Source, extract_keywords
from videos import make_cuts_video


@pytest.fixture(scope="module")
def embedder():
    return TextEmbedder()


@pytest.mark.models
def test_embedding_matches_sentence_transformers(embedder):
    from sentence_transformers import SentenceTransformer

    texts = ["a man runs to the door", "wine glass, candle", "Человек открывает холодильник", "x"]
    reference = SentenceTransformer(str(bundled_model_dir()), device="cpu").encode(texts, normalize_embeddings=True)
    ours = embedder.embed(texts)
    assert ours.shape == (4, 384) and np.abs(ours - reference).max() < 1e-5
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert embedder.count_tokens("a man runs") == 3 and embedder.count_tokens("") == 0


def test_weights_that_are_not_the_published_ones_are_refused(tmp_path):
    fake = tmp_path / "model.safetensors"
    fake.write_bytes(b"not the weights")
    with pytest.raises(ModelError, match="not the published all-MiniLM-L6-v2 weights") as info:
        _check_weights(fake)
    assert str(fake) in str(info.value)


def scene() -> Analysis:
    """10 s, a cut at 5 s: a kitchen shot with a fridge, then Bob (P1) at a piano."""
    video = VideoInfo("/videos/scene.mp4", duration=10.0, fps=25.0, frame_count=250, width=640, height=360)
    kitchen = ("Shot 1, wide: no people; refrigerator. Camera static.", (("refrigerator", 0.8), ("dishwasher", 0.3)))
    piano = ("Shot 2, close-up: P1 (left); grand piano. Camera static.", (("grand piano", 0.7), ("upright", 0.4)))
    captions = tuple(FrameCaption(float(t), t * 25, (kitchen if t < 5 else piano)[0],
                                  labels=(kitchen if t < 5 else piano)[1]) for t in range(10))
    return Analysis(
        video=video,
        boundaries=(Boundary(5.0, 125, "cut", 0.9, BoundaryCaption("P1", "absent", "at the piano")),),
        captions=captions,
        faces=tuple(FaceDetection(float(t), t * 25, (10, 10, 50, 50), 1.0, 0, "P1") for t in range(5, 10)),
        identities=(Identity("P1", name="Bob"),),
        keyframes=(Keyframe(1.0, 25), Keyframe(7.0, 175)),
    )


def probabilities(scorer, keywords, source):
    return [math.exp(v) for v in scorer.keyword_log_probs(keywords, "", source)]


def test_builtin_scorer_reads_what_each_source_shows(embedder):
    scorer = BuiltinScorer(scene(), embedder)
    keywords = ["refrigerator", "piano", "bob", "dishwasher", "volcano"]
    video = probabilities(scorer, keywords, Source("video"))
    assert video[:3] == pytest.approx([CEIL] * 3)  # said verbatim somewhere in the video
    assert video[3] == pytest.approx(FLOOR + (CEIL - FLOOR) * 0.3)  # a label, weighted by its probability
    assert video[4] < 0.2  # nothing like a volcano
    kitchen = probabilities(scorer, keywords, Source("summary", "", (25,)))
    assert kitchen[0] == pytest.approx(CEIL) and kitchen[1] < 0.5 and kitchen[2] < 0.1  # Bob is not there
    piano = probabilities(scorer, keywords, Source("summary", "", (175,)))
    assert piano[1] == pytest.approx(CEIL) and piano[2] == pytest.approx(CEIL)  # Bob is on screen at 7 s
    synonym = probabilities(scorer, keywords, Source("summary", "A fridge, then [KEYFRAME1]."))
    assert synonym[0] == pytest.approx(CEIL)  # "fridge" says "refrigerator"
    related = probabilities(scorer, keywords, Source("summary", "A kitchen, then [KEYFRAME1]."))
    assert 0.1 < related[0] < 0.9  # a kitchen makes a refrigerator likely, not certain
    assert probabilities(scorer, keywords, Source("summary", "")) == pytest.approx([FLOOR] * 5)


def test_builtin_token_cost_counts_text_and_what_each_image_stands_for(embedder):
    scorer = BuiltinScorer(scene(), embedder)
    text = scorer.tokens(Source("summary", "A kitchen, then a piano."))
    one = scorer.tokens(Source("summary", "A kitchen, then a piano.", (25,)))
    two = scorer.tokens(Source("summary", "A kitchen, then a piano.", (25, 175)))
    assert 0 < text < one < two
    assert scorer.tokens(Source("summary", "[KEYFRAME1]")) == 0  # placeholders are not text


def test_compare_scores_every_summary_under_one_scorer(embedder):
    analysis = scene()
    scorer = BuiltinScorer(analysis, embedder)
    summaries = [Summary("text", "A kitchen, then Bob at a piano."), Summary("keyframes", "", (25,)),
                 Summary("keyframes+text", "[KEYFRAME1] then [KEYFRAME2].", (25, 175))]
    reference = Reference("A refrigerator stands in a kitchen. Bob plays the grand piano.", "typed")
    steps = []
    result = compare(summaries, scorer, reference, progress=lambda f, m: steps.append(f))
    assert [r.format for r in result.rows] == ["text", "1 image, no text", "2"]
    assert result.keywords == tuple(extract_keywords(reference.text))
    assert all(r.scorer == scorer.name and r.approximate for r in result.rows)
    assert result.rows[2].visil < result.rows[1].visil  # both shots beat the kitchen alone
    assert steps[0] == 0 and steps[-1] == 1 and len(steps) == 5
    assert set(result.frontier) <= {0, 1, 2} and result.choices[0] == (0.0, int(np.argmin([r.visil for r in
                                                                                           result.rows])))
    assert result.rows[0].to_json().keys() == {"format", "visil", "tokens", "scorer", "keyframes", "text"}
    with pytest.raises(Cancelled):
        compare(summaries, scorer, reference, cancelled=lambda: True)
    with pytest.raises(ValueError, match="empty"):
        compare(summaries, scorer, Reference("  ", "typed"))
    with pytest.raises(ValueError, match="no keywords"):
        compare(summaries, scorer, Reference("the and of", "file notes.txt"))


@pytest.fixture(scope="module")
def cuts_analysis(tmp_path_factory):
    clip = make_cuts_video(tmp_path_factory.mktemp("visil"))
    return analyze(clip.path, ENGINES, cache=StageCache(tmp_path_factory.mktemp("cache")))


def test_covering_more_shots_never_loses_more(cuts_analysis, embedder):
    """The issue's sanity check: on a generated clip of 4 shots, keyframes from more of its
    shots do not lose more than keyframes from fewer."""
    analysis = cuts_analysis
    assert analysis.captions and all(c.labels for c in analysis.captions)  # the classifier's labels are kept
    starts = [0.0] + analysis.shot_changes()
    assert len(starts) == 4
    per_shot = []
    for start, end in zip(starts, starts[1:] + [analysis.video.duration]):
        inside = [k for k in analysis.keyframes if start <= k.time < end]
        assert inside, f"no keyframe in the shot at {start} s"
        per_shot.append(inside[0].frame)
    scorer = BuiltinScorer(analysis, embedder)
    summaries = [Summary("keyframes", "", tuple(per_shot[:n])) for n in range(1, 5)]
    result = compare(summaries, scorer, builtin_reference(analysis))
    losses = [r.visil for r in result.rows]
    assert all(later <= earlier + 1e-9 for earlier, later in zip(losses, losses[1:])), losses
    assert losses[-1] < losses[0]  # and four shots say strictly more than one
    standard = compare(builder.standard_summaries(analysis), scorer, builtin_reference(analysis))
    text, one, three = (r.visil for r in standard.rows)
    assert three <= one, (text, one, three)
