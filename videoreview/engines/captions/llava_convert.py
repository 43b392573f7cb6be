"""`videoreview models convert-llava-onevision SRC DST`: a checkpoint in the LLaVA-NeXT
layout (what LLaVA-NeXT's training code saves, and so ProgressCaptioner's released
checkpoint) into the Hugging Face layout the captions engine loads.

The LLaVA-NeXT layout is a Qwen2 language model's config.json with ``mm_*`` entries, a
Qwen2 tokenizer, and safetensors weights named ``model.*`` (the language model),
``model.vision_tower.vision_tower.vision_model.*`` (SigLIP, its last layer already
removed), ``model.mm_projector.{0,2}.*`` and ``model.image_newline``. The vision tower's
sizes are not in that config, so they are read off the weights' shapes; its attention
heads come from the tower's name (VISION_HEAD_DIM). The mapping follows transformers'
own convert_llava_onevision_weights_to_hf.py, written for the key layout transformers
saves today. Weights are renamed shard by shard (never the whole model in memory) and
their dtype is kept. Pickled weights are refused, like everywhere else.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path

from ...errors import ModelError

# The vision towers LLaVA-OneVision is trained with, and their attention head size.
VISION_HEAD_DIM = {"google/siglip-so400m-patch14-384": 72}
# LLaVA-NeXT weight names -> Hugging Face ones, first match wins.
RENAMES = (
    ("model.vision_tower.vision_tower.vision_model.", "vision_tower."),
    ("model.mm_projector.0.", "multi_modal_projector.linear_1."),
    ("model.mm_projector.2.", "multi_modal_projector.linear_2."),
    ("model.image_newline", "image_newline"),
    ("model.embed_tokens.", "language_model.model.embed_tokens."),
    ("model.layers.", "language_model.model.layers."),
    ("model.norm.", "language_model.model.norm."),
    ("lm_head.", "language_model.lm_head."),
)
TEXT_KEYS = ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
             "vocab_size", "max_position_embeddings", "rope_theta", "rms_norm_eps", "hidden_act",
             "tie_word_embeddings", "sliding_window", "use_sliding_window", "max_window_layers",
             "bos_token_id", "eos_token_id")
# Qwen's chat format with LLaVA-OneVision's image placeholder (as in the llava-hf releases).
CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for content in message['content'] %}{% if content['type'] == 'image' %}<image>\n"
    "{% elif content['type'] == 'text' %}{{ content['text'] }}{% endif %}{% endfor %}{% endif %}"
    "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def rename(key: str) -> str | None:
    for old, new in RENAMES:
        if key.startswith(old):
            return new + key[len(old):]
    return None


def pinpoints(value, side: int) -> list[list[int]]:
    """image_grid_pinpoints as LLaVA-NeXT writes them: a list of [h, w], or "(1x1),...,(6x6)"
    meaning every grid from the first to the last, in tiles of ``side``."""
    if isinstance(value, list):
        return [[int(h), int(w)] for h, w in value]
    grids = re.findall(r"\((\d+)x(\d+)\)", str(value))
    if not grids:
        raise ValueError(f"image_grid_pinpoints {value!r} is not understood")
    (h0, w0), (h1, w1) = (tuple(map(int, g)) for g in (grids[0], grids[-1]))
    return [[i * side, j * side] for i in range(h0, h1 + 1) for j in range(w0, w1 + 1)]


def convert(src: Path, dst: Path) -> Path:
    """Convert ``src`` into a new folder ``dst``; ModelError naming the folder and the
    problem otherwise (``dst`` is then not created)."""
    from safetensors import safe_open

    config = _source_config(src)
    if dst.exists():
        raise ModelError(dst, "already exists (give a new folder)")
    shards = sorted(src.glob("*.safetensors"))
    if not shards:  # (pickle-only folders were refused by safe_config)
        raise ModelError(src, "has no safetensors weights")
    shapes = {}
    for shard in shards:
        with safe_open(str(shard), "pt") as weights:
            for key in weights.keys():
                if rename(key) is None:
                    raise ModelError(shard, f"has a weight this conversion does not know: {key}")
                shapes[key] = tuple(weights.get_slice(key).get_shape())
    vision = _vision_config(src, config, shapes)
    dst.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dst.name}.", dir=dst.parent))
    try:
        image_id, video_id, rows = _tokenizer_and_processor(src, staging, config, vision)
        _weights(shards, staging, rows)
        _target_config(config, vision, image_id, video_id, rows).save_pretrained(staging)
        os.replace(staging, dst)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return dst


def _source_config(src: Path) -> dict:
    from ...models.folders import safe_config

    if not src.is_dir():
        raise ModelError(src, "not a folder")
    config = safe_config(src)
    if "mm_vision_tower" not in config or "mm_projector_type" not in config:
        raise ModelError(src, "is not a LLaVA-NeXT checkpoint (its config.json has no mm_vision_tower / "
                              "mm_projector_type)")
    if config["mm_projector_type"] != "mlp2x_gelu":
        raise ModelError(src, f"mm_projector_type {config['mm_projector_type']!r} is not LLaVA-OneVision's "
                              "(mlp2x_gelu)")
    if config["mm_vision_tower"] not in VISION_HEAD_DIM:
        raise ModelError(src, f"vision tower {config['mm_vision_tower']!r} is not one this conversion knows "
                              f"({', '.join(VISION_HEAD_DIM)})")
    missing = [k for k in TEXT_KEYS[:6] if k not in config]
    if missing:
        raise ModelError(src, f"config.json lacks {', '.join(missing)}")
    return config


def _vision_config(src: Path, config: dict, shapes: dict) -> dict:
    prefix = "model.vision_tower.vision_tower.vision_model."
    try:
        hidden, _, patch, _ = shapes[prefix + "embeddings.patch_embedding.weight"]
        positions = shapes[prefix + "embeddings.position_embedding.weight"][0]
        intermediate = shapes[prefix + "encoder.layers.0.mlp.fc1.weight"][0]
    except KeyError as exc:
        raise ModelError(src, f"has no vision tower weight {exc.args[0]}") from None
    layers = len({k.split(".")[6] for k in shapes if k.startswith(prefix + "encoder.layers.")})
    side = round(positions ** 0.5) * patch
    head_dim = VISION_HEAD_DIM[config["mm_vision_tower"]]
    if hidden % head_dim:
        raise ModelError(src, f"vision width {hidden} is not a multiple of {config['mm_vision_tower']}'s head size "
                              f"{head_dim}")
    return dict(model_type="siglip_vision_model", hidden_size=hidden, intermediate_size=intermediate,
                num_hidden_layers=layers, num_attention_heads=hidden // head_dim, image_size=side, patch_size=patch,
                vision_use_head=any(".head." in k for k in shapes), hidden_act="gelu_pytorch_tanh",
                layer_norm_eps=1e-6)


def _tokenizer_and_processor(src: Path, out: Path, config: dict, vision: dict) -> tuple[int, int, int]:
    """The tokenizer with <image> and <video> added (LLaVA-NeXT marks images with -200 in
    the ids instead) and the processor; (image id, video id, embedding rows needed)."""
    import transformers
    from transformers.models.llava_onevision.image_processing_pil_llava_onevision import LlavaOnevisionImageProcessorPil

    from .vlm import _image_only

    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(src, trust_remote_code=False)
    except (OSError, ValueError, KeyError) as exc:
        raise ModelError(src, f"its tokenizer cannot be loaded ({type(exc).__name__}: {exc})") from None
    tokenizer.add_tokens([transformers.AddedToken(t, special=True, normalized=False) for t in ("<image>", "<video>")],
                         special_tokens=True)
    side = vision["image_size"]
    try:
        grid = pinpoints(config.get("image_grid_pinpoints", [[side, side]]), side)
    except ValueError as exc:
        raise ModelError(src, str(exc)) from None
    images = LlavaOnevisionImageProcessorPil(size={"height": side, "width": side}, image_grid_pinpoints=grid,
                                             image_mean=[0.5] * 3, image_std=[0.5] * 3)
    processor = _image_only("LlavaOnevisionProcessor")(
        image_processor=images, tokenizer=tokenizer, chat_template=CHAT_TEMPLATE,
        num_image_tokens=(side // vision["patch_size"]) ** 2, vision_feature_select_strategy="full",
        vision_aspect_ratio=config.get("image_aspect_ratio", "anyres_max_9"))
    processor.save_pretrained(out)
    image_id, video_id = tokenizer.convert_tokens_to_ids(["<image>", "<video>"])
    return image_id, video_id, max(int(config["vocab_size"]), video_id + 1)


def _weights(shards: list[Path], out: Path, rows: int) -> None:
    """Each shard renamed into a shard of the same name; the embedding (and an untied
    output layer) grown to ``rows`` where the added tokens need it, new rows at the mean."""
    import torch
    from safetensors import safe_open
    from safetensors.torch import save_file

    index = {}
    for shard in shards:
        tensors = {}
        with safe_open(str(shard), "pt") as weights:
            for key in weights.keys():
                tensor = weights.get_tensor(key)
                if key in ("model.embed_tokens.weight", "lm_head.weight") and tensor.shape[0] < rows:
                    extra = tensor.float().mean(0, keepdim=True).expand(rows - tensor.shape[0], -1)
                    tensor = torch.cat([tensor, extra.to(tensor.dtype)])
                tensors[rename(key)] = tensor.contiguous()
        save_file(tensors, str(out / shard.name), metadata={"format": "pt"})
        index.update({key: shard.name for key in tensors})
    if len(shards) > 1:
        (out / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": index}, indent=1))


def _target_config(config: dict, vision: dict, image_id: int, video_id: int, rows: int):
    import transformers

    text = {k: config[k] for k in TEXT_KEYS if k in config}
    text.update(model_type="qwen2", vocab_size=rows)
    side = vision["image_size"]
    target = transformers.LlavaOnevisionConfig(
        text_config=text, vision_config=vision, image_token_index=image_id, video_token_index=video_id,
        vision_feature_layer=-1, vision_feature_select_strategy="full",
        vision_aspect_ratio=config.get("image_aspect_ratio", "anyres_max_9"),
        image_grid_pinpoints=pinpoints(config.get("image_grid_pinpoints", [[side, side]]), side),
        tie_word_embeddings=bool(config.get("tie_word_embeddings", False)))
    target.dtype = config.get("torch_dtype", "bfloat16")
    return target
