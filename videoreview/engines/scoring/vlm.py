"""A local VLM (LLaVA-OneVision or Qwen2-VL, see engines/captions/vlm.py) as a ViSIL scorer,
plus the other model calls of the paper: the reference description (F.1), the keywords
to mask in it (F.2) and a summary's text (F.4).

Scoring is teacher forcing: the prompt is F.6 for the source (its images first, in
order), the answer is the keywords joined by single spaces (the format F.6 asks for),
and one forward pass over prompt + answer gives the log-probability of every answer
token; each keyword's log P is the sum over its tokens, the space before it included.

The paper repeats each API call 3 times and takes the geometric mean of the
probabilities because API probabilities are not deterministic. Local teacher forcing is
deterministic, so ``runs`` > 1 only matters with nondeterministic kernels (some GPU
attention implementations); it repeats the pass and averages the log-probabilities
(the log of the geometric mean).
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable, Sequence

import numpy as np

from ..captions.vlm import Request, VisionLanguageModel
from .protocol import (
    CAPTION_PROMPT,
    KEYWORD_PROMPT,
    MAX_KEYWORDS,
    Source,
    frames_shown,
    recovery_prompt,
    summary_prompt,
)

KEYWORD_TOKENS = 200  # a JSON array of 20 quoted words, with room for a short preamble
SUMMARY_TOKENS = 160  # 2-3 sentences

ReadFrames = Callable[[Sequence[int]], list[np.ndarray]]


class VLMScorer:
    """ViSIL scorer on a loaded model. ``read_frames`` decodes RGB frames by index;
    ``video_frames`` are the indices shown for Source("video"); a summary shows its
    keyframes, in order, then its text."""

    approximate = False

    def __init__(self, model: VisionLanguageModel, read_frames: ReadFrames, video_frames: Sequence[int],
                 runs: int = 1):
        if not video_frames:
            raise ValueError("the video source needs at least one frame")
        if runs < 1:
            raise ValueError(f"runs must be at least 1, got {runs}")
        self.model = model
        self.name = model.label  # as VLMEngine names it
        self.read_frames = read_frames
        self.video_frames = tuple(video_frames)
        self.runs = runs
        self._frame_shape: tuple[int, ...] | None = None
        self._image_tokens: dict[int, int] = {}  # image count -> image tokens the processor inserts

    # -- Scorer ------------------------------------------------------------------------
    def keyword_log_probs(self, keywords: Sequence[str], masked_caption: str, source: Source) -> list[float]:
        return self.keyword_log_probs_many(keywords, masked_caption, [source])[0]

    def tokens(self, source: Source) -> int:
        """The summary's text tokens plus the image tokens the processor inserts for its
        images; the recovery instruction and masked caption are left out (every summary
        pays them alike)."""
        text = len(self.model.processor.tokenizer(source.text, add_special_tokens=False)["input_ids"])
        return text + self.image_tokens(len(self._frame_indices(source)))

    # -- batches and token counts ------------------------------------------------------
    def keyword_log_probs_many(self, keywords: Sequence[str], masked_caption: str,
                               sources: Sequence[Source]) -> list[list[float]]:
        """keyword_log_probs for several sources: those with the same number of images
        share forward passes (up to the model's batch size)."""
        if not keywords:
            return [[] for _ in sources]
        answer, answer_ids, owners = answer_tokens(self.model.processor.tokenizer, keywords)
        results: list[list[float] | None] = [None] * len(sources)
        groups: dict[int, list[int]] = {}
        for i, source in enumerate(sources):
            groups.setdefault(len(self._frame_indices(source)), []).append(i)
        for members in groups.values():
            for start in range(0, len(members), self.model.batch_size):
                chunk = members[start:start + self.model.batch_size]
                scores = self._score([sources[i] for i in chunk], masked_caption, answer, answer_ids, owners,
                                     len(keywords))
                for i, values in zip(chunk, scores):
                    results[i] = values
        return results  # type: ignore[return-value]

    def image_tokens(self, images: int) -> int:
        """Image tokens the processor inserts for ``images`` frames of the video's size
        (LLaVA-OneVision spends more on a single image than on each of several)."""
        if images == 0:
            return 0
        if images not in self._image_tokens:
            if self._frame_shape is None:
                self._frame_shape = self.read_frames(self.video_frames[:1])[0].shape
            blank = np.zeros(self._frame_shape, np.uint8)  # the count depends on the size only
            inputs = self.model.inputs([self.model.chat(images, "")], [[blank] * images])
            self._image_tokens[images] = int((inputs["input_ids"] == self.model.processor.image_token_id).sum())
        return self._image_tokens[images]

    def _frame_indices(self, source: Source) -> tuple[int, ...]:
        return frames_shown(source, self.video_frames)

    def _frames(self, source: Source) -> list[np.ndarray]:
        indices = self._frame_indices(source)
        return list(self.read_frames(indices)) if indices else []

    def _score(self, sources: Sequence[Source], masked_caption: str, answer: str, answer_ids: list[int],
               owners: list[int], keywords: int) -> list[list[float]]:
        """One forward pass (per run) over prompt + answer for sources with equally many images."""
        import torch

        model = self.model
        frames = [self._frames(s) for s in sources]
        texts = [model.chat(len(f), recovery_prompt(s, masked_caption)) + answer for s, f in zip(sources, frames)]
        # Right padding: every row starts at position 0, so no model needs position ids fixed up.
        inputs = model.inputs(texts, frames, padding_side="right")
        n = len(answer_ids)
        ends = inputs["attention_mask"].sum(dim=1)
        targets = torch.tensor(answer_ids, device=model.device)
        for row, end in zip(inputs["input_ids"], ends.tolist()):
            if not torch.equal(row[end - n:end], targets):
                raise ValueError(f"{self.name}: the answer's tokens change when it follows the prompt; "
                                 "cannot tell which tokens are the keywords")
        # The logits at position p predict token p + 1: keep only those that predict the answer.
        positions = ends[:, None] - n - 1 + torch.arange(n, device=model.device)
        owner = torch.tensor(owners)
        total = torch.zeros(len(sources), keywords, dtype=torch.float64)  # on the CPU: MPS has no float64
        for _ in range(self.runs):
            with torch.inference_mode():
                logits = model.model(**inputs, logits_to_keep=positions, use_cache=False).logits
            token_log_probs = torch.log_softmax(logits.float(), dim=-1)
            picked = token_log_probs.gather(-1, targets.expand(len(sources), n)[..., None])[..., 0]
            total.index_add_(1, owner, picked.cpu().double())
        return (total / self.runs).tolist()


def answer_tokens(tokenizer, keywords: Sequence[str]) -> tuple[str, list[int], list[int]]:
    """The answer F.6 asks for (the keywords joined by single spaces), its token ids, and
    for each token the index of the keyword it belongs to: the one its last character
    falls in, a space counting with the keyword after it."""
    if any(not k.strip() for k in keywords):
        raise ValueError(f"empty keyword in {list(keywords)}")
    answer = " ".join(keywords)
    starts, position = [], 0
    for keyword in keywords:
        starts.append(max(position - 1, 0))  # the space before it is its own
        position += len(keyword) + 1
    encoded = tokenizer(answer, add_special_tokens=False, return_offsets_mapping=True)
    owners = [bisect.bisect_right(starts, max(end - 1, start)) - 1 for start, end in encoded["offset_mapping"]]
    return answer, list(encoded["input_ids"]), owners


def describe_video(model: VisionLanguageModel, frames: Sequence[np.ndarray], max_new_tokens: int = 256) -> str:
    """The reference description C of the video shown as ``frames`` (prompt F.1)."""
    return model.generate([Request(list(frames), CAPTION_PROMPT, max_new_tokens)])[0].strip()


def write_summary(model: VisionLanguageModel, video_frames: Sequence[np.ndarray], keyframes: Sequence[np.ndarray],
                  max_new_tokens: int = SUMMARY_TOKENS) -> str:
    """A summary's text (prompt F.4) from the video's frames followed by the summary's
    keyframes; with keyframes it should refer to them as [KEYFRAME1].. (the caller checks)."""
    images = list(video_frames) + list(keyframes)
    prompt = summary_prompt(len(video_frames), len(keyframes))
    return model.generate([Request(images, prompt, max_new_tokens)])[0].strip()


def vlm_keywords(model: VisionLanguageModel, text: str, max_new_tokens: int = KEYWORD_TOKENS) -> list[str]:
    """Keywords of ``text`` chosen by the model (prompt F.2), checked by parse_keywords.
    [] when the reply has none: the caller then falls back to the rule-based extraction
    (summary.visil.extract_keywords; engines do not import summary)."""
    reply = model.generate([Request((), f"{KEYWORD_PROMPT}\n\nParagraph: {text}", max_new_tokens)])[0]
    return parse_keywords(reply, text)


_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")  # as summary.visil counts a word
_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u2018": "'", "\u2019": "'"})


def parse_keywords(reply: str, text: str, limit: int = MAX_KEYWORDS) -> list[str]:
    """The keywords in a model's reply to F.2: the first JSON array of strings in it
    (curly quotes allowed, text around it ignored), lowercased, keeping only single words
    found in ``text`` as whole words, except "video" (F.2 excludes it); each once, in
    order of first appearance in ``text``, at most ``limit``."""
    items = _first_array(reply.translate(_QUOTES))
    found: dict[str, int] = {}
    for item in items:
        word = item.strip().lower()
        if word in found or word == "video" or not _WORD.fullmatch(word):
            continue
        match = re.search(rf"(?<![^\W_]){re.escape(word)}(?![^\W_])", text, re.IGNORECASE)
        if match is not None:
            found[word] = match.start()
    return sorted(found, key=found.get)[:limit]


def _first_array(reply: str) -> list[str]:
    """The strings of the first bracketed list in ``reply`` that reads as JSON (or with
    single quotes, which models write too); [] if there is none."""
    for match in re.finditer(r"\[[^\[\]]*\]", reply):
        try:
            items = json.loads(match.group(0))
        except ValueError:
            items = [a or b for a, b in re.findall(r'"([^"]*)"|\'([^\']*)\'', match.group(0))]
        if isinstance(items, list) and items and all(isinstance(i, str) for i in items):
            return items
    return []


class VLMScoring:
    """A VLM engine (captions/vlm.py) as a ScoringEngine: it scores, describes the video
    (F.1) and picks keywords (F.2); its model loads on first use."""

    describes = True

    def __init__(self, engine) -> None:
        self.engine = engine
        self.name, self.version, self.device = engine.name, engine.version, engine.device
        self.loading = f"loading {engine.name}"

    def scorer(self, analysis, read_frames: ReadFrames, video_frames: Sequence[int]) -> VLMScorer:
        return VLMScorer(self.engine.model, read_frames, video_frames)

    def describe(self, frames: Sequence[np.ndarray]) -> str:
        return describe_video(self.engine.model, frames)

    def keywords(self, text: str) -> list[str]:
        return vlm_keywords(self.engine.model, text)

    def release(self) -> None:
        self.engine.release()
