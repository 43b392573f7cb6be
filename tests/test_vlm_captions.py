"""The VLM captions path on tiny LLaVA-OneVision, Qwen2-VL, Qwen3-VL, Qwen3.5, SmolVLM2 and Gemma 4 models
built here: the real loader, processors, prompts, batching, generation and parsing, and the pipeline stage.

The "taught" models were overfitted (tiny_vlm.taught) to caption solid red / blue /
green frames by their colour, so their replies are only right when the right images
reach the model in the right order. The analyses find their cuts with the fake boundaries
engine (fake_engines.py); the builtin captioner still measures every frame beside the model."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

import helpers
import tiny_vlm
from fake_engines import FAKE
from tiny_vlm import colour_clip
from tiny_vlm import colour_frame as frame
from videoreview.engines.captions.vlm import FAMILIES, Request, VisionLanguageModel, VLMEngine, check_model_dir
from videoreview.errors import ModelError
from videoreview.pipeline import StageCache, analyze, build_stages
from videoreview.pipeline.stages.vlm_captions import boundary_context, caption_windows

WINDOWS = [([frame("red"), frame("green")], None),
           ([frame("blue"), frame("red")], None),
           ([frame("green")], None),
           ([frame("blue"), frame("blue")], None)]
EXPECTED = [["a red frame.", "a green frame."], ["a blue frame.", "a red frame."], ["a green frame."],
            ["a blue frame.", "a blue frame."]]


@pytest.mark.parametrize("family", FAMILIES)
def test_each_frame_gets_its_own_caption_batched_or_not(taught, family):
    batched = VLMEngine(taught[family], batch_size=4)
    assert batched.device == "cpu" and batched.name == f"{family}:{family}"
    assert batched.caption_windows(WINDOWS) == EXPECTED
    one_by_one = VLMEngine(taught[family], batch_size=1)
    assert [one_by_one.caption(frames, context) for frames, context in WINDOWS] == EXPECTED
    assert batched.model.dtype.is_floating_point and str(batched.model.dtype) == "torch.float32"  # fp32 on CPU


@pytest.mark.parametrize("family", FAMILIES)
def test_boundary_caption_and_judges_run_end_to_end(taught, family):
    engine = VLMEngine(taught[family])
    found = engine.caption_boundary([frame("red")], frame("blue"), [frame("blue")])
    # The tiny model learnt the reply's shape for sure, the colours less reliably.
    assert found is not None and found[0] == "the frame" and {found[1], found[2]} <= set(tiny_vlm.COLOURS)
    assert engine.progression("a red frame.", "a blue frame.") == "A"
    choice = engine.match(frame("red"), ["a red frame.", "a blue frame."])
    assert choice is None or 0 <= choice <= 2


@pytest.mark.parametrize("family", FAMILIES)
def test_untrained_model_replies_are_capped_and_never_lose_the_window(untrained_families, family):
    untrained = untrained_families[family]
    model = VisionLanguageModel(untrained)
    longest = max(len(token) for token in model.processor.tokenizer.get_vocab())
    replies = model.generate([Request([frame("red")], "Describe.", 5), Request([frame("red")], "Describe.", 40)])
    # Greedy: the capped reply is the start of the longer one (its last character may be
    # half of a multi-byte one); random weights never emit the end token by themselves.
    assert len(replies[0]) <= 5 * longest and replies[1].startswith(replies[0][:-1])
    assert len(replies[0]) < len(replies[1])
    engine = VLMEngine(untrained)
    out = engine.caption_windows([([frame("red"), frame("blue")], None)] * 3)
    assert len(out) == 3 and all(len(captions) == 2 for captions in out)  # garbage replies: None per frame
    with pytest.raises(ValueError, match="1 to 6 frames"):
        engine.caption([frame("red")] * 7)


@pytest.mark.parametrize("family", FAMILIES)
def test_left_padded_batches_generate_what_one_request_at_a_time_does(untrained_families, family):
    # Prompts of different lengths: the shorter ones are padded on the left, which every
    # family's positions, masks (and Qwen3.5's linear-attention state) must see through.
    # Random weights make any leak show: their greedy replies follow every change.
    requests = [Request([frame("red"), frame("blue")], "Describe.", 12),
                Request([frame("green"), frame("red")], "Describe these two frames of a video, one line each.", 12),
                Request([frame("blue"), frame("blue")], "What changes between them?", 12)]
    model = VisionLanguageModel(untrained_families[family], batch_size=3)
    batched = model.generate(requests)
    model.batch_size = 1
    assert model.generate(requests) == batched


@pytest.fixture(scope="module")
def untrained_families(untrained, tmp_path_factory):
    """family -> a tiny model folder of that family with random weights."""
    root = tmp_path_factory.mktemp("untrained")
    return {family: untrained if family == "qwen2_vl" else tiny_vlm.build(family, root / family)
            for family in FAMILIES}


def _spoil(folder, tmp_path, how) -> str:
    bad = tmp_path / "model"
    shutil.copytree(folder, bad)
    how(bad)
    return str(bad)


def _set_config(**changes):
    def change(folder):
        config = json.loads((folder / "config.json").read_text())
        config.update(changes)
        (folder / "config.json").write_text(json.dumps(config))
    return change


def _pickle_only(folder):
    (folder / "model.safetensors").rename(folder / "pytorch_model.bin")


@pytest.mark.parametrize("how, message", [
    (lambda f: shutil.rmtree(f), "not a folder"),
    (lambda f: (f / "config.json").unlink(), "no config.json"),
    (lambda f: (f / "config.json").write_text("{broken"), "config.json: is not readable JSON"),
    (_set_config(auto_map={"AutoModel": "modeling_evil.Evil"}), "needs its own code"),
    (_set_config(model_type="gpt2"), "'gpt2' is not supported"),
    (_pickle_only, "only pytorch_model.bin: pickle files can run code when loaded\\); videoreview loads only"),
    (lambda f: (f / "model.safetensors").unlink(), "has no safetensors weights;"),
    (lambda f: [(f / n).unlink() for n in ("tokenizer.json", "tokenizer_config.json")], "no tokenizer"),
])
@pytest.mark.parametrize("family", FAMILIES)
def test_refused_model_folders_say_why(untrained_families, tmp_path, how, message, family):
    assert check_model_dir(untrained_families[family])[0] == family
    bad = _spoil(untrained_families[family], tmp_path, how)
    with pytest.raises(ModelError, match=message) as error:
        check_model_dir(bad)
    assert str(error.value).startswith(bad)


def test_windows_stay_inside_shots_and_boundary_context_follows_geb():
    # shots: 0 0 0 | 1 | 2 2
    assert caption_windows([0, 0, 0, 1, 2, 2]) == [
        ([0, 1], 0), ([0, 1], 1), ([1, 2], 1), ([3], 0), ([4, 5], 0), ([4, 5], 1)]
    before, after = boundary_context(100, 0, 400)
    assert len(before) == len(after) == 10 and before[0] == 0 and before[-1] == 99
    assert after[0] == 101 and after[-1] == 400
    assert boundary_context(5, 3, 6) == ([3, 4], [6])
    assert boundary_context(0, 0, 10)[0] == []


def test_the_prompt_names_who_is_visible_most_prominent_first(index_video):
    from videoreview.media import probe
    from videoreview.pipeline.stages.vlm_captions import VLMCaptionStage
    from videoreview.records import Analysis, FaceDetection

    info = probe(index_video.path)
    faces = (FaceDetection(1.0, 25, (10, 10, 20, 20), 1.0, 0, "P2"),
             FaceDetection(1.0, 25, (100, 50, 80, 80), 1.0, 1, "P1"),
             FaceDetection(2.0, 50, (10, 10, 20, 20), 1.0, 2, "P3"))
    stage = VLMCaptionStage(engine=None, builtin=None)
    digest = stage.prepare(Analysis(video=info, content_hash="x", faces=faces))
    assert stage._window_ids([1.0, 2.0]) == ("P1", "P2", "P3")  # own frame first, larger face first
    assert stage._window_ids([5.0]) == ()
    assert digest != VLMCaptionStage(None, None).prepare(Analysis(video=info, content_hash="x"))


def test_analyze_with_a_vlm_fills_captions_boundaries_and_keyframes(taught, tmp_path):
    clip = colour_clip(tmp_path / "colours.mp4")
    engines = {"boundaries": FAKE, "captions": f"vlm:{taught['qwen2_vl']}"}  # cuts by frame difference
    boundaries, vlm = build_stages(engines)
    vlm.mode = "dense"  # the plan on CUDA and model servers, whatever the device here (test_vlm_per_shot.py: a CPU's)
    analysis = analyze(clip, stages=[boundaries, vlm], cache=StageCache(tmp_path / "cache"))
    assert analysis.engines["captions"].startswith("qwen2_vl:qwen2_vl@1-")
    assert analysis.caption_plan.mode == "dense" and len(analysis.caption_plan.frames) == 9
    cuts = [b.time for b in analysis.boundaries if b.kind == "cut"]
    assert cuts == pytest.approx([3.0, 6.0], abs=0.05)
    captions = {c.time: c for c in analysis.captions}
    assert sorted(captions) == pytest.approx(list(range(9)))
    expected = ["a red frame."] * 3 + ["a blue frame."] * 3 + ["a green frame."] * 3
    assert [captions[t].text for t in sorted(captions)] == expected
    assert all(c.engine == analysis.engines["captions"] for c in analysis.captions)
    assert all(b.caption is not None for b in analysis.boundaries)
    # Keyframes: identical captions are never judged; each cut starts a shot.
    assert [k.time for k in analysis.keyframes] == pytest.approx([0.0, 3.0, 6.0])
    assert [k.reason for k in analysis.keyframes] == ["first frame", "new shot", "new shot"]

    # From the cache, the model is not even loaded.
    from videoreview.engines import registry
    engine = registry.create("captions", engines["captions"])
    engine.release()
    again = analyze(clip, stages=[boundaries, vlm], cache=StageCache(tmp_path / "cache"))
    assert again.captions == analysis.captions and engine._model is None


def test_cli_refuses_a_bad_model_folder_in_one_line(tmp_path, untrained):
    clip = colour_clip(tmp_path / "c.mp4", seconds=1)
    bad = _spoil(untrained, tmp_path, _pickle_only)
    run = subprocess.run([sys.executable, "-m", "videoreview", "analyze", str(clip), "-o", str(tmp_path / "out.json"),
                          "--engines", f"captions=vlm:{bad}", "--quiet"], capture_output=True, text=True)
    assert run.returncode != 0 and not (tmp_path / "out.json").exists()
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and bad in lines[0] and "loads only safetensors" in lines[0]


def test_frames_the_model_leaves_blank_keep_the_builtin_caption(untrained, tmp_path):
    clip = colour_clip(tmp_path / "c.mp4", seconds=2)  # 2-frame windows: replies need <Frame i> lines
    analysis = analyze(clip, {"boundaries": FAKE, "captions": f"vlm:{untrained}"},
                       cache=StageCache(tmp_path / "cache"))
    assert len(analysis.captions) == 6
    # the builtin's: what each shot looks like ("A graphic in red.")
    assert all(c.engine == "builtin@4" and c.text.endswith((" in red.", " in blue.", " in green."))
               for c in analysis.captions)
    assert analysis.engines["captions"].startswith("qwen2_vl:")
    assert np.all(np.diff([c.time for c in analysis.captions]) > 0)


def _eval(*args):
    return helpers.run("eval", "captions", *args)  # in this process: the same parser, code and exit status


def test_eval_captions_with_the_builtin_and_a_vlm_judge(taught, tmp_path):
    from videoreview.media import probe
    from videoreview.records import Analysis, FrameCaption

    clip = colour_clip(tmp_path / "c.mp4", seconds=1)  # red, blue, green: one sampled frame each
    texts = ["a red frame.", "a blue frame.", "a blue frame."]  # the third is wrong
    pred = tmp_path / "pred.json"
    Analysis(video=probe(clip), captions=tuple(FrameCaption(float(t), 25 * t, text) for t, text in enumerate(texts))
             ).save(pred)
    truth = tmp_path / "truth.json"
    truth.write_text(json.dumps({"progression": [{"first": 0, "second": 1, "label": True},
                                                 {"first": 1, "second": 2, "label": True}],
                                 "matching": [[0, 1, 2]], "distinct": [True, True]}))
    run = _eval(pred, truth, "--json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["diversity"]["identical"] == 1 and report["diversity"]["pairs"] == 2
    assert report["progression"]["balanced_accuracy"] == 0.5  # identical captions hide a real change
    assert report["matching"].startswith("skipped")

    run = _eval(pred, truth, "--json", "--judge", f"vlm:{taught['qwen2_vl']}")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["judge"] == "qwen2_vl:qwen2_vl" and report["progression"]["n"] == 2
    assert report["matching"]["n_sequences"] == 1 and report["matching"]["n_frames"] == 3
    # the blue caption cannot be matched to both blue and green frames
    assert report["matching"]["sequence_accuracy"] == 0.0

    text = _eval(pred, truth).stdout
    assert "balanced accuracy 0.500" in text and "identical captions on distinct adjacent frames: 1/2" in text


@pytest.mark.parametrize("content, message", [
    (None, "file not found"), ("{", "not valid JSON"), ('{"other": 1}', "expected an object"),
    ('{"progression": [{"first": 0}]}', "malformed caption labels"),
])
def test_eval_captions_bad_truth_is_one_line(tmp_path, content, message):
    from videoreview.media import probe
    from videoreview.records import Analysis, FrameCaption

    clip = colour_clip(tmp_path / "c.mp4", seconds=1)
    pred = tmp_path / "pred.json"
    Analysis(video=probe(clip), captions=(FrameCaption(0.0, 0, "x"),)).save(pred)
    truth = tmp_path / "truth.json"
    if content is not None:
        truth.write_text(content)
    run = _eval(pred, truth)
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 1 and len(lines) == 1 and str(truth) in lines[0] and message in lines[0]
