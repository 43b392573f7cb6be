"""The builtin ViSIL scorer: no language model, an approximation, labelled as such.

A VLM scorer reads the summary and guesses the masked words. Without one, P(k | X) is
estimated from the evidence the builtin engines extracted from what X shows:

- the whole video: every sampled frame's classifier labels (weighted by the classifier's
  probability), the phrases of its builtin caption (shot, framing, who is where, camera
  and subject motion), every boundary's subject / before / after, every identity's name;
- a summary: the phrases and words of its text, plus that same evidence at each of its
  keyframes (labels, caption, identities on screen).

Each keyword is matched to each piece of evidence by the bundled text embedding (cosine
similarity; a keyword found verbatim as a word of the evidence counts as 1), and the best
weighted match is calibrated to a probability with a floor:

    P(k | X) = FLOOR + (CEIL - FLOOR) * max_e  weight_e * ramp(similarity(k, e))

ramp rises from 0 at UNRELATED (what all-MiniLM-L6-v2 gives unrelated words) to 1 at
SAME. The masked caption's context is not used. So a summary loses what its text and
keyframes do not mention; it cannot credit inference a language model would make. Scores
are comparable with each other, never with a VLM scorer's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...records import Analysis, FrameCaption
from ..embeddings.minilm import TextEmbedder
from .protocol import Source

FLOOR = 0.01  # a keyword nothing supports: one guess among ~100 plausible words
CEIL = 0.95  # even verbatim evidence is not certainty
UNRELATED = 0.35  # cosine of unrelated words under all-MiniLM-L6-v2 is 0.0-0.35 ...
SAME = 0.85  # ... of a word and its synonym or the phrase naming it, 0.8-1.0
NEAR_SECONDS = 0.6  # a caption or face this close to a keyframe is what the keyframe shows

_SPLIT = re.compile(r"[.;:,()\[\]/]|\band\b|\bthen\b")
_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*", re.UNICODE)
_PLACEHOLDER = re.compile(r"\[KEYFRAME\d+\]")
_SHOT = re.compile(r"^shot \d+$")


@dataclass(frozen=True)
class Evidence:
    phrase: str
    weight: float  # 1 for words a reader sees; the classifier's probability for its labels


def text_evidence(text: str, weight: float = 1.0) -> list[Evidence]:
    """Short phrases of ``text`` and its words of three letters or more."""
    text = _PLACEHOLDER.sub(" ", text)
    phrases = {p.strip().lower() for p in _SPLIT.split(text)}
    words = {w.lower() for w in _WORD.findall(text) if len(w) >= 3}
    return [Evidence(p, weight) for p in sorted(phrases | words) if p and not _SHOT.match(p)]


def caption_evidence(caption: FrameCaption) -> list[Evidence]:
    return text_evidence(caption.text) + [Evidence(name.lower(), p) for name, p in caption.labels]


class BuiltinScorer:
    name = f"builtin@1 ({TextEmbedder.name})"
    approximate = True

    def __init__(self, analysis: Analysis, embedder: TextEmbedder | None = None):
        self.analysis = analysis
        self.embedder = embedder or TextEmbedder()
        self._vectors: dict[str, np.ndarray] = {}
        self._captions = sorted(analysis.captions, key=lambda c: c.time)
        self._caption_times = np.array([c.time for c in self._captions])
        self._frame_of_time = {kf.frame: kf.time for kf in analysis.keyframes}
        self._video = self._video_evidence()

    # -- evidence --------------------------------------------------------------------
    def _names(self, ids: set[str]) -> list[Evidence]:
        out = []
        for identity in self.analysis.identities:
            if identity.id in ids:
                out += [Evidence(identity.id.lower(), 1.0)] + ([Evidence(identity.name.lower(), 1.0)]
                                                              if identity.name else [])
        return out

    def _video_evidence(self) -> list[Evidence]:
        out: list[Evidence] = []
        for caption in self._captions:
            out += caption_evidence(caption)
        for b in self.analysis.boundaries:
            if b.caption is not None:
                out += text_evidence(f"{b.caption.subject}; {b.caption.before}; {b.caption.after}")
        return out + self._names({i.id for i in self.analysis.identities})

    def _time_of(self, frame: int) -> float:
        if frame in self._frame_of_time:
            return self._frame_of_time[frame]
        return frame / self.analysis.video.fps if self.analysis.video.fps else 0.0

    def _seen_at(self, frame: int) -> tuple[FrameCaption | None, set[str]]:
        """The builtin caption of a keyframe (the sampled frame at it) and who is on screen."""
        time = self._time_of(frame)
        caption = None
        if len(self._caption_times):
            nearest = int(np.argmin(np.abs(self._caption_times - time)))
            if abs(self._caption_times[nearest] - time) <= NEAR_SECONDS:
                caption = self._captions[nearest]
        return caption, {f.identity for f in self.analysis.faces if f.identity and abs(f.time - time) <= NEAR_SECONDS}

    def keyframe_evidence(self, frame: int) -> list[Evidence]:
        caption, visible = self._seen_at(frame)
        return (caption_evidence(caption) if caption else []) + self._names(visible)

    def evidence(self, source: Source) -> list[Evidence]:
        if source.kind == "video":
            return self._video
        out = text_evidence(source.text)
        for frame in source.keyframe_frames:
            out += self.keyframe_evidence(frame)
        return out

    # -- Scorer ------------------------------------------------------------------------
    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        new = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if new:
            for text, vector in zip(new, self.embedder.embed(new)):
                self._vectors[text] = vector
        return np.stack([self._vectors[t] for t in texts]) if texts else np.zeros((0, self.embedder.dim), np.float32)

    def keyword_log_probs(self, keywords: Sequence[str], masked_caption: str, source: Source) -> list[float]:
        evidence = self.evidence(source)
        if not evidence:
            return [math.log(FLOOR)] * len(keywords)
        phrases = list(dict.fromkeys(e.phrase for e in evidence))
        weight = {p: 0.0 for p in phrases}
        for e in evidence:
            weight[e.phrase] = max(weight[e.phrase], e.weight)
        words = [{w.lower() for w in _WORD.findall(p)} for p in phrases]
        # In float64: a float32 product's last bits depend on the matrix's shape, so the same
        # keyword and phrase would score differently beside other evidence.
        vectors = self._embed([k.lower() for k in keywords]).astype(np.float64)
        similarity = vectors @ self._embed(phrases).astype(np.float64).T
        for i, keyword in enumerate(keywords):
            for j, phrase_words in enumerate(words):
                if keyword.lower() in phrase_words:
                    similarity[i, j] = 1.0
        ramp = np.clip((similarity - UNRELATED) / (SAME - UNRELATED), 0.0, 1.0)
        support = (ramp * np.array([weight[p] for p in phrases])[None, :]).max(axis=1)
        return [math.log(FLOOR + (CEIL - FLOOR) * float(s)) for s in support]

    def tokens(self, source: Source) -> int:
        """The summary text's word pieces plus, per keyframe, those of the evidence the
        builtin engines read from that image (its caption and labels): what this scorer
        takes in for each image."""
        count = self.embedder.count_tokens(_PLACEHOLDER.sub(" ", source.text).strip())
        for frame in source.keyframe_frames:
            caption, visible = self._seen_at(frame)
            seen = [caption.text, *(name for name, _ in caption.labels)] if caption else []
            count += self.embedder.count_tokens(" ".join(seen + [e.phrase for e in self._names(visible)]))
        return count


class BuiltinScoring:
    """The builtin scorer as a ScoringEngine: it neither describes nor picks keywords."""

    name = "builtin"
    version = "1"
    device = "cpu"
    device_note: str | None = None
    loading = "loading the text embedding"
    describes = False

    def __init__(self, device: str = "cpu") -> None:
        pass  # made as every engine is; it runs on the CPU (``device``)

    def scorer(self, analysis: Analysis, read_frames=None, video_frames=()) -> BuiltinScorer:
        return BuiltinScorer(analysis)

    def describe(self, frames) -> str:
        raise NotImplementedError("the builtin scorer does not describe videos")

    def keywords(self, text: str) -> list[str]:
        return []

    def release(self) -> None:
        pass
