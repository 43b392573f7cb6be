"""What a ViSIL scorer is: given what a reader sees (the whole video, or a summary's
keyframes and text) and a caption with its keywords masked, how likely each keyword is.

The prompts are the ViSIL paper's (Appendix F): F.1 for the reference description, F.2
for keyword extraction, F.4 for writing a summary, F.6 for recovery. The summary package
does the arithmetic; the engines here only give probabilities and token counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ..base import Engine

MAX_KEYWORDS = 20
MASK = "[MASK]"

CAPTION_PROMPT = (
    "You are a video content analyst. Your task is to generate a single, detailed, and objective descriptive "
    "paragraph for the provided video file. Please ensure your description faithfully includes, in chronological "
    "order: \u2022 Setting(s): Describe the environment(s) where the video takes place (e.g., indoor/outdoor, "
    "specific locations if identifiable). \u2022 Subjects and Objects: Highlight the key people, animals, or "
    "significant objects. Include details on appearance, clothing, expressions, and notable features. \u2022 "
    "Sequence of Events: Provide a clear, step-by-step account of the actions and events as they unfold from "
    "beginning to end. \u2022 Key Visual Details: Note important visual information such as lighting, weather, or "
    "significant on-screen elements. \u2022 OCR (Optical Character Recognition): Transcribe any clearly visible and "
    "legible text seen in the video (e.g., signs, labels, graphics). Constraints: \u2022 Output only the "
    "descriptive paragraph\u2014no introductions, explanations, or bullet points. \u2022 Do NOT include "
    "interpretation, speculation, or information that cannot be directly observed in the video. \u2022 Maintain an "
    "objective and neutral tone throughout."
)
KEYWORD_PROMPT = (
    "Extract up to 20 keywords from the provided paragraph by selecting the most distinctive descriptors"
    "\u2014specifically objects, motions, or events\u2014that are directly relevant to the video content. "
    "Exclude the word \u201cvideo\u201d as a keyword. Include each remaining keyword only once, using the "
    "original word form as they appear in the paragraph (do not apply stemming or lemmatization), and ensure "
    "all keywords are presented as a single lowercase word. Arrange the keywords sequentially as they appear "
    "in the paragraph. If fewer than 20 suitable keywords are identifiable, return only those present. "
    "Avoid duplicates. Output a list of words as a JSON array, for example: [\u201cdog\u201d, \u201cjump\u201d, "
    "\u201cfrisbee\u201d, \u201cpark\u201d]"
)
# F.4, for a model that sees the video as sampled frames rather than as a video file: the
# inputs are described as such; the guidelines and constraints are the paper's.
SUMMARY_GUIDELINES = (
    "Your task is to write a concise, narrative summary. Use the video frames as your primary source to understand "
    "the motion, transitions, and actions that happen between the static keyframes. The keyframes serve as the "
    "fixed anchor points for your narrative. Guidelines: \u2022 Refer to each keyframe chronologically using "
    "placeholders: {placeholders}. \u2022 Your text must form the narrative \u201cglue.\u201d Describe only the "
    "essential actions leading up to, between, and following the keyframes. \u2022 Do not describe the visual "
    "content of the keyframes themselves. The placeholders represent those visual moments; your role is to explain "
    "the transitions connecting them. \u2022 Example structure: \u201cThe clip opens with [action] leading to "
    "[KEYFRAME1]\u2026 [action between frames]\u2026 resulting in [KEYFRAME{n}]\u2026\u201d"
)
SUMMARY_NO_KEYFRAMES = (
    "Your task is to write a concise, narrative summary. Describe the essential actions, transitions, or scene "
    "changes in chronological order to form a coherent story from start to finish."
)
SUMMARY_CONSTRAINTS = (
    " Constraints: \u2022 The output must be a short paragraph of 2-3 sentences. \u2022 Your output should be the "
    "summary text ONLY."
)
RECOVERY_INSTRUCTION = (
    "Guess all [MASK] words originally representing any words describing the video, e.g., first_guess "
    "second_guess. Return only the answers, without any explanation. Do not use quotes or commas; separate "
    "tokens with a single space."
)


@dataclass(frozen=True)
class Source:
    """What the scorer sees: the whole video, or a summary (its text and keyframes)."""

    kind: str  # "video" or "summary"
    text: str = ""
    keyframe_frames: tuple[int, ...] = ()

    @property
    def images(self) -> int:
        return len(self.keyframe_frames)


def frames_shown(source: Source, video_frames: tuple[int, ...]) -> tuple[int, ...]:
    """The frame indices a scorer shows for ``source``: ``video_frames`` for the video, a
    summary's keyframes for a summary."""
    if source.kind == "video":
        return video_frames
    if source.kind == "summary":
        return tuple(source.keyframe_frames)
    raise ValueError(f"unknown source kind {source.kind!r}")


def recovery_prompt(source: Source, masked_caption: str) -> str:
    """F.6's text for ``source``: what is given (the images come separately, in order),
    the masked caption, and the task."""
    if source.kind == "video":
        given = "Given the video frames."
    else:
        tldr = f"a textual TLDR describing a video: {source.text}"
        n = source.images
        if n == 0:
            given = f"Given {tldr}."
        elif n == 1:
            given = f"Given the single keyframe image [KEYFRAME1] extracted from a video and {tldr}."
        else:
            names = ", ".join(f"[KEYFRAME{i + 1}]" for i in range(n - 1)) + f", and [KEYFRAME{n}]"
            given = (f"Given the {n} keyframe images {names} extracted from a video in the correct sequential order "
                     f"and {tldr}.")
    return (f"You are asked to recover masked words that describe the content of a video. {given} "
            f"Additionally, you are given the masked caption of the video: {masked_caption}. {RECOVERY_INSTRUCTION}")


class Scorer(Protocol):
    name: str  # shown with every score: scores of different scorers are never compared
    approximate: bool  # True for the builtin stand-in, labelled as such wherever shown

    def keyword_log_probs(self, keywords: Sequence[str], masked_caption: str, source: Source) -> list[float]:
        """log P(k_i | source, masked caption) for each keyword, natural log, <= 0."""
        ...

    def tokens(self, source: Source) -> int:
        """tau: the scorer's input tokens for ``source`` (text tokens + tokens per image)."""
        ...


class ScoringEngine(Engine, Protocol):
    """What the registry makes for the "scoring" capability: scorers for one video at a
    time, and, where a language model is behind it, the reference description (F.1) and
    the keywords (F.2) too."""

    loading: str  # what the user is told while it loads
    describes: bool  # False: the caller builds the reference and the keywords itself

    def scorer(self, analysis, read_frames, video_frames: Sequence[int]) -> Scorer: ...

    def describe(self, frames: Sequence) -> str: ...

    def keywords(self, text: str) -> list[str]: ...


def summary_prompt(video_images: int, keyframes: int) -> str:
    """F.4's text for a model shown ``video_images`` frames of the video, then
    ``keyframes`` keyframes (the images come separately, in that order)."""
    given = (f"You are a visual narrative analyst. You will be provided with: \u2022 The video: the first "
             f"{video_images} images, frames sampled in order from the complete motion clip.")
    if keyframes == 0:
        return f"{given} {SUMMARY_NO_KEYFRAMES}{SUMMARY_CONSTRAINTS}"
    placeholders = ", ".join(f"[KEYFRAME{i + 1}]" for i in range(keyframes))
    given += (" \u2022 Keyframes: the last image, a static image extracted from the video." if keyframes == 1 else
              f" \u2022 Keyframes: the last {keyframes} images, static images extracted from the video.")
    return f"{given} {SUMMARY_GUIDELINES.format(placeholders=placeholders, n=keyframes)}{SUMMARY_CONSTRAINTS}"
