"""Tiny LLaVA-OneVision, Qwen2-VL, Qwen3-VL, Qwen3.5, SmolVLM2 and Gemma 4 models, built from configs into a
folder in Hugging Face layout (random weights, a byte-level BPE tokenizer trained here on a few sentences,
a chat template like the real models'), so tests run the real loader, processors,
batching and generation with no download. Also used by benchmarks/bench_vlm.py on CPUs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<image>", "<video>",
           "<|vision_start|>", "<|vision_end|>", "<|image_pad|>", "<|video_pad|>"]
SMOLVLM_SPECIAL = ["<fake_token_around_image>", "<global-img>"]  # around each image's tokens
# Gemma 4's processor finds its image token, the tokens around an image's soft tokens and
# the audio ones (which it checks for even without audio) as named tokens of the tokenizer.
GEMMA4_NAMED = {"image_token": "<|image|>", "boi_token": "<|image>", "eoi_token": "<image|>",
                "audio_token": "<|audio|>", "boa_token": "<|audio>", "eoa_token": "<audio|>"}
CORPUS = [
    "<Frame 1>: a person walks to the door and opens it.",
    "<Frame 2>: the person steps through the open door.",
    "These are 2 frames extracted from a video sequence depicting action. Provide a detailed description.",
    "Subject: the man Before: standing still After: running to the left",
    "A. Action Progression B. No Action Progression C. Uncertain",
]
# Qwen-style chat template; IMAGE is replaced by each family's image placeholder.
CHAT = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{% if m['content'] is string %}{{ m['content'] }}"
        "{% else %}{% for c in m['content'] %}{% if c['type'] == 'image' %}IMAGE{% elif c['type'] == 'text' %}"
        "{{ c['text'] }}{% endif %}{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
        "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
TEXT = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, max_position_embeddings=4096)


def tokenizer(extra=(), named=None):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    named = named or {}
    tok.train_from_iterator(CORPUS, trainers.BpeTrainer(vocab_size=400, special_tokens=SPECIAL + list(extra)
                                                        + list(named.values()),
                                                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   **({"extra_special_tokens": named} if named else {}))


def _qwen3_vision(text: dict, ids: dict, sizes: dict, **vision) -> dict:
    """The vision tower and special tokens of a tiny Qwen3-VL or Qwen3.5 (the same tower)."""
    tower = dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=4, patch_size=16, spatial_merge_size=2,
                 temporal_patch_size=2, out_hidden_size=text["hidden_size"], num_position_embeddings=64, **vision)
    return dict(vision_config=dict(tower, **sizes.get("vision", {})),
                image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
                vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"],
                **({"tie_word_embeddings": text["tie_word_embeddings"]} if "tie_word_embeddings" in text else {}))


def _qwen3_images(sizes: dict):
    """(image processor, processor extras, chat template) of Qwen3-VL and Qwen3.5: Qwen2-VL's
    preprocessor with 16-px patches and a mean / std of 0.5, as the real ones have."""
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    images = Qwen2VLImageProcessorPil(patch_size=16, merge_size=2, temporal_patch_size=2,
                                      image_mean=[0.5] * 3, image_std=[0.5] * 3,
                                      min_pixels=64 * 64, max_pixels=sizes.get("max_pixels", 128 * 128))
    return images, {}, CHAT.replace("IMAGE", "<|vision_start|><|image_pad|><|vision_end|>")


def build(family: str, folder: str | Path, seed: int = 0, sizes: dict | None = None) -> Path:
    """Write a tiny model of ``family`` (a key of vlm.FAMILIES) into ``folder``.
    ``sizes`` overrides the tiny architecture ("text", "vision": config entries; "image":
    LLaVA-OneVision's and SmolVLM2's input side; "scale": SmolVLM2's pixel shuffle; "max_pixels": Qwen2-VL's,
    Qwen3-VL's and Qwen3.5's; "max_soft_tokens": Gemma 4's): the benchmarks build the
    published architectures this way (random weights, this tokenizer)."""
    import transformers

    from videoreview.engines.captions.vlm import FAMILIES, _image_only

    sizes = sizes or {}
    folder = Path(folder)
    tok = tokenizer(SMOLVLM_SPECIAL if family == "smolvlm" else ["<|video|>"] if family == "gemma4" else (),
                    GEMMA4_NAMED if family == "gemma4" else None)
    ids = {t: tok.convert_tokens_to_ids(t) for t in SPECIAL}
    text = dict(TEXT, vocab_size=len(tok), bos_token_id=ids["<|endoftext|>"], eos_token_id=ids["<|im_end|>"],
                pad_token_id=ids["<|endoftext|>"])
    text.update(sizes.get("text", {}))
    if family == "qwen2_vl":
        from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

        config = transformers.Qwen2VLConfig(
            text_config=dict({"rope_scaling": {"type": "mrope", "mrope_section": [4, 2, 2]}}, **text),
            vision_config=dict(dict(depth=2, embed_dim=32, hidden_size=text["hidden_size"], num_heads=4, mlp_ratio=2,
                                    patch_size=14, spatial_merge_size=2, temporal_patch_size=2, in_chans=3),
                               **sizes.get("vision", {})),
            image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
            vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"])
        images = Qwen2VLImageProcessorPil(min_pixels=56 * 56, max_pixels=sizes.get("max_pixels", 112 * 112))
        extra = {}
        chat = CHAT.replace("IMAGE", "<|vision_start|><|image_pad|><|vision_end|>")
    elif family == "llava_onevision":
        from transformers.models.llava_onevision.image_processing_pil_llava_onevision import (
            LlavaOnevisionImageProcessorPil,
        )

        side = sizes.get("image", 28)
        vision = dict(model_type="siglip_vision_model", hidden_size=32, intermediate_size=64,
                      num_hidden_layers=2, num_attention_heads=4, image_size=side, patch_size=14)
        vision.update(sizes.get("vision", {}))
        config = transformers.LlavaOnevisionConfig(
            text_config=dict(text, model_type="qwen2"), vision_config=vision,
            image_token_index=ids["<image>"], video_token_index=ids["<video>"], vision_feature_layer=-1,
            vision_feature_select_strategy="full", image_grid_pinpoints=[[side, side]])
        images = LlavaOnevisionImageProcessorPil(size={"height": side, "width": side},
                                                 image_grid_pinpoints=[[side, side]])
        extra = dict(num_image_tokens=(side // vision["patch_size"]) ** 2, vision_feature_select_strategy="full")
        chat = CHAT.replace("IMAGE", "<image>")
    elif family == "qwen3_vl":
        head_dim = text.get("head_dim", text["hidden_size"] // text["num_attention_heads"])  # mrope: half of it
        # 128: the published models' head size and their sections; else a quarter and two eighths
        section = [24, 20, 20] if head_dim == 128 else [head_dim // 4, head_dim // 8, head_dim // 8]
        rope = {"rope_type": "default", "rope_theta": 5e6, "mrope_interleaved": True, "mrope_section": section}
        config = transformers.Qwen3VLConfig(text_config=dict(text, head_dim=head_dim, rope_parameters=rope),
                                            **_qwen3_vision(text, ids, sizes, deepstack_visual_indexes=[0]))
        images, extra, chat = _qwen3_images(sizes)
    elif family == "qwen3_5":
        # Gated DeltaNet (linear attention) layers, every fourth and the last one full
        # attention (the published 3:1 layout; here one of each). A quarter of each head is
        # rotated, its frequencies in interleaved mrope sections (the published ones at 256).
        head_dim = text.get("head_dim", 32)
        freqs = head_dim // 8
        section = [11, 11, 10] if head_dim == 256 else [freqs - 2 * (freqs // 4), freqs // 4, freqs // 4]
        rope = {"rope_type": "default", "rope_theta": 1e7, "partial_rotary_factor": 0.25, "mrope_interleaved": True,
                "mrope_section": section}
        layers = text["num_hidden_layers"]
        linear = dict(layer_types=["linear_attention" if (i + 1) % 4 and i + 1 < layers else "full_attention"
                                   for i in range(layers)],
                      linear_num_key_heads=2, linear_num_value_heads=4, linear_key_head_dim=16,
                      linear_value_head_dim=16)
        config = transformers.Qwen3_5Config(
            text_config=dict(linear, **dict(text, head_dim=head_dim, rope_parameters=rope)),
            **_qwen3_vision(text, ids, sizes))
        images, extra, chat = _qwen3_images(sizes)  # Qwen3.5's preprocessor is Qwen3-VL's
    elif family == "gemma4":
        from transformers.models.gemma4.image_processing_pil_gemma4 import Gemma4ImageProcessorPil

        named = {key: tok.convert_tokens_to_ids(token) for key, token in GEMMA4_NAMED.items()}
        # The small Gemma 4s' text model: sliding-window and full-attention layers (the last
        # one full), per-layer input embeddings (PLE), the last layers reusing earlier layers'
        # keys and values, a double-wide MLP and soft-capped logits. Four layers here, so that
        # the two shared ones find a layer of each kind before them. No audio tower: the
        # engine never sends sound.
        layers = sizes.get("text", {}).get("num_hidden_layers", 4)
        gemma = dict(head_dim=16, global_head_dim=32, vocab_size_per_layer_input=text["vocab_size"],
                     hidden_size_per_layer_input=8, num_kv_shared_layers=layers // 2 if layers >= 4 else 0,
                     use_double_wide_mlp=True, final_logit_softcapping=30.0, sliding_window=512,
                     layer_types=["full_attention" if i % 2 else "sliding_attention" for i in range(layers)])
        gemma.update(text, num_hidden_layers=layers)
        # Patches are average-pooled 2 x 2 into soft tokens here (the published 3 x 3 runs the
        # same code and takes twice as long to teach)
        vision = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=4, head_dim=8, patch_size=8, pooling_kernel_size=2,
                      position_embedding_size=256, use_clipped_linears=True)
        vision.update(sizes.get("vision", {}))
        config = transformers.Gemma4Config(
            text_config=gemma, vision_config=vision, audio_config=None,
            image_token_id=named["image_token"], boi_token_id=named["boi_token"], eoi_token_id=named["eoi_token"],
            audio_token_id=named["audio_token"], boa_token_id=named["boa_token"], eoa_token_index=named["eoa_token"],
            video_token_id=tok.convert_tokens_to_ids("<|video|>"))
        # at most 70 soft tokens a frame: the fewest the processor allows
        images = Gemma4ImageProcessorPil(patch_size=vision["patch_size"],
                                         pooling_kernel_size=vision["pooling_kernel_size"],
                                         max_soft_tokens=sizes.get("max_soft_tokens", 70))
        extra = {}
        chat = CHAT.replace("IMAGE", "<|image|>")
    elif family == "smolvlm":
        from transformers.models.smolvlm.image_processing_pil_smolvlm import SmolVLMImageProcessorPil

        side = sizes.get("image", 32)
        vision = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                      image_size=side, patch_size=8)
        vision.update(sizes.get("vision", {}))
        scale = sizes.get("scale", 2)  # pixel shuffle: scale x scale patches become one token
        config = transformers.SmolVLMConfig(text_config=dict(text, model_type="llama"), vision_config=vision,
                                            scale_factor=scale, image_token_id=ids["<image>"])
        images = SmolVLMImageProcessorPil(size={"longest_edge": side}, max_image_size={"longest_edge": side},
                                          do_image_splitting=False)
        extra = dict(image_seq_len=(side // vision["patch_size"] // scale) ** 2)
        chat = CHAT.replace("IMAGE", "<image>")
    else:
        raise ValueError(family)
    torch.manual_seed(seed)
    model_class, processor_class = FAMILIES[family]
    model = getattr(transformers, model_class)(config)
    if family == "gemma4":
        # Gemma 4 starts its patches' position table at ones (trained weights replace it), an
        # offset that drowns a tiny random tower's view of the colours: start it small instead.
        torch.nn.init.normal_(model.model.vision_tower.patch_embedder.position_embedding_table,
                              std=config.vision_config.initializer_range)
    model.save_pretrained(folder)
    processor = _image_only(processor_class)(image_processor=images, tokenizer=tok, chat_template=chat, **extra)
    processor.save_pretrained(folder)
    return folder


def teach(folder: str | Path, examples, steps: int = 300, lr: float = 2e-3, rounds: int = 4,
          check_every: int = 100, sure: float = 0.8) -> None:
    """Overfit the tiny model at ``folder`` so that each (images, prompt, reply) example's
    prompt gets its reply, then save it. The replies can only be right if the images
    reach the model in order, so a test on it checks the whole path end to end.

    Training stops as soon as the model is sure of every lesson (checked every
    ``check_every`` steps): given the reply so far, each next token of every reply is the
    likeliest at a probability of ``sure`` at least, so greedy decoding gives each reply
    with a margin. Whether a fixed number of steps gets there depends on the package set
    (a Pillow or transformers release moves the numbers a little), so while it is not sure
    after ``steps`` it trains on for another half as many steps at a lower rate, ``rounds``
    times at most; then it checks that greedy decoding answers every lesson, and says which
    lessons it could not learn rather than leaving a test to fail on them later."""
    import transformers
    from PIL import Image

    from videoreview.engines.captions.vlm import FAMILIES, _image_only, check_model_dir

    family, _ = check_model_dir(folder)
    model_class, processor_class = FAMILIES[family]
    processor = _image_only(processor_class).from_pretrained(folder)
    model = getattr(transformers, model_class).from_pretrained(folder, dtype=torch.float32)
    batches = []
    for images, prompt, reply in examples:
        content = [{"type": "image"} for _ in images] + [{"type": "text", "text": prompt}]
        head = processor.apply_chat_template([{"role": "user", "content": content}], add_generation_prompt=True)
        pil = [[Image.fromarray(i) for i in images]] if images else None
        full = processor(text=[head + reply + "<|im_end|>"], images=pil, return_tensors="pt")
        prompt_len = processor(text=[head], images=pil, return_tensors="pt")["input_ids"].shape[1]
        labels = full["input_ids"].clone()
        labels[:, :prompt_len] = -100
        batches.append((full, labels, prompt_len))
    order = torch.Generator().manual_seed(0)
    for round_ in range(rounds + 1):
        if _train(model, batches, steps if round_ == 0 else steps // 2, lr if round_ == 0 else lr / 4, order,
                  lambda: _sure(model, batches, sure), check_every):
            break
    model.eval()
    wrong = [reply for (images, prompt, reply), batch in zip(examples, batches) if not _answers(model, *batch)]
    if wrong:
        raise RuntimeError(f"{folder}: the tiny model did not learn {len(wrong)} lessons, e.g. {wrong[0]!r}")
    model.save_pretrained(folder)


def _train(model, batches, steps: int, lr: float, order: torch.Generator, done, check_every: int) -> bool:
    """Train for ``steps`` at most; whether ``done()`` said so on one of its checks or at the end."""
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0 - step / steps)  # settle at the end
    for step in range(steps):
        if step % len(batches) == 0:
            epoch = torch.randperm(len(batches), generator=order).tolist()
        inputs, labels, _ = batches[epoch[step % len(batches)]]
        model.train()
        loss = model(**inputs, labels=labels).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        if ((step + 1) % check_every == 0 or step + 1 == steps) and done():
            return True
    return False


def _sure(model, batches, least: float) -> bool:
    """Whether, with teacher forcing (one pass over prompt and reply), every token of every
    reply is the likeliest next token at a probability of ``least`` at least."""
    model.eval()
    with torch.inference_mode():
        for inputs, labels, prompt_len in batches:
            reply = labels[0, prompt_len:]
            probs = model(**inputs).logits[0, prompt_len - 1:-1].softmax(-1)  # logits at p - 1 predict token p
            if probs.argmax(-1).ne(reply).any() or probs.gather(1, reply[:, None]).min() < least:
                return False
    return True


def _answers(model, inputs, labels, prompt_len: int) -> bool:
    """Whether greedy decoding after the prompt gives the lesson's reply, token for token."""
    reply = labels[0, prompt_len:]
    length = inputs["input_ids"].shape[1]
    prompt = {k: (v[:, :prompt_len] if v.dim() == 2 and v.shape == (1, length) else v) for k, v in inputs.items()}
    with torch.inference_mode():
        out = model.generate(**prompt, max_new_tokens=len(reply), do_sample=False)
    return out[0, prompt_len:].tolist() == reply.tolist()


COLOURS = {"red": (220, 30, 30), "blue": (30, 30, 220), "green": (30, 200, 30)}


def colour_frame(name: str, size: tuple[int, int] = (160, 90)):
    import numpy as np

    return np.full((size[1], size[0], 3), COLOURS[name], np.uint8)


def colour_clip(path, seconds=3, fps=25):
    """Red, blue, green shots of ``seconds`` each: hard cuts at 3 s and 6 s."""
    from videos import encode_frames

    frames = [colour_frame(name) for name in ("red", "blue", "green") for _ in range(seconds * fps)]
    encode_frames(path, frames, fps)
    return path


def colour_lessons():
    """What the taught models answer, by the colour of the frames they are shown: caption
    windows of 2 frames, boundaries with 1 frame each side, and the progression question."""
    from videoreview.engines.captions.prompts import boundary_prompt, caption_prompt, progression_prompt

    lessons = []
    for a in COLOURS:
        lessons.append(([colour_frame(a)], caption_prompt(1), f"<Frame 1>: a {a} frame."))
        for b in COLOURS:
            lessons.append(([colour_frame(a), colour_frame(b)], caption_prompt(2),
                            f"<Frame 1>: a {a} frame.\n<Frame 2>: a {b} frame."))
            if a != b:  # the pipeline never asks about identical captions
                lessons.append(([], progression_prompt(f"a {a} frame.", f"a {b} frame."), "A"))
                lessons.append(([colour_frame(a), colour_frame(b), colour_frame(b)], boundary_prompt(1, 1),
                                f"Subject: the frame\nBefore: {a}\nAfter: {b}"))
    return lessons


def cached_taught(families) -> dict[str, Path]:
    """``taught`` for each family -> folder, from the tests' cache (cached.py): made (in
    parallel) only when this module, the captions code it teaches through or a package it
    depends on changed."""
    from cached import cached
    from videoreview.engines.captions import prompts, vlm

    families = tuple(families)
    folder = cached("taught", [sys.modules[__name__], vlm, prompts],
                    lambda into: taught_in_parallel({family: into / family for family in families}),
                    packages=("torch", "transformers", "tokenizers", "pillow", "numpy"), arguments=families)
    return {family: folder / family for family in families}


def taught_in_parallel(folders: dict[str, Path]) -> dict[str, Path]:
    """``taught`` for each family -> folder, the families side by side in processes of
    their own, one thread each: a tiny model's step is too short to use two threads well,
    so this takes the time of one family instead of two on a 2-core machine."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(len(folders), mp_context=multiprocessing.get_context("spawn")) as pool:
        done = {family: pool.submit(_taught_on_one_thread, family, folder) for family, folder in folders.items()}
        return {family: job.result() for family, job in done.items()}


def _taught_on_one_thread(family: str, folder: Path) -> Path:
    torch.set_num_threads(1)
    return taught(family, folder)


def taught(family: str, folder: str | Path, steps: int = 1000, lr: float = 1e-3) -> Path:
    """A tiny model that captions solid red / blue / green frames by their colour. Every
    family learns the lessons within ``steps`` at ``lr`` (decaying to nothing over them),
    most stop well before."""
    build(family, folder)
    teach(folder, colour_lessons(), steps=steps, lr=lr)
    return Path(folder)
