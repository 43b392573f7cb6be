"""A model server as the ViSIL scorer, where the server gives the log-probabilities of
the prompt's tokens: vLLM's ``prompt_logprobs`` extension of the chat completions API.
Ollama, LM Studio and OpenAI's own API do not; with them scoring fails in one line
saying to use a vLLM server or a local model.

Teacher forcing over the API, as the local scorer does in one forward pass: the request
ends with the assistant's answer (F.6's keywords joined by single spaces), continued, not
closed (``continue_final_message``, no generation prompt), and ``prompt_logprobs`` 0 asks
for each prompt token's log-probability given the tokens before it. The answer's tokens
are the prompt's last ones: their texts, read back from the end, must spell the answer
(white space aside), and each token counts for the keyword its last character falls in
(white space counts with the keyword after it), as the local scorer counts with the
tokenizer's offsets. A keyword a byte-level tokenizer cuts inside one character cannot be
spelled back from tokens decoded one by one: that is one line saying so.

tau (``tokens``) is, as locally, the summary's text tokens (vLLM's /tokenize) plus the
image tokens its keyframes cost (the prompt tokens the server reports for a request with
that many blank frames, less those for none).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from ..captions.server import ServerModel
from ..captions.vlm import Request
from .protocol import Source, frames_shown, recovery_prompt
from .vlm import ReadFrames, VLMScoring

NO_LOG_PROBS = ("gave no log-probabilities of the prompt's tokens: scoring by ViSIL needs them, and only vLLM "
                "gives them (prompt_logprobs); score with a vLLM server or a local model")


class ServerScorer:
    """ViSIL scorer on a model server (see the module)."""

    approximate = False

    def __init__(self, model: ServerModel, read_frames: ReadFrames, video_frames: Sequence[int]) -> None:
        if not video_frames:
            raise ValueError("the video source needs at least one frame")
        self.model = model
        self.name = model.label
        self.read_frames = read_frames
        self.video_frames = tuple(video_frames)
        self._image_tokens: dict[int, int] = {}

    def keyword_log_probs(self, keywords: Sequence[str], masked_caption: str, source: Source) -> list[float]:
        return self.keyword_log_probs_many(keywords, masked_caption, [source])[0]

    def keyword_log_probs_many(self, keywords: Sequence[str], masked_caption: str,
                               sources: Sequence[Source]) -> list[list[float]]:
        """One request per source, several in flight."""
        if not keywords:
            return [[] for _ in sources]
        return self.model.map(lambda source: self._score(keywords, masked_caption, source), sources)

    def tokens(self, source: Source) -> int:
        text = self._count(source.text) if source.text else 0
        return text + self.image_tokens(len(self._frame_indices(source)))

    def image_tokens(self, images: int) -> int:
        if images == 0:
            return 0
        if images not in self._image_tokens:
            shape = self.read_frames(self.video_frames[:1])[0].shape  # the count depends on the size only
            blank = np.zeros(shape, np.uint8)
            self._image_tokens[images] = self._prompt_tokens([blank] * images) - self._prompt_tokens([])
        return self._image_tokens[images]

    def _frame_indices(self, source: Source) -> tuple[int, ...]:
        return frames_shown(source, self.video_frames)

    def _score(self, keywords: Sequence[str], masked_caption: str, source: Source) -> list[float]:
        indices = self._frame_indices(source)
        frames = list(self.read_frames(indices)) if indices else []
        answer = " ".join(keywords)
        body = self.model.chat_body(Request(frames, recovery_prompt(source, masked_caption), 1),
                                    prompt_logprobs=0, add_generation_prompt=False, continue_final_message=True,
                                    return_token_ids=True)
        body["messages"].append({"role": "assistant", "content": answer})
        reply = self._json(self.model.post(body))
        try:
            tokens = prompt_log_probs(reply)
        except (KeyError, TypeError, ValueError, AttributeError):
            raise self.model.error(NO_LOG_PROBS) from None
        try:
            return keyword_log_probs(tokens, answer, keywords)
        except ValueError as exc:
            raise self.model.error(str(exc)) from None

    def _count(self, text: str) -> int:
        body = {"model": self.model.server.model, "prompt": text, "add_special_tokens": False}
        try:
            return int(self._json(self.model.post(body, "//tokenize"))["count"])
        except (KeyError, TypeError, ValueError):
            raise self.model.error("its /tokenize gave no token count (vLLM's does)") from None

    def _prompt_tokens(self, frames: list[np.ndarray]) -> int:
        reply = self._json(self.model.post(self.model.chat_body(Request(frames, "", 1))))
        try:
            return int(reply["usage"]["prompt_tokens"])
        except (KeyError, TypeError, ValueError):
            raise self.model.error("a reply without usage.prompt_tokens") from None

    def _json(self, raw: bytes) -> dict:
        try:
            reply = json.loads(raw)
        except ValueError:
            reply = None
        if not isinstance(reply, dict):
            raise self.model.error(f"a reply that is not a JSON object: {raw[:200]!r}")
        return reply


def prompt_log_probs(reply: dict) -> list[tuple[str, float]]:
    """Each prompt token's text and log-probability from a vLLM reply (the first token has
    none: 0). With prompt_token_ids the token's own entry is picked; without, each entry
    must hold one (prompt_logprobs 0 asks for no alternatives)."""
    entries, ids = reply["prompt_logprobs"], reply.get("prompt_token_ids")
    if not isinstance(entries, list) or not entries:
        raise ValueError("no prompt_logprobs")
    out = []
    for i, entry in enumerate(entries):
        if entry is None:
            out.append(("", 0.0))
            continue
        if ids is not None:
            item = entry[str(ids[i])]
        elif len(entry) == 1:
            item = next(iter(entry.values()))
        else:
            raise ValueError("several log-probabilities for a prompt token and no prompt_token_ids")
        out.append((item.get("decoded_token") or "", float(item["logprob"])))
    return out


# How a tokenizer's raw pieces write white space (byte-level BPE, SentencePiece): older vLLM
# versions give the raw pieces as decoded_token, newer ones decoded text.
RAW_SPACE = str.maketrans({"\u0120": " ", "\u010a": "\n", "\u2581": " "})


def keyword_log_probs(tokens: Sequence[tuple[str, float]], answer: str, keywords: Sequence[str]) -> list[float]:
    """Each keyword's log P: the sum over the answer's tokens at the end of ``tokens``.
    Tokens are matched on their characters other than white space (decoded one at a time,
    a token may lose or keep the space before it); a token of white space alone counts for
    the keyword after it."""
    pieces = [("".join(text.translate(RAW_SPACE).split()), log_prob) for text, log_prob in tokens]
    target = "".join(answer.split())
    owner_of = [k for k, keyword in enumerate(keywords) for _ in "".join(keyword.split())]
    text, first = "", len(pieces)
    while first > 0 and len(text) < len(target):
        first -= 1
        text = pieces[first][0] + text
    if not text.endswith(target):
        raise ValueError(f"the prompt's last tokens spell {text[-len(target) - 20:]!r}, not the answer "
                         f"{answer!r}: cannot tell which tokens are the keywords")
    sums = [0.0] * len(keywords)
    end = len(target) - len(text)  # where the first token ends, once its own length is added
    for piece, log_prob in pieces[first:]:
        end += len(piece)
        sums[owner_of[end - 1 if piece else min(end, len(owner_of) - 1)]] += log_prob
    return sums


class ServerScoring(VLMScoring):
    """A model server (its ServerEngine) as a ScoringEngine: it scores where the server
    gives prompt log-probabilities, and describes the video (F.1) and picks keywords
    (F.2) through the chat API as a local VLM does."""

    def scorer(self, analysis, read_frames: ReadFrames, video_frames: Sequence[int]) -> ServerScorer:
        return ServerScorer(self.engine.model, read_frames, video_frames)
