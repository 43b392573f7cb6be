"""The image-text engine (SigLIP, SigLIP 2 NaFlex) on tiny models built here: the ONNX
export run by ONNX Runtime gives the torch model's embeddings, the session's real
providers are what count, and folders that are not safe image-text models are refused."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

import tiny_siglip
from videoreview.engines.embeddings.image_text import ImageTextEncoder, TorchImageText
from videoreview.errors import ModelError

TEXTS = ["a red frame", "a man opens a door", "", "ünïcödé and a very long query " * 8]


@pytest.fixture(scope="module", params=["sentencepiece", "gemma"])
def folder(tmp_path_factory, request):
    """SigLIP, and SigLIP 2 at a fixed resolution (SigLIP's model with a Gemma tokenizer)."""
    return tiny_siglip.build(tmp_path_factory.mktemp("siglip") / "tiny siglip", gemma=request.param == "gemma")


@pytest.fixture(scope="module")
def naflex_folder(tmp_path_factory):
    return tiny_siglip.build_naflex(tmp_path_factory.mktemp("siglip2") / "tiny siglip2")


def frames(count: int) -> list[np.ndarray]:
    rng = np.random.default_rng(1)
    return [rng.integers(0, 256, (90, 160, 3), dtype=np.uint8) for _ in range(count)]


def test_onnx_embeddings_match_torch(folder, home):
    encoder = ImageTextEncoder(folder)
    assert encoder.sessions["images"].get_providers() == ["CPUExecutionProvider"] and encoder.device == "cpu"
    assert encoder.device_note is None
    images = encoder.embed_images(frames(37))  # more than one ONNX batch
    texts = encoder.embed_texts(TEXTS)
    reference = TorchImageText(folder)
    expected_images = reference.images(encoder.pixels(frames(37)))
    expected_texts = reference.texts(encoder.token_ids(TEXTS))
    assert images.shape == (37, 32) and texts.shape == (4, 32)
    assert np.abs(images - expected_images).max() < 1e-5
    assert np.abs(texts - expected_texts).max() < 1e-5
    assert np.allclose(np.linalg.norm(images, axis=1), 1, atol=1e-5)
    # Exported once: a second encoder of the same folder reuses the export.
    exported = home / "onnx" / encoder.version / "images.onnx"
    before = exported.stat().st_mtime_ns
    assert ImageTextEncoder(folder).version == encoder.version and exported.stat().st_mtime_ns == before


def test_naflex_embeddings_match_the_model_s_own_padded_path(naflex_folder, home):
    """SigLIP 2 NaFlex: each frame keeps its aspect ratio. Our export takes unpadded patches
    and positions resized outside the graph; transformers' processor and model pad to
    max_num_patches with a mask and resize inside: the embeddings must agree."""
    import torch
    import transformers

    encoder = ImageTextEncoder(naflex_folder)
    assert encoder.name.startswith("siglip2:") and encoder.naflex
    assert encoder.input_size(1920, 1080) == (40, 24) and encoder.input_size(1080, 1920) == (24, 40)
    rng = np.random.default_rng(2)
    # Frames at their grid's size (as decoded), one size past a batch, the others between.
    shapes = [(24, 40)] * 35 + [(40, 24), (32, 32)]
    rng.shuffle(shapes)
    images = [rng.integers(0, 256, (*shape, 3), dtype=np.uint8) for shape in shapes]
    ours = encoder.embed_images(images)

    model = transformers.Siglip2Model.from_pretrained(naflex_folder).eval()
    inputs = transformers.AutoImageProcessor.from_pretrained(naflex_folder)(images=images, return_tensors="pt")
    assert sorted({tuple(s) for s in inputs["spatial_shapes"].tolist()}) == [(3, 5), (4, 4), (5, 3)]
    with torch.no_grad():
        expected = model.get_image_features(**inputs).pooler_output.numpy()
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert ours.shape == (37, 32) and np.abs(ours - expected).max() < 1e-5

    tokens = transformers.AutoTokenizer.from_pretrained(naflex_folder)(
        [t.lower() for t in TEXTS], padding="max_length", truncation=True, max_length=24, return_tensors="pt")
    with torch.no_grad():
        expected_texts = model.get_text_features(input_ids=tokens["input_ids"]).pooler_output.numpy()
    expected_texts /= np.linalg.norm(expected_texts, axis=1, keepdims=True)
    assert np.abs(encoder.embed_texts(TEXTS) - expected_texts).max() < 1e-5
    # SigLIP 2 was trained on lower-cased text, and its Gemma tokenizer keeps case: we lower it.
    assert len(set(encoder.tokenizer(["A Red FRAME", "a red frame"])["input_ids"][0])) > 1
    assert np.array_equal(*encoder.embed_texts(["A Red FRAME", "a red frame"]))
    assert not np.allclose(*encoder.embed_texts(["a red frame", "a blue frame"]))


def test_cuda_asked_for_where_onnxruntime_has_none_runs_on_the_cpu(folder, home):
    import onnxruntime

    if "CUDAExecutionProvider" in onnxruntime.get_available_providers():
        pytest.skip("this machine has onnxruntime's CUDA provider")
    encoder = ImageTextEncoder(folder, device="cuda")
    assert encoder.sessions["images"].get_providers() == ["CPUExecutionProvider"] and encoder.device == "cpu"
    assert "has no CUDA provider" in encoder.device_note and "scripts/setup --gpu" in encoder.device_note


@pytest.mark.parametrize("spoil, problem", [
    (lambda f: (f / "model.safetensors").rename(f / "pytorch_model.bin"), "loads only safetensors"),
    (lambda f: _config(f, auto_map={"AutoModel": "x.Model"}), "needs its own code"),
    (lambda f: _config(f, model_type="llava_onevision"), "is not an image-text model"),
    (lambda f: (f / "preprocessor_config.json").unlink(), "no preprocessor_config.json"),
])
def test_unsafe_or_wrong_folders_are_refused(folder, tmp_path, home, spoil, problem):
    copy = shutil.copytree(folder, tmp_path / "copy")
    spoil(copy)
    with pytest.raises(ModelError, match=problem) as refused:
        ImageTextEncoder(copy)
    assert str(copy) in str(refused.value)


def _config(folder, **changes):
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, **changes}))
