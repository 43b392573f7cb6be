"""Tiny SigLIP and SigLIP 2 NaFlex model folders in Hugging Face layout, built here
(random weights, a sentencepiece tokenizer trained on a few sentences): the real loader,
tokenizer and export run on them."""

from __future__ import annotations

import io
import json
import string
from pathlib import Path

SENTENCES = ["a red frame", "a blue frame", "a green frame", "a man opens a door", "two people talk in a kitchen",
             "a dog runs on the beach", "scenes with no people", "the camera pans over a city at night"]
VOCAB = 64
TEXT = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
            num_attention_heads=2, max_position_embeddings=16)
VISION = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2, patch_size=8)


def build(folder: str | Path, seed: int = 0, gemma: bool = False) -> Path:
    """SigLIP; ``gemma``: with SigLIP 2's kind of tokenizer, as its fixed-resolution
    checkpoints are (they keep SigLIP's architecture and model_type)."""
    import torch
    import transformers

    folder = _with_gemma_tokenizer(folder) if gemma else _with_tokenizer(folder)
    transformers.SiglipImageProcessor(size={"height": 32, "width": 32}).save_pretrained(folder)
    config = transformers.SiglipConfig(text_config=TEXT, vision_config=dict(VISION, image_size=32))
    torch.manual_seed(seed)
    transformers.SiglipModel(config).save_pretrained(folder)
    return folder


def build_naflex(folder: str | Path, seed: int = 0) -> Path:
    """SigLIP 2 NaFlex: a 4x4 table of positions resized to each frame's grid of at most
    16 patches of 8 px (the real one: 16x16 positions, 256 patches of 16 px)."""
    import torch
    import transformers

    folder = _with_gemma_tokenizer(folder)
    pre = {"image_processor_type": "Siglip2ImageProcessor", "patch_size": 8, "max_num_patches": 16,
           "image_mean": [0.5] * 3, "image_std": [0.5] * 3, "rescale_factor": 1 / 255, "resample": 2,
           "do_resize": True, "do_rescale": True, "do_normalize": True}
    (folder / "preprocessor_config.json").write_text(json.dumps(pre))
    text = dict(TEXT, vocab_size=len(CHARACTERS) + 5, max_position_embeddings=24)  # a letter a token
    config = transformers.Siglip2Config(text_config=text, vision_config=dict(VISION, num_patches=16))
    torch.manual_seed(seed)
    transformers.Siglip2Model(config).save_pretrained(folder)
    return folder


CHARACTERS = "▁" + string.ascii_lowercase + string.ascii_uppercase


def _with_gemma_tokenizer(folder: str | Path) -> Path:
    """A tokenizer like SigLIP 2's (a Gemma tokenizer.json that keeps case, padding on the
    left), with one token per letter."""
    import transformers

    folder = Path(folder)
    specials = ["<pad>", "<eos>", "<bos>", "<unk>", "<mask>"]
    vocab = {token: i for i, token in enumerate(specials + list(CHARACTERS))}
    transformers.Siglip2Tokenizer(vocab=vocab, merges=[]).save_pretrained(folder)
    tokenizer = json.loads((folder / "tokenizer.json").read_text())
    tokenizer["normalizer"] = tokenizer["normalizer"]["normalizers"][1]  # drop Lowercase: Gemma's keeps case
    (folder / "tokenizer.json").write_text(json.dumps(tokenizer))
    settings = json.loads((folder / "tokenizer_config.json").read_text())
    (folder / "tokenizer_config.json").write_text(json.dumps({**settings, "tokenizer_class": "GemmaTokenizer"}))
    return folder


def _with_tokenizer(folder: str | Path) -> Path:
    import sentencepiece
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
    return folder


def teach(folder: str | Path, steps: int = 150) -> Path:
    """Fit the tiny model to match solid red / blue / green frames with "a red frame", ...
    (SigLIP's own sigmoid loss), so that frame search has something right to find. The
    frames are prepared by transformers' own image processor, SigLIP's or NaFlex's."""
    import torch
    import transformers

    from tiny_vlm import COLOURS, colour_frame

    folder = Path(folder)
    names = list(COLOURS)
    naflex = json.loads((folder / "config.json").read_text())["model_type"] == "siglip2"
    model = (transformers.Siglip2Model if naflex else transformers.SiglipModel).from_pretrained(folder)
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    length = model.config.text_config.max_position_embeddings
    ids = tokenizer([f"a {n} frame" for n in names], padding="max_length", max_length=length, return_tensors="pt")
    images = transformers.AutoImageProcessor.from_pretrained(folder)(
        images=[colour_frame(n) for n in names], return_tensors="pt")
    optimiser = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    for _ in range(steps):
        loss = model(input_ids=ids["input_ids"], **images, return_loss=True).loss
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    model.eval().save_pretrained(folder)
    return folder
