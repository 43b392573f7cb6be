"""Image-text embeddings (SigLIP) for frame search: a frame and a query land in one space,
so "a man opens a door" finds the frames that show it even where no caption says so
(CaReBench's text-to-video retrieval, with frames as the units).

The model folder is loaded with transformers (safetensors only, no remote code: see
models/folders.py), its two towers are exported once to ONNX, and ONNX Runtime runs
them: on CUDA when onnxruntime-gpu is installed and the session really got the CUDA
provider (a missing CUDA library makes onnxruntime fall back silently, so the session's
own providers are checked, not the list of available ones), else on the CPU. The export
lies in ``$VIDEOREVIEW_HOME/onnx/<model fingerprint>/`` and is reused.

Frames are decoded straight to the model's square input size (SigLIP resizes without
cropping), then rescaled and normalised as its preprocessor_config.json says.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Sequence

import numpy as np

from ...errors import ModelError
from ...models.folders import resolve_model, safe_config

FAMILIES = ("siglip",)
BATCH = 32  # frames per ONNX run: enough to keep a GPU busy, small enough for a laptop's CPU memory


def check_image_text_dir(folder: Path) -> dict:
    """The folder's config, or ModelError saying why it is not an image-text model we load."""
    if not folder.is_dir():
        raise ModelError(folder, "not a folder (a model is a folder in Hugging Face layout)")
    config = safe_config(folder)
    if config.get("model_type") not in FAMILIES:
        raise ModelError(folder, f"model_type {config.get('model_type')!r} is not an image-text model "
                                 f"(supported: {', '.join(FAMILIES)})")
    if not (folder / "preprocessor_config.json").is_file():
        raise ModelError(folder, "no preprocessor_config.json (the image size and normalisation)")
    return config


class TorchImageText:
    """The model in torch: the reference the ONNX export is checked against, and what
    the export is made from."""

    def __init__(self, folder: Path) -> None:
        import torch
        import transformers

        self.torch = torch
        try:
            self.model = transformers.SiglipModel.from_pretrained(folder, use_safetensors=True,
                                                                  trust_remote_code=False).eval()
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ModelError(folder, f"cannot be loaded ({type(exc).__name__}: {exc})") from None

    def image_tower(self):
        return _tower(self.model, "images")

    def text_tower(self):
        return _tower(self.model, "texts")

    def images(self, pixels: np.ndarray) -> np.ndarray:
        with self.torch.inference_mode():
            return _normalised(self.image_tower()(self.torch.from_numpy(pixels)).numpy())

    def texts(self, ids: np.ndarray) -> np.ndarray:
        with self.torch.inference_mode():
            return _normalised(self.text_tower()(self.torch.from_numpy(ids)).numpy())


def _tower(model, which: str):
    """One tower of the model as a module of one tensor in, the embedding out (what is exported)."""
    import torch

    class Tower(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model  # a submodule: its weights export as weights

        def forward(self, values):
            if which == "images":
                return self.model.get_image_features(pixel_values=values).pooler_output
            return self.model.get_text_features(input_ids=values).pooler_output

    return Tower().eval()


def export_onnx(folder: Path, out: Path, size: int, text_length: int) -> None:
    """Both towers of the model in ``folder`` as out/images.onnx and out/texts.onnx
    (batch size free) and its logit scale and bias (logits.json)."""
    import torch

    from ..onnx_export import torch_to_onnx

    reference = TorchImageText(folder)
    for tower, name, example in (
            (reference.image_tower(), "images", torch.zeros(2, 3, size, size)),
            (reference.text_tower(), "texts", torch.zeros(2, text_length, dtype=torch.long))):
        torch_to_onnx(tower, (example,), out / f"{name}.onnx", ["input"], ["embedding"],
                      {"input": {0: "batch"}, "embedding": {0: "batch"}})
    # SigLIP's match probability is sigmoid(cosine * exp(logit_scale) + logit_bias).
    logits = {"scale": reference.model.logit_scale.detach().exp().item(),
              "bias": reference.model.logit_bias.detach().item()}
    (out / "logits.json").write_text(json.dumps(logits))


class ImageTextEncoder:
    """A SigLIP folder (a path or a catalog name) as unit-length image and text embeddings
    through ONNX Runtime. ``device`` "cuda" asks for the CUDA provider."""

    def __init__(self, spec: str | os.PathLike, device: str | None = None) -> None:
        from transformers import AutoTokenizer

        from ..captions.vlm import fingerprint
        from ..onnx_export import CUDA, exported, session

        self.path = resolve_model(spec)
        config = check_image_text_dir(self.path)
        pre = json.loads((self.path / "preprocessor_config.json").read_text(encoding="utf-8"))
        self.size = int(config.get("vision_config", {}).get("image_size", 224))
        self.mean = np.array(pre.get("image_mean", [0.5] * 3), np.float32).reshape(1, 3, 1, 1)
        self.std = np.array(pre.get("image_std", [0.5] * 3), np.float32).reshape(1, 3, 1, 1)
        self.scale = float(pre.get("rescale_factor", 1 / 255))
        self.text_length = int(config.get("text_config", {}).get("max_position_embeddings", 64))
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(self.path, trust_remote_code=False)
        except (OSError, ValueError, ImportError) as exc:
            raise ModelError(self.path, f"its tokenizer cannot be loaded ({type(exc).__name__}: {exc})") from None
        self.name = f"siglip:{self.path.name}"
        self.version = f"1-{fingerprint(self.path)}"
        onnx = exported(self.version, lambda out: export_onnx(self.path, out, self.size, self.text_length))
        logits = json.loads((onnx / "logits.json").read_text())
        self.logit_scale, self.logit_bias = logits["scale"], logits["bias"]
        self.sessions = {name: session(onnx / f"{name}.onnx", device or "cpu") for name in ("images", "texts")}
        self.providers = self.sessions["images"].get_providers()  # what the session really got
        self.device = "cuda" if CUDA in self.providers else "cpu"

    def pixels(self, frames: Sequence[np.ndarray]) -> np.ndarray:
        """RGB uint8 frames (any size; best decoded at ``self.size`` square) as the model's input."""
        import cv2

        square = [f if f.shape[:2] == (self.size, self.size)
                  else cv2.resize(f, (self.size, self.size), interpolation=cv2.INTER_AREA) for f in frames]
        batch = np.stack(square).astype(np.float32).transpose(0, 3, 1, 2) * self.scale
        return (batch - self.mean) / self.std

    def token_ids(self, texts: Sequence[str]) -> np.ndarray:
        """SigLIP was trained on texts padded to max_length with no attention mask: so are ours."""
        encoded = self.tokenizer(list(texts), padding="max_length", truncation=True,
                                 max_length=self.text_length, return_tensors="np")
        return encoded["input_ids"].astype(np.int64)

    def embed_images(self, frames: Sequence[np.ndarray]) -> np.ndarray:
        parts = [self.sessions["images"].run(None, {"input": self.pixels(frames[i:i + BATCH])})[0]
                 for i in range(0, len(frames), BATCH)]
        return _normalised(np.concatenate(parts)) if parts else np.zeros((0, 0), np.float32)

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        return _normalised(self.sessions["texts"].run(None, {"input": self.token_ids(texts)})[0])


def _normalised(vectors: np.ndarray) -> np.ndarray:
    vectors = vectors.astype(np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
