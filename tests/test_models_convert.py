"""`videoreview models convert-llava-onevision`: a tiny LLaVA-OneVision is built here in
the Hugging Face layout, written out in the LLaVA-NeXT layout (its training code's names,
config and tokenizer without image tokens, the vision tower's head removed), converted
back by the command, and must then load in the captions engine and give the original
model's logits. Checkpoints the conversion does not understand are refused in one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch

import tiny_vlm
from helpers import run
from tiny_vlm import colour_frame
from videoreview.engines.captions.llava_convert import RENAMES, pinpoints
from videoreview.engines.captions.vlm import Request, VisionLanguageModel

VISION = {"hidden_size": 144, "num_attention_heads": 2, "vision_use_head": False}  # so400m's head size, 72


def to_llava_next(hf: Path, out: Path) -> Path:
    """The Hugging Face folder ``hf`` as LLaVA-NeXT's training code would have saved it."""
    from safetensors.torch import load_file, save_file

    out.mkdir()
    weights = load_file(hf / "model.safetensors")
    inverse = [(new, old) for old, new in RENAMES]
    renamed = {}
    for key, tensor in weights.items():
        new, old = next((n, o) for n, o in inverse if key.startswith(n))
        renamed[old + key[len(new):]] = tensor
    # two shards, as big checkpoints come
    keys = sorted(renamed)
    save_file({k: renamed[k] for k in keys[::2]}, out / "model-00001-of-00002.safetensors")
    save_file({k: renamed[k] for k in keys[1::2]}, out / "model-00002-of-00002.safetensors")
    shutil.copy(hf / "tokenizer.json", out)
    tokenizer_config = json.loads((hf / "tokenizer_config.json").read_text())
    (out / "tokenizer_config.json").write_text(json.dumps({k: v for k, v in tokenizer_config.items()
                                                           if k not in ("extra_special_tokens",)}))
    config = json.loads((hf / "config.json").read_text())
    text = config["text_config"]
    next_config = {k: text[k] for k in ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
                                        "num_key_value_heads", "vocab_size", "max_position_embeddings", "rope_theta",
                                        "rms_norm_eps", "bos_token_id", "eos_token_id") if k in text}
    next_config.update(architectures=["LlavaQwenForCausalLM"], model_type="llava", tie_word_embeddings=False,
                       mm_vision_tower="google/siglip-so400m-patch14-384", mm_projector_type="mlp2x_gelu",
                       mm_hidden_size=VISION["hidden_size"], mm_vision_select_layer=-2,
                       mm_vision_select_feature="patch", image_aspect_ratio="anyres_max_9",
                       image_grid_pinpoints="(1x1),...,(1x1)", mm_patch_merge_type="spatial_unpad",
                       torch_dtype="float32")
    (out / "config.json").write_text(json.dumps(next_config))
    return out


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    root = tmp_path_factory.mktemp("convert")
    hf = tiny_vlm.build("llava_onevision", root / "hf", sizes={"vision": VISION})
    return hf, to_llava_next(hf, root / "llava-next")


def convert(src, dst):
    return run("models", "convert-llava-onevision", src, dst)


def test_a_llava_next_checkpoint_converts_to_the_same_model(checkpoints, tmp_path):
    import transformers

    hf, llava_next = checkpoints
    done = convert(llava_next, tmp_path / "converted")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"converted to {tmp_path / 'converted'}"
    model = VisionLanguageModel(tmp_path / "converted", device="cpu")  # the captions engine's loader
    original = transformers.LlavaOnevisionForConditionalGeneration.from_pretrained(hf).eval()
    frames = [colour_frame("red"), colour_frame("blue")]
    inputs = model.inputs([model.chat(2, "What happens?")], [frames])
    with torch.inference_mode():
        expected = original(**inputs).logits
        got = model.model(**inputs).logits
    assert got.shape == expected.shape and torch.allclose(got, expected, atol=1e-5)
    (reply,) = model.generate([Request(frames, "What happens?", 4)])  # it generates like any model folder
    assert isinstance(reply, str)
    converted = json.loads((tmp_path / "converted" / "config.json").read_text())
    assert converted["vision_config"]["num_attention_heads"] == 2 and not converted["vision_config"]["vision_use_head"]
    assert json.loads((tmp_path / "converted" / "model.safetensors.index.json").read_text())["weight_map"]


def test_grid_pinpoints_in_either_notation():
    assert pinpoints("(1x1),...,(2x3)", 384) == [[384, 384], [384, 768], [384, 1152], [768, 384], [768, 768],
                                                 [768, 1152]]
    assert pinpoints([[384, 768]], 384) == [[384, 768]]


@pytest.mark.parametrize("spoil, problem", [
    (lambda f: [p.unlink() for p in f.glob("*.safetensors")] and (f / "pytorch_model.bin").write_bytes(b"x"),
     "videoreview loads only safetensors"),
    (lambda f: _config(f, mm_vision_tower="openai/clip-vit-large-patch14"), "is not one this conversion knows"),
    (lambda f: _config(f, mm_vision_tower=None), "is not a LLaVA-NeXT checkpoint"),
    (lambda f: _config(f, auto_map={"AutoModel": "x.Y"}), "needs its own code"),
    (lambda f: _add_weight(f, "model.vision_resampler.weight"), "does not know: model.vision_resampler.weight"),
])
def test_checkpoints_it_does_not_understand_are_refused(checkpoints, tmp_path, spoil, problem):
    source = shutil.copytree(checkpoints[1], tmp_path / "source")
    spoil(source)
    refused = convert(source, tmp_path / "out")
    assert refused.returncode == 1 and problem in refused.stderr, refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and not (tmp_path / "out").exists()
    assert not list(tmp_path.glob(".out.*"))  # no staging folder left behind


def test_an_existing_destination_is_left_alone(checkpoints, tmp_path):
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "keep.txt").write_text("mine")
    refused = convert(checkpoints[1], tmp_path / "taken")
    assert refused.returncode == 1 and "already exists" in refused.stderr
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["keep.txt"]


def _config(folder, **changes):
    config = json.loads((folder / "config.json").read_text())
    config.update(changes)
    (folder / "config.json").write_text(json.dumps({k: v for k, v in config.items() if v is not None}))


def _add_weight(folder, name):
    from safetensors.torch import load_file, save_file

    shard = folder / "model-00001-of-00002.safetensors"
    weights = load_file(shard)
    save_file({**weights, name: torch.zeros(2)}, shard)
