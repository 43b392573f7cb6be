"""Image-text embeddings (SigLIP, SigLIP 2) for frame search: a frame and a query land in
one space, so "a man opens a door" finds the frames that show it even where no caption
says so (CaReBench's text-to-video retrieval, with frames as the units).

Two families: ``siglip`` (SigLIP and SigLIP 2's fixed-resolution checkpoints, which share
its architecture) takes square frames; ``siglip2`` (SigLIP 2 NaFlex) takes a frame at
its own aspect ratio as up to ``max_num_patches`` patches (see naflex.py).

The model folder is loaded with transformers (safetensors only, no remote code: see
models/folders.py), its two towers are exported once to ONNX, and ONNX Runtime runs
them: on CUDA when the CUDA provider starts here (placement.onnx_placement), else on the
CPU with ``device_note`` saying why. The export
lies in ``$VIDEOREVIEW_HOME/onnx/<model fingerprint>/`` and is reused.

Frames are decoded straight to the model's input size (SigLIP resizes without cropping),
then rescaled and normalised as its preprocessor_config.json says. Queries are lower-cased:
SigLIP 2 was trained on lower-cased text, and SigLIP's own tokenizer lower-cases.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ...errors import ModelError
from ...models.folders import resolve_model, safe_config
from . import naflex

FAMILIES = ("siglip", "siglip2")
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
        family = check_image_text_dir(folder)["model_type"]
        model_class = transformers.Siglip2Model if family == "siglip2" else transformers.SiglipModel
        try:
            self.model = model_class.from_pretrained(folder, use_safetensors=True, trust_remote_code=False).eval()
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ModelError(folder, f"cannot be loaded ({type(exc).__name__}: {exc})") from None
        self.naflex = family == "siglip2"

    def image_tower(self):
        return _naflex_tower(self.model) if self.naflex else _tower(self.model, "images")

    def text_tower(self):
        return _tower(self.model, "texts")

    def images(self, pixels: np.ndarray) -> np.ndarray:
        """Embeddings of SigLIP's square input (NaFlex is checked against transformers' own
        processor and model instead: see the tests)."""
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


def _naflex_tower(model):
    """SigLIP 2 NaFlex's image tower with the position embeddings as an input (resized
    outside, see naflex.py): (batch, patches, p*p*3) and (patches, dim) in, embeddings
    out. All patches are real (a video's frames share one grid), so no padding mask."""
    import torch

    class Tower(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.vision = model.vision_model

        def forward(self, patches, positions):
            hidden = self.vision.embeddings.patch_embedding(patches) + positions
            hidden = self.vision.encoder(inputs_embeds=hidden).last_hidden_state
            return _attention_pool(self.vision.head, self.vision.post_layernorm(hidden))

    return Tower().eval()


def _attention_pool(head, hidden):
    """The model's attention-pooling head, written out: torch's MultiheadAttention traces
    with the patch count fixed, and NaFlex's varies with the video's aspect ratio."""
    import torch.nn.functional as F

    attention, batch, dim = head.attention, hidden.shape[0], hidden.shape[-1]
    heads = attention.num_heads
    q_w, k_w, v_w = attention.in_proj_weight.chunk(3)
    q_b, k_b, v_b = attention.in_proj_bias.chunk(3)

    def split(x):  # (batch, length, dim) -> (batch, heads, length, dim / heads)
        return x.reshape(batch, -1, heads, dim // heads).transpose(1, 2)

    probe = head.probe.expand(batch, -1, -1)
    pooled = F.scaled_dot_product_attention(split(F.linear(probe, q_w, q_b)), split(F.linear(hidden, k_w, k_b)),
                                            split(F.linear(hidden, v_w, v_b)))
    pooled = attention.out_proj(pooled.transpose(1, 2).reshape(batch, 1, dim))
    pooled = pooled + head.mlp(head.layernorm(pooled))
    return pooled[:, 0]


def export_onnx(folder: Path, out: Path, size: int, text_length: int) -> None:
    """Both towers of the model in ``folder`` as out/images.onnx and out/texts.onnx
    (batch size free; NaFlex: the patch count too), its logit scale and bias
    (logits.json) and, for NaFlex, its square table of position embeddings (positions.npy)."""
    import torch

    from ..onnx_export import torch_to_onnx

    reference = TorchImageText(folder)
    if reference.naflex:
        embeddings = reference.model.vision_model.embeddings
        side = int(embeddings.num_patches ** 0.5)
        table = embeddings.position_embedding.weight.detach().reshape(side, side, -1)
        np.save(out / "positions.npy", table.numpy())
        example = (torch.zeros(2, 4, embeddings.patch_embedding.in_features),
                   torch.zeros(4, table.shape[-1]))
        torch_to_onnx(reference.image_tower(), example, out / "images.onnx", ["input", "positions"], ["embedding"],
                      {"input": {0: "batch", 1: "patches"}, "positions": {0: "patches"}, "embedding": {0: "batch"}})
    else:
        torch_to_onnx(reference.image_tower(), (torch.zeros(2, 3, size, size),), out / "images.onnx",
                      ["input"], ["embedding"], {"input": {0: "batch"}, "embedding": {0: "batch"}})
    torch_to_onnx(reference.text_tower(), (torch.zeros(2, text_length, dtype=torch.long),), out / "texts.onnx",
                  ["input"], ["embedding"], {"input": {0: "batch"}, "embedding": {0: "batch"}})
    # SigLIP's match probability is sigmoid(cosine * exp(logit_scale) + logit_bias).
    logits = {"scale": reference.model.logit_scale.detach().exp().item(),
              "bias": reference.model.logit_bias.detach().item()}
    (out / "logits.json").write_text(json.dumps(logits))


class ImageTextEncoder:
    """A SigLIP or SigLIP 2 folder (a path or a catalog name) as unit-length image and text
    embeddings through ONNX Runtime. ``device`` "cuda" asks for the CUDA provider."""

    def __init__(self, spec: str | os.PathLike, device: str | None = None) -> None:
        from transformers import AutoTokenizer

        from ..captions.vlm import fingerprint
        from ..onnx_export import exported
        from ..placement import onnx_placement

        self.path = resolve_model(spec)
        config = check_image_text_dir(self.path)
        pre = json.loads((self.path / "preprocessor_config.json").read_text(encoding="utf-8"))
        vision = config.get("vision_config", {})
        self.naflex = config["model_type"] == "siglip2"
        self.size = int(vision.get("image_size", 224))  # the square side (not NaFlex)
        self.patch = int(pre.get("patch_size", vision.get("patch_size", 16)))
        self.max_patches = int(pre.get("max_num_patches", 256))
        self.mean = np.array(pre.get("image_mean", [0.5] * 3), np.float32)
        self.std = np.array(pre.get("image_std", [0.5] * 3), np.float32)
        self.scale = float(pre.get("rescale_factor", 1 / 255))
        self.text_length = int(config.get("text_config", {}).get("max_position_embeddings", 64))
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(self.path, trust_remote_code=False)
        except (OSError, ValueError, ImportError) as exc:
            raise ModelError(self.path, f"its tokenizer cannot be loaded ({type(exc).__name__}: {exc})") from None
        self.name = f"{config['model_type']}:{self.path.name}"
        self.version = f"1-{fingerprint(self.path)}"
        onnx = exported(self.version, lambda out: export_onnx(self.path, out, self.size, self.text_length))
        logits = json.loads((onnx / "logits.json").read_text())
        self.logit_scale, self.logit_bias = logits["scale"], logits["bias"]
        self.position_table = np.load(onnx / "positions.npy") if self.naflex else None
        self._positions: dict[tuple[int, int], np.ndarray] = {}
        place = onnx_placement(device or "cpu")
        self._onnx, self.device, self.device_note = onnx, place.device, place.note
        self._sessions = self._open()  # at once: a model ONNX Runtime cannot run fails here, not mid-search

    def _open(self) -> dict:
        from ..onnx_export import session

        return {name: session(self._onnx / f"{name}.onnx", self.device) for name in ("images", "texts")}

    @property
    def sessions(self) -> dict:
        if self._sessions is None:
            self._sessions = self._open()
        return self._sessions

    def release(self) -> None:
        self._sessions = None

    def input_size(self, width: int, height: int) -> tuple[int, int]:
        """The (width, height) to decode a ``width`` x ``height`` frame at: SigLIP's square,
        or the NaFlex grid of the frame's aspect ratio in pixels."""
        if not self.naflex:
            return self.size, self.size
        rows, columns = naflex.grid_for(width, height, self.patch, self.max_patches)
        return columns * self.patch, rows * self.patch

    def pixels(self, frames: Sequence[np.ndarray]) -> np.ndarray:
        """RGB uint8 frames of one size (best decoded at ``input_size``) as the model's
        input: (N, 3, side, side) for SigLIP, (N, patches, p*p*3) for NaFlex."""
        import cv2

        width, height = self.input_size(frames[0].shape[1], frames[0].shape[0])
        sized = [f if f.shape[:2] == (height, width)
                 else cv2.resize(f, (width, height), interpolation=cv2.INTER_AREA) for f in frames]
        batch = (np.stack(sized).astype(np.float32) * self.scale - self.mean) / self.std
        return naflex.patches(batch, self.patch) if self.naflex else batch.transpose(0, 3, 1, 2)

    def positions(self, frame: np.ndarray) -> np.ndarray:
        """NaFlex: the position embeddings of the patch grid ``frame`` is cut into."""
        width, height = self.input_size(frame.shape[1], frame.shape[0])
        grid = (height // self.patch, width // self.patch)
        if grid not in self._positions:
            self._positions[grid] = naflex.resized_positions(self.position_table, *grid)
        return self._positions[grid]

    def token_ids(self, texts: Sequence[str]) -> np.ndarray:
        """SigLIP was trained on texts padded to max_length with no attention mask: so are ours."""
        encoded = self.tokenizer([text.lower() for text in texts], padding="max_length", truncation=True,
                                 max_length=self.text_length, return_tensors="np")
        return encoded["input_ids"].astype(np.int64)

    def embed_images(self, frames: Sequence[np.ndarray]) -> np.ndarray:
        """Embeddings in the order of ``frames``; frames of one size are run together."""
        if not frames:
            return np.zeros((0, 0), np.float32)
        out: list[np.ndarray | None] = [None] * len(frames)
        by_size: dict[tuple, list[int]] = {}
        for i, frame in enumerate(frames):
            by_size.setdefault(frame.shape, []).append(i)
        for indices in by_size.values():
            for start in range(0, len(indices), BATCH):
                batch = indices[start:start + BATCH]
                inputs = {"input": self.pixels([frames[i] for i in batch])}
                if self.naflex:
                    inputs["positions"] = self.positions(frames[batch[0]])
                for i, vector in zip(batch, self.sessions["images"].run(None, inputs)[0]):
                    out[i] = vector
        return _normalised(np.stack(out))

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        return _normalised(self.sessions["texts"].run(None, {"input": self.token_ids(texts)})[0])


def _normalised(vectors: np.ndarray) -> np.ndarray:
    vectors = vectors.astype(np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
