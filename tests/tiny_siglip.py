"""A tiny SigLIP model folder in Hugging Face layout, built here (random weights, a
sentencepiece tokenizer trained on a few sentences): the real loader, tokenizer and
export run on it."""

from __future__ import annotations

import io
from pathlib import Path

SENTENCES = ["a red frame", "a blue frame", "a green frame", "a man opens a door", "two people talk in a kitchen",
             "a dog runs on the beach", "scenes with no people", "the camera pans over a city at night"]
VOCAB = 64


def build(folder: str | Path, seed: int = 0) -> Path:
    import sentencepiece
    import torch
    import transformers

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(sentence_iterator=iter(SENTENCES * 20), model_writer=model,
                                             vocab_size=VOCAB, model_type="unigram", pad_id=0, eos_id=1, unk_id=2,
                                             bos_id=-1, hard_vocab_limit=False, minloglevel=2)
    (folder / "spiece.model").write_bytes(model.getvalue())
    tokenizer = transformers.SiglipTokenizer(str(folder / "spiece.model"), model_max_length=16)
    tokenizer.save_pretrained(folder)
    transformers.SiglipImageProcessor(size={"height": 32, "width": 32}).save_pretrained(folder)
    config = transformers.SiglipConfig(
        text_config=dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, max_position_embeddings=16),
        vision_config=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                           image_size=32, patch_size=8))
    torch.manual_seed(seed)
    transformers.SiglipModel(config).save_pretrained(folder)
    return folder


def teach(folder: str | Path, steps: int = 150) -> Path:
    """Fit the tiny model to match solid red / blue / green frames with "a red frame", ...
    (SigLIP's own sigmoid loss), so that frame search has something right to find."""
    import numpy as np
    import torch
    import transformers

    from tiny_vlm import COLOURS, colour_frame
    from videoreview.engines.embeddings.image_text import ImageTextEncoder

    folder = Path(folder)
    names = list(COLOURS)
    model = transformers.SiglipModel.from_pretrained(folder)
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    ids = tokenizer([f"a {n} frame" for n in names], padding="max_length", max_length=16, return_tensors="pt")
    encoder = ImageTextEncoder.__new__(ImageTextEncoder)  # only its preprocessing, no export
    encoder.size, encoder.scale = 32, 1 / 255
    encoder.mean = encoder.std = np.full((1, 3, 1, 1), 0.5, np.float32)
    pixels = torch.from_numpy(encoder.pixels([colour_frame(n) for n in names]))
    optimiser = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    for _ in range(steps):
        loss = model(input_ids=ids["input_ids"], pixel_values=pixels, return_loss=True).loss
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    model.eval().save_pretrained(folder)
    return folder
