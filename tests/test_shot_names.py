"""Naming what a shot shows with an image-text model (engines/embeddings/naming.py): the
vocabulary shipped in resources/, the scoring rule on hand-made embeddings (a positive
logit is the model's own match), the vote with the detectors and the classifier, and the
whole path on a generated clip (the real decoder, the builtin boundaries and captions
stages) with a tiny SigLIP taught to match solid red / blue / green frames with "a red
frame", ... (tests/tiny_siglip.py), exported to ONNX and run as users run it."""

from __future__ import annotations

import base64
import json
import shutil
from dataclasses import replace

import numpy as np
import pytest

import tiny_siglip
import tiny_vlm
from cached import cached
from tiny_vlm import colour_clip
from videoreview.choices import Chosen
from videoreview.engines import registry
from videoreview.engines.embeddings import naming
from videoreview.engines.embeddings.image_text import ImageTextEncoder
from videoreview.engines.embeddings.naming import ShotNamer, Vocabulary, read_vocabulary, shot_names
from videoreview.errors import RecordError
from videoreview.pipeline import StageCache, analyze, build_stages
from videoreview.pipeline.runner import stage_key
from videoreview.pipeline.stages import label_vote
from videoreview.pipeline.stages.captions import NAME_SECONDS, CaptionStage, name_shots
from videoreview.pipeline.stages.label_vote import Shot
from videoreview.records import Analysis, ObjectDetection, ObjectTrack, ShotTag

COLOURS = Vocabulary(("red", "blue", "green"))
TAUGHT = "a {name} frame"  # the texts the tiny model was taught with (tiny_siglip.teach)
ENGINES = {"boundaries": "builtin", "captions": "builtin"}
SOURCES = {"coco", "imagenet", "openimages", "lvis", "places365", "videoreview"}


@pytest.fixture(scope="module")
def model():
    """The taught tiny SigLIP, kept between sessions in the tests' cache (cached.py)."""
    return cached("taught-siglip", [tiny_siglip, tiny_vlm.colour_frame],
                  lambda folder: tiny_siglip.teach(tiny_siglip.build(folder)),
                  packages=["torch", "transformers", "sentencepiece"])


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    """Red 0-2 s, blue 2-4 s, green 4-6 s: hard cuts at 2 s and 4 s."""
    return colour_clip(tmp_path_factory.mktemp("clip") / "colours.mp4", seconds=2)


class Counting:
    """The real encoder, counting the prompts it embeds."""

    def __init__(self, encoder) -> None:
        self.encoder, self.prompts = encoder, 0
        self.name, self.version = encoder.name, encoder.version
        self.logit_scale, self.logit_bias = encoder.logit_scale, encoder.logit_bias

    def embed_images(self, frames):
        return self.encoder.embed_images(frames)

    def embed_texts(self, texts):
        self.prompts += len(texts)
        return self.encoder.embed_texts(texts)


def test_the_vocabulary_has_thousands_of_plain_names_with_their_sources():
    vocabulary = read_vocabulary(naming.vocabulary_path())
    names = vocabulary.names
    assert len(names) >= 2500 and len(set(names)) == len(names)
    assert all(name == name.lower().strip() and "_" not in name and "/" not in name for name in names)
    assert all(set(sources.split(",")) <= SOURCES for sources in vocabulary.sources)
    every = {source for sources in vocabulary.sources for source in sources.split(",")}
    assert every == SOURCES
    # The detectors' COCO labels are all there, so that a name can agree with each.
    from videoreview.engines.objects.decode import COCO_LABELS

    assert set(COCO_LABELS) <= set(names)
    kinds = dict(zip(names, vocabulary.kinds))
    assert kinds["parrot"] == "thing" and kinds["beach"] == "scene" and kinds["cartoon"] == "style"
    assert kinds["crowd"] == "thing" and kinds["race car"] == "thing"
    prompts = dict(zip(names, vocabulary.prompts()))
    assert prompts["parrot"] == "a photo of a parrot." and prompts["airfield"] == "a photo of an airfield."
    assert prompts["bat"] == "a photo of a bat (animal)."  # the hint tells the senses apart


@pytest.mark.parametrize("text, problem", [
    ("parrot\tthing\topenimages\n", "line 1: expected 4 tab-separated fields"),
    ("parrot\tanimal\topenimages\t\n", "line 1: kind 'animal' is not one of thing, scene, style"),
    ("# a comment\nparrot\tthing\tlvis\t\nparrot\tthing\tcoco\t\n", "line 3: 'parrot' is listed twice"),
    ("# only a comment\n", "the vocabulary has no names"),
])
def test_files_that_are_no_vocabulary_are_refused_naming_the_file(tmp_path, text, problem):
    path = tmp_path / "words.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RecordError, match=problem) as refused:
        read_vocabulary(path)
    assert str(path) in str(refused.value)


def test_a_name_matches_where_its_logit_is_positive_in_half_of_the_shot():
    """Hand-made unit vectors: the logit is cosine * 10 - 5, so a frame at cosine 1 with a
    name is a match (5), one at cosine 0 is none (-5) and one at cosine 0.5 is the boundary
    (0), which is not a match."""
    names = ("parrot", "car", "beach", "dog")
    texts = np.eye(4, dtype=np.float32)

    def frame(*weights):
        vector = np.array(weights, np.float32)
        return vector / np.linalg.norm(vector)

    frames = np.stack([frame(1, 0, 0, 0), frame(1, 0, 1, 0), frame(0, 1, 0, 0), frame(0, 0, 1, 0.3)])
    logits = naming.logits(frames, texts, 10.0, -5.0)
    assert np.allclose(logits[0], [5, -5, -5, -5]) and logits[1, 0] == pytest.approx(10 / 2 ** 0.5 - 5)
    # parrot matches in 2 of 4 frames (half: kept), beach in 2 (kept, less probable), car in 1 (not), dog in none.
    found = shot_names(logits, names)
    assert [name for name, _ in found] == ["parrot", "beach"]
    assert found[0][1] == pytest.approx(naming.sigmoid(logits[:, 0]).mean(), abs=1e-4)
    # A cosine of 0.5 gives a logit of 0: the model's probability 0.5 is no match.
    even = naming.logits(np.stack([frame(1, 3 ** 0.5, 0, 0)]), texts, 10.0, -5.0)
    assert even[0, 0] == pytest.approx(0, abs=1e-5) and [n for n, _ in shot_names(even, names)] == ["car"]
    # At most MAX_NAMES, the most probable first.
    many = np.array([[4.0, 3.0, 2.0, 1.0]])
    assert [n for n, _ in shot_names(many, names)] == ["parrot", "car", "beach"] == list(names[:naming.MAX_NAMES])
    assert shot_names(np.zeros((0, 4)), names) == []


def test_a_general_name_is_dropped_where_a_kind_of_it_is_said():
    names = ("bird", "parrot", "animal", "car")
    found = shot_names(np.array([[3.0, 1.0, 2.0, 1.5]]), names, limit=10)
    assert [n for n, _ in found] == ["car", "parrot"]  # "bird" and "animal" are kinds above "parrot"


def test_the_vocabulary_s_embeddings_are_made_once_per_model(model, home):
    encoder = Counting(ImageTextEncoder(model))
    vocabulary = Vocabulary(tuple(f"thing {i}" for i in range(70)))  # past one batch of prompts
    first = ShotNamer(encoder, vocabulary)
    texts = first.text_embeddings()
    assert encoder.prompts == 70 and texts.shape == (70, 32)
    path = first.cache_path()
    assert path.is_file() and path.is_relative_to(home / "vocabulary" / encoder.version)
    written = path.stat().st_mtime_ns
    again = ShotNamer(encoder, vocabulary)  # a new analysis: read from disk, not embedded again
    assert np.array_equal(again.text_embeddings(), texts) and encoder.prompts == 70
    assert path.stat().st_mtime_ns == written
    # Other prompts are other embeddings.
    other = ShotNamer(encoder, vocabulary, template="a picture of {name}")
    other.text_embeddings()
    assert encoder.prompts == 140 and other.cache_path() != path
    # A damaged file is made again.
    path.write_bytes(b"not an array")
    assert np.array_equal(ShotNamer(encoder, vocabulary).text_embeddings(), texts) and encoder.prompts == 210


def test_each_shot_is_named_by_the_model_through_the_captions_stage(model, clip, home, tmp_path):
    namer = ShotNamer(ImageTextEncoder(model), COLOURS, template=TAUGHT)
    stages = build_stages(ENGINES)
    for stage in stages:
        if stage.name == "captions":
            name_shots(stage, namer)
    cache = StageCache(tmp_path / "cache")
    analysis = analyze(clip, stages=stages, cache=cache)
    assert [(b.time, b.kind) for b in analysis.boundaries] == [(2.0, "cut"), (4.0, "cut")]
    tags = [(t.start, t.end, t.frame, t.name) for t in analysis.shot_tags]
    assert tags == [(0.0, 2.0, 0, "red"), (2.0, 4.0, 50, "blue"), (4.0, 6.0, 100, "green")]
    assert all(t.engine == namer.tag and t.engine.startswith("siglip:") and 0.5 < t.score <= 1
               for t in analysis.shot_tags)
    # The names vote: each shot's subject is its name, where the builtin said only its colours.
    by_shot = {t.start: t.name for t in analysis.shot_tags}
    for caption in analysis.captions:
        shot = max(start for start in by_shot if start <= caption.time)
        assert caption.text.lower().startswith((f"a {by_shot[shot]}", f"new shot: a {by_shot[shot]}"))
    # The cached result keeps each sample's vector (float16), and a cached run names the same.
    captions_stage = next(s for s in stages if s.name == "captions")
    result = cache.get_entry(*stage_key(captions_stage, analysis.content_hash))[0]
    # ... of the samples NAME_SECONDS apart: 0, 2 and 4 s, one in each shot.
    named = [s for s in result["samples"] if "image_text" in s]
    assert [s["time"] for s in named] == [0.0, 2.0, 4.0] and len(result["samples"]) == 6
    assert all(len(s["image_text"]) == len(base64.b64encode(bytes(2 * 32))) for s in named)
    assert analyze(clip, stages=stages, cache=cache).shot_tags == analysis.shot_tags
    # The JSON round trip gives the records back.
    loaded = Analysis.from_dict(json.loads(analysis.to_json()))
    assert loaded == analysis and all(isinstance(t, ShotTag) for t in loaded.shot_tags)

    # A reviewer's tag survives a re-run and takes the place of the model's of that name.
    mine = ShotTag(start=2.0, end=4.0, frame=50, name="blue", score=1.0, engine="", edited=True)
    again = analyze(clip, stages=stages, cache=cache, previous=replace(analysis, shot_tags=(mine,)))
    assert [(t.name, t.edited) for t in again.shot_tags] == [("red", False), ("blue", True), ("green", False)]


def test_the_chosen_model_reaches_the_captions_stage_with_the_vocabulary(model, home):
    defaults = {key: capability.default for key, capability in registry.CAPABILITIES.items()}
    engines = Chosen({**defaults, "image-text": str(model)}, "cpu", ()).analysis_engines()
    assert engines == {**registry.default_engines(), "image-text": str(model)}
    captions = next(s for s in build_stages({"captions": "builtin", "image-text": str(model)}, "cpu"))
    assert captions.namer is not None and captions.namer.vocabulary == naming.default_vocabulary()
    tag = captions.namer.tag
    # Another model (or none) computes the stage again.
    assert stage_key(captions, "h")[3].endswith(f"~{CaptionStage.revision}+{tag}/{NAME_SECONDS:g}s")
    # A VLM's stage measures frames with the builtin one: both carry the model in their keys.
    from videoreview.pipeline.stages.vlm_captions import VLMCaptionStage

    vlm = VLMCaptionStage(captions.engine, CaptionStage(captions.engine))
    name_shots(vlm, captions.namer)
    assert vlm.builtin.namer is captions.namer and vlm.revision == f"{VLMCaptionStage.revision}+{tag}/{NAME_SECONDS:g}s"
    assert vlm.builtin.revision == f"{CaptionStage.revision}+{tag}/{NAME_SECONDS:g}s"


def test_a_model_that_will_not_load_leaves_the_captions_without_names(model, home, tmp_path, capsys):
    broken = shutil.copytree(model, tmp_path / "broken")
    (broken / "preprocessor_config.json").unlink()
    captions = next(s for s in build_stages({"captions": "builtin", "image-text": str(broken)}, "cpu"))
    assert captions.namer is None and captions.revision == CaptionStage.revision
    notice = capsys.readouterr().err
    assert "shot names are off" in notice and str(broken) in notice and "no preprocessor_config.json" in notice


def test_without_an_image_text_model_nothing_changes(clip, home, tmp_path):
    defaults = {key: capability.default for key, capability in registry.CAPABILITIES.items()}
    assert defaults["image-text"] == "none"
    assert Chosen(defaults, "cpu", ()).analysis_engines() == registry.default_engines()
    plain, off = build_stages(ENGINES, "cpu"), build_stages({**ENGINES, "image-text": "none"}, "cpu")
    assert [stage_key(s, "h") for s in plain] == [stage_key(s, "h") for s in off]
    captions = next(s for s in off if s.name == "captions")
    assert captions.namer is None and captions.revision == 0
    cache = StageCache(tmp_path / "cache")
    analysis = analyze(clip, stages=off, cache=cache)
    assert analysis.shot_tags == () and json.loads(analysis.to_json())["shot_tags"] == []
    result = cache.get_entry(*stage_key(captions, analysis.content_hash))[0]
    assert not any("image_text" in s for s in result["samples"])
    assert not any(word in c.text for c in analysis.captions for word in ("A red", "A blue", "A green"))


def _bird(score: float) -> ObjectTrack:
    return ObjectTrack(id=0, label="bird", start=0.0, end=3.0, score=score, detections=3)


def _birds(count: int) -> tuple[ObjectDetection, ...]:
    return tuple(ObjectDetection(time=float(i), frame=25 * i, label="bird", box=(0, 0, 10, 10), score=0.4)
                 for i in range(count))


def test_the_names_vote_with_the_detector_and_the_classifier():
    unsure = _bird(0.4)  # under ALONE, and the classifier (no labels) does not agree
    alone = Shot(crops=[[]], whole=[[]], tracks=[unsure], detections=_birds(3))
    assert not label_vote.kept_track(alone, unsure) and label_vote.subject(alone) is None
    # A name meaning the label (a parrot is a bird) keeps the track, and names the subject.
    named = replace(alone, names=[("parrot", 0.3)])
    assert label_vote.kept_track(named, unsure) and label_vote.subject(named) == "parrot"
    assert not label_vote.kept_track(replace(alone, names=[("dog", 0.9)]), unsure)
    # A name sure on its own (mean probability NAME_SURE or more) is the subject where nothing else says one.
    scene = Shot(crops=[[]], whole=[[]], tracks=[], detections=(), names=[("beach", 0.62), ("sky", 0.55)])
    assert label_vote.subject(scene) == "beach"
    assert label_vote.subject(replace(scene, names=[("beach", 0.45)])) is None
    assert label_vote.subject(replace(scene, names=[("cartoon", 0.9)])) is None  # a style says how, not what
    # The classifier sure alone still comes first.
    sure = replace(scene, crops=[[("macaw", 0.95)]] * 3, whole=[[("macaw", 0.95)]] * 3)
    assert label_vote.subject(sure) == "macaw"
