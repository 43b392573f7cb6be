"""Vision-language captioners (transformers): LLaVA-OneVision, Qwen2-VL, Qwen3-VL, Qwen3.5,
SmolVLM2 and Gemma 4 from a local folder.

One engine implements both caption protocols (frame windows, boundaries) and the two
judges the papers use (progression between two captions, matching a frame to one of
several captions), all through one ``generate`` that batches requests.

Safety and honesty rules for model folders (checked before anything is loaded):
  * the folder is in Hugging Face layout (config.json, tokenizer, processor config);
  * its ``model_type`` is one of FAMILIES; a folder that needs remote code (``auto_map``)
    is refused: ``trust_remote_code`` is never enabled;
  * weights load from ``*.safetensors`` only; pickle-only folders are refused.
Generation is greedy and capped (``max_new_tokens``): a model that never stops costs at
most the cap. Replies go through parse.py, which recovers every frame it can.

transformers' processors for these families insist on a video processor, which needs
torchvision; we only ever pass images, so ``_image_only`` makes the processor without it
(and torchvision stays out of the dependencies: it has no CPU build matching our torch).
SmolVLM's processor also wants num2words, for its video prompts only; that is skipped too,
as is Gemma 4's audio feature extractor (sound never goes to the model).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...errors import ModelError
from ...media import scaled_size
from ...models.folders import resolve_model, safe_config
from ..device import pick_device
from .parse import parse_boundary_caption, parse_choice, parse_frame_captions
from .prompts import (
    SHOT_BOUNDARY_WORDS,
    boundary_prompt,
    caption_prompt,
    matching_prompt,
    progression_prompt,
    shot_caption_prompt,
)
from .protocol import CaptionContext

# model_type in config.json -> (model class, processor class) in transformers
FAMILIES = {
    "llava_onevision": ("LlavaOnevisionForConditionalGeneration", "LlavaOnevisionProcessor"),
    "qwen2_vl": ("Qwen2VLForConditionalGeneration", "Qwen2VLProcessor"),
    "qwen3_vl": ("Qwen3VLForConditionalGeneration", "Qwen3VLProcessor"),
    "qwen3_5": ("Qwen3_5ForConditionalGeneration", "Qwen3VLProcessor"),  # Qwen3.5: Qwen3-VL's processor
    "smolvlm": ("SmolVLMForConditionalGeneration", "SmolVLMProcessor"),  # SmolVLM2
    "gemma4": ("Gemma4ForConditionalGeneration", "Gemma4Processor"),  # Gemma 4 (E2B, E4B)
}
# Frames are scaled to this long side before the processor sees them: LLaVA-OneVision
# resizes to 384 anyway; Qwen2-VL would otherwise spend ~1200 tokens on a 720p frame
# (448 px long side: 16 x 9 merged patches = 144 tokens); Qwen3-VL has 16-px patches
# merged 2 x 2, so 512 px gives the same 16 x 9 = 144 tokens. SmolVLM2 squeezes each
# image into one 512-px tile (image splitting is turned off in ``_image_only``: 64 tokens
# a frame instead of 9 tiles, 576), so a larger frame would only be scaled down again.
# Qwen3.5 has Qwen3-VL's 16-px patches merged 2 x 2: 512 px, 144 tokens. Gemma 4 resizes
# every image itself to fill its soft-token budget (16-px patches pooled 3 x 3, sides in
# multiples of 48 px); ``_image_only`` caps the budget at 140, which a 16:9 frame fills at
# 720 x 384 (15 x 8 = 120 tokens), so frames go in at 720 px and are not scaled up again.
FRAME_LONG_SIDE = {"llava_onevision": 384, "qwen2_vl": 448, "qwen3_vl": 512, "qwen3_5": 512, "smolvlm": 512,
                   "gemma4": 720, "server": 768}  # server: see captions/server.py
TOKENS_PER_FRAME_CAPTION = 96  # cap on new tokens per frame of a caption window
BOUNDARY_TOKENS = 160
# The per-shot plan's caps (pipeline/caption_plan.py, a CPU's plan): a short sentence a frame
# and three short lines a boundary (prompts.SHOT_CAPTION_WORDS, SHOT_BOUNDARY_WORDS). On a CPU
# every new token is a pass through the whole model, so the cap is most of a window's cost.
TOKENS_PER_FRAME_SHOT = 32
BOUNDARY_TOKENS_SHOT = 64
CHOICE_TOKENS = 8


def check_model_dir(path: str | Path) -> tuple[str, dict]:
    """(family, config) of a model folder, or ModelError saying why it will not be loaded."""
    folder = Path(path)
    if not folder.is_dir():
        raise ModelError(folder, "not a folder (a model is a folder in Hugging Face layout)")
    config = safe_config(folder)
    family = config.get("model_type")
    if family not in FAMILIES:
        raise ModelError(folder, f"model_type {family!r} is not supported (supported: {', '.join(FAMILIES)})")
    if not (folder / "tokenizer.json").exists() and not (folder / "tokenizer_config.json").exists():
        raise ModelError(folder, "no tokenizer (tokenizer.json)")
    if not (folder / "processor_config.json").exists() and not (folder / "preprocessor_config.json").exists():
        raise ModelError(folder, "no image processor config (preprocessor_config.json or processor_config.json)")
    return family, config


def fingerprint(path: str | Path) -> str:
    """Short id of a model folder's contents (config and weight file sizes) for cache keys;
    hashing gigabytes of weights on every start would be too slow."""
    folder = Path(path)
    digest = hashlib.sha256((folder / "config.json").read_bytes())
    for weights in sorted(folder.glob("*.safetensors")):
        digest.update(f"{weights.name}:{weights.stat().st_size}".encode())
    return digest.hexdigest()[:12]


def _image_only(processor_class):
    """The family's processor without its video processor (see the module docstring). The
    keyword arguments must be spelled out: transformers reads them off ``__init__``."""
    import transformers

    base = getattr(transformers, processor_class)
    if processor_class == "LlavaOnevisionProcessor":
        class Processor(base):
            def __init__(self, image_processor=None, tokenizer=None, num_image_tokens=None,
                         vision_feature_select_strategy=None, chat_template=None, image_token="<image>",
                         video_token="<video>", vision_aspect_ratio="anyres_max_9", **kwargs):
                super().__init__(image_processor=image_processor, tokenizer=tokenizer, video_processor=None,
                                 num_image_tokens=num_image_tokens,
                                 vision_feature_select_strategy=vision_feature_select_strategy,
                                 chat_template=chat_template, image_token=image_token, video_token=video_token,
                                 vision_aspect_ratio=vision_aspect_ratio, **kwargs)
    elif processor_class == "SmolVLMProcessor":
        from transformers.image_utils import SizeDict
        from transformers.processing_utils import ProcessorMixin

        class Processor(base):
            def __init__(self, image_processor=None, tokenizer=None, image_seq_len=169, chat_template=None, **kwargs):
                # SmolVLMProcessor.__init__ demands num2words, which only its video prompts use:
                # set what it sets and skip to ProcessorMixin.
                self.fake_image_token = getattr(tokenizer, "fake_image_token", "<fake_token_around_image>")
                self.image_token = getattr(tokenizer, "image_token", "<image>")
                self.image_token_id = tokenizer.convert_tokens_to_ids(self.image_token)
                self.end_of_utterance_token = getattr(tokenizer, "end_of_utterance_token", "<end_of_utterance>")
                self.global_image_token = getattr(tokenizer, "global_image_token", "<global-img>")
                self.image_seq_len = image_seq_len
                self.video_token = getattr(tokenizer, "video_token", "<video>")
                ProcessorMixin.__init__(self, image_processor, tokenizer, None, chat_template=chat_template, **kwargs)
                # One frame, one tile: splitting a 16:9 frame costs 8 tiles and a global one
                # (9 x 64 tokens) where we want one image per frame, as the other families see it.
                self.image_processor.do_image_splitting = False
                # ... and no detour through the 4 x 512 px the splitting would start from
                tile = self.image_processor.max_image_size["longest_edge"]
                self.image_processor.size = SizeDict(longest_edge=tile)

            def apply_chat_template(self, conversation, chat_template=None, **kwargs):
                # SmolVLMProcessor's adds the video processor's frame settings; we pass no videos.
                return ProcessorMixin.apply_chat_template(self, conversation, chat_template, **kwargs)
    elif processor_class == "Gemma4Processor":
        from transformers.processing_utils import ProcessorMixin

        class Processor(base):
            def __init__(self, image_processor=None, tokenizer=None, chat_template=None, image_seq_length=280,
                         audio_seq_length=750, audio_ms_per_token=40, **kwargs):
                # Gemma4Processor.__init__ hands its audio feature extractor and video
                # processor on by name, which ProcessorMixin refuses once they are left out:
                # set what it sets (the named tokens come from the tokenizer) and skip to
                # ProcessorMixin. Its input check wants the audio tokens even without audio.
                self.image_seq_length = image_seq_length
                self.image_token, self.image_token_id = tokenizer.image_token, tokenizer.image_token_id
                self.boi_token, self.eoi_token = tokenizer.boi_token, tokenizer.eoi_token
                self.video_token = "<|video|>"
                self.video_token_id = tokenizer.convert_tokens_to_ids(self.video_token)
                self.audio_seq_length, self.audio_ms_per_token = audio_seq_length, audio_ms_per_token
                for name in ("audio_token", "audio_token_id", "boa_token", "eoa_token"):
                    setattr(self, name, getattr(tokenizer, name, None))
                ProcessorMixin.__init__(self, image_processor, tokenizer, chat_template=chat_template, **kwargs)
                # At most 140 soft tokens a frame (120 for 16:9) where the published default
                # is 280: one of the budgets Gemma 4 was trained with (70 to 1120), and about
                # the 144 tokens a frame the other families get.
                self.image_processor.max_soft_tokens = min(self.image_processor.max_soft_tokens, 140)
    else:  # Qwen2VLProcessor, Qwen3VLProcessor
        class Processor(base):
            def __init__(self, image_processor=None, tokenizer=None, chat_template=None, **kwargs):
                super().__init__(image_processor=image_processor, tokenizer=tokenizer, video_processor=None,
                                 chat_template=chat_template, **kwargs)
    Processor.__name__ = processor_class
    return Processor


@dataclass(frozen=True)
class Request:
    """One prompt: images (RGB arrays, possibly none) then text, and a cap on the reply."""

    images: Sequence[np.ndarray]
    text: str
    max_new_tokens: int


class VisionLanguageModel:
    """A loaded model and its processor; ``generate`` answers a list of requests in batches."""

    def __init__(self, path: str | Path, device: str | None = None, batch_size: int | None = None):
        import torch
        import transformers
        from safetensors import SafetensorError

        self.path = resolve_model(path)
        self.family, _ = check_model_dir(self.path)
        self.label = f"{self.family}:{self.path.name}"  # how engines, writers and scorers name it
        model_class, processor_class = FAMILIES[self.family]
        self.device, self.dtype = pick_device(device)
        self.batch_size = batch_size or (8 if self.device.startswith("cuda") else 2)
        try:
            self.processor = _image_only(processor_class).from_pretrained(self.path)
            self.model = getattr(transformers, model_class).from_pretrained(
                self.path, dtype=self.dtype, use_safetensors=True, trust_remote_code=False,
                attn_implementation="sdpa")
        except (OSError, ValueError, KeyError, TypeError, SafetensorError) as exc:  # SafetensorError: damaged weights
            raise ModelError(self.path, f"cannot be loaded ({type(exc).__name__}: {exc})") from None
        self.model.to(self.device).eval()
        self.processor.tokenizer.padding_side = "left"  # batched generation continues on the right
        self._torch = torch

    def generate(self, requests: Sequence[Request]) -> list[str]:
        """One reply per request, in order. Requests with the same number of images are
        batched together (the processors batch those cleanly)."""
        replies: list[str | None] = [None] * len(requests)
        groups: dict[int, list[int]] = {}
        for i, request in enumerate(requests):
            groups.setdefault(len(request.images), []).append(i)
        for members in groups.values():
            for start in range(0, len(members), self.batch_size):
                chunk = members[start:start + self.batch_size]
                for i, reply in zip(chunk, self._generate_batch([requests[i] for i in chunk])):
                    replies[i] = reply
        return replies  # type: ignore[return-value]

    def chat(self, images: int, text: str) -> str:
        """The chat template applied to a user turn of ``images`` images then ``text``,
        ending where the assistant's reply begins."""
        content = [{"type": "image"} for _ in range(images)] + [{"type": "text", "text": text}]
        # No thinking before the reply where a template offers it (Qwen3.5's may open a <think>
        # block unless told not to, and a caption's tokens are capped); others ignore it.
        return self.processor.apply_chat_template([{"role": "user", "content": content}], add_generation_prompt=True,
                                                  enable_thinking=False)

    def inputs(self, texts: Sequence[str], images: Sequence[Sequence[np.ndarray]], padding_side: str = "left"):
        """Model inputs on the model's device for chat texts and their images (scaled to
        FRAME_LONG_SIDE). Left padding suits generation; scoring pads on the right so
        that positions need no attention-mask bookkeeping."""
        from PIL import Image

        pil = [[Image.fromarray(self._fit(frame)) for frame in frames] for frames in images]
        inputs = self.processor(text=list(texts), images=pil if any(pil) else None,
                                return_tensors="pt", padding=True, padding_side=padding_side)
        inputs = inputs.to(self.device)
        if "pixel_values" in inputs:
            inputs["pixel_values"] = inputs["pixel_values"].to(self.dtype)
        return inputs

    def _generate_batch(self, batch: Sequence[Request]) -> list[str]:
        inputs = self.inputs([self.chat(len(r.images), r.text) for r in batch], [r.images for r in batch])
        pad = self.processor.tokenizer.pad_token_id
        with self._torch.inference_mode():
            out = self.model.generate(**inputs, max_new_tokens=max(r.max_new_tokens for r in batch),
                                      do_sample=False, pad_token_id=pad)
        new = out[:, inputs["input_ids"].shape[1]:]
        replies = []
        for request, tokens in zip(batch, new):
            replies.append(self.processor.tokenizer.decode(tokens[:request.max_new_tokens], skip_special_tokens=True))
        return replies

    def _fit(self, frame: np.ndarray) -> np.ndarray:
        import cv2

        h, w = frame.shape[:2]
        if max(h, w) <= FRAME_LONG_SIDE[self.family]:
            return np.ascontiguousarray(frame)
        return cv2.resize(frame, scaled_size(w, h, FRAME_LONG_SIDE[self.family]), interpolation=cv2.INTER_AREA)


class VLMEngine:
    """A VLM from a local folder as a captions engine (``--engines captions=vlm:FOLDER``).

    The folder is checked at once; the model loads on first use, so a cached analysis
    never loads it, and ``release`` frees it after a job."""

    kind = "vlm"

    def __init__(self, path: str | Path, device: str | None = None, batch_size: int | None = None):
        self.path = resolve_model(path)
        self.family, _ = check_model_dir(self.path)
        self.name = f"{self.family}:{self.path.name}"
        self.version = f"1-{fingerprint(self.path)}"
        self.device = pick_device(device)[0]
        self.device_note: str | None = None
        self.batch_size = batch_size
        self._model: VisionLanguageModel | None = None

    @property
    def model(self) -> VisionLanguageModel:
        if self._model is None:
            self._model = VisionLanguageModel(self.path, self.device, self.batch_size)
        return self._model

    def release(self) -> None:
        self._model = None

    # -- Captioner ---------------------------------------------------------------------
    def caption(self, frames: Sequence[np.ndarray], context: CaptionContext | None = None) -> list[str | None]:
        return self.caption_windows([(frames, context)])[0]

    def caption_windows(self, windows: Sequence[tuple[Sequence[np.ndarray], CaptionContext | None]],
                        per_shot: bool = False) -> list[list[str | None]]:
        """Captions for many windows at once (batched): one list per window, one entry per frame.
        ``per_shot``: the per-shot plan's short prompt and cap (a sentence a frame)."""
        requests = []
        for frames, context in windows:
            if not 1 <= len(frames) <= 6:
                raise ValueError(f"a caption window has 1 to 6 frames, got {len(frames)}")
            context = context or CaptionContext()
            if per_shot:
                prompt = shot_caption_prompt(len(frames), identities=context.identities, speech=context.speech,
                                             screen_text=context.screen_text)
            else:
                prompt = caption_prompt(len(frames), identities=context.identities, speech=context.speech,
                                        screen_text=context.screen_text)
            cap = TOKENS_PER_FRAME_SHOT if per_shot else TOKENS_PER_FRAME_CAPTION
            requests.append(Request(frames, prompt, cap * len(frames)))
        replies = self.model.generate(requests)
        return [parse_frame_captions(reply, len(frames)) for reply, (frames, _) in zip(replies, windows)]

    # -- BoundaryCaptioner ---------------------------------------------------------------
    def caption_boundary(self, before: Sequence[np.ndarray], at: np.ndarray, after: Sequence[np.ndarray],
                         context: CaptionContext | None = None) -> tuple[str, str, str] | None:
        return self.caption_boundaries([(before, at, after)], [context])[0]

    def caption_boundaries(self, items: Sequence[tuple[Sequence[np.ndarray], np.ndarray, Sequence[np.ndarray]]],
                           contexts: Sequence[CaptionContext | None] | None = None, per_shot: bool = False
                           ) -> list[tuple[str, str, str] | None]:
        """``per_shot``: the per-shot plan's short lines and cap."""
        contexts = contexts or [None] * len(items)
        words, cap = (SHOT_BOUNDARY_WORDS, BOUNDARY_TOKENS_SHOT) if per_shot else (None, BOUNDARY_TOKENS)
        requests = [Request([*before, at, *after],
                            boundary_prompt(len(before), len(after), (c or CaptionContext()).speech,
                                            (c or CaptionContext()).screen_text, words=words), cap)
                    for (before, at, after), c in zip(items, contexts)]
        return [parse_boundary_caption(reply) for reply in self.model.generate(requests)]

    # -- judges ---------------------------------------------------------------------------
    def progression(self, first: str, second: str) -> str | None:
        """ProgressCaptioner's progression question on two captions: "A" (progression),
        "B" (none), "C" (uncertain) or None (no usable answer)."""
        reply = self.model.generate([Request((), progression_prompt(first, second), CHOICE_TOKENS)])[0]
        choice = parse_choice(reply, 3)
        return None if choice is None else "ABC"[choice]

    def match(self, image: np.ndarray, captions: Sequence[str]) -> int | None:
        """Caption matching: the index of the caption the model picks for the image,
        ``len(captions)`` for "none of the above", None for no usable answer."""
        reply = self.model.generate([Request([image], matching_prompt(captions), CHOICE_TOKENS)])[0]
        return parse_choice(reply, len(captions) + 1)
