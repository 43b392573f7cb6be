"""The prompts of the papers, word for word where the papers give them.

ProgressCaptioner (Xue et al.), supplementary 2.2: caption generation, progression
detection (pseudo-labelling and evaluation variants) and caption matching. Kinetic-GEB+
boundary captions follow its annotation format: the subject, its status before and after.
The per-shot variants (short replies for small models on a CPU) are ours.
"""

from __future__ import annotations

from collections.abc import Sequence

# The per-shot plan's short replies (pipeline/caption_plan.py), in words: a frame's sentence
# (about 26 tokens at English's usual 1.3 tokens a word, under vlm.TOKENS_PER_FRAME_SHOT's 32)
# and a line of a boundary's subject / before / after (three lines of about 16 tokens and their
# labels, under vlm.BOUNDARY_TOKENS_SHOT's 64).
SHOT_CAPTION_WORDS = 20
SHOT_BOUNDARY_WORDS = 12


def caption_prompt(frames: int, action: str = "action", identities: Sequence[str] = (),
                   speech: Sequence[str] = (), screen_text: Sequence[str] = ()) -> str:
    """ProgressCaptioner's caption generation prompt for ``frames`` frames. With known
    identities, one line tells the model who is visible so captions use the ids (MICap's
    output style); what is said and written during the frames is given as context (the
    model sees no sound and may misread small text)."""
    lines = [
        f"These are {frames} frames extracted from a video sequence depicting {action}. "
        "Provide a detailed description for each frame.",
        "Requirement:",
        "(1) Ensure each frame's description is specific to the corresponding frame, not referencing other frames.",
        "(2) The description should focus on the specific action being performed, capturing the progression "
        "of the action. There is no need to comment on other elements, such as the background or unrelated objects.",
    ]
    extra = []
    if identities:
        extra.append(f"The people visible are {', '.join(identities)}; refer to each person by this id.")
    if speech:
        extra.append("What is said during these frames (transcript): " + " ".join(f"“{s}”" for s in speech)
                     + ". Mention it where it explains the action.")
    if screen_text:
        extra.append("Text on screen: " + ", ".join(f"“{s}”" for s in screen_text) + ".")
    lines += [f"({n}) {line}" for n, line in enumerate(extra, start=3)]
    lines.append("Reply with the following format:")
    lines.append("\n".join(f"<Frame {i}>: Your description" for i in range(1, frames + 1)))
    return "\n".join(lines)


def shot_caption_prompt(frames: int, identities: Sequence[str] = (), speech: Sequence[str] = (),
                        screen_text: Sequence[str] = ()) -> str:
    """The per-shot variant of ``caption_prompt`` (pipeline/caption_plan.py): up to 6 frames
    spread over one shot, each caption one short sentence saying how the action has
    progressed. A small model on a CPU gets SHOT_CAPTION_WORDS words a frame (vlm.py caps the
    reply at TOKENS_PER_FRAME_SHOT tokens a frame): asked for the paper's "detailed
    description", it spends the whole cap on the first frame and the others get nothing."""
    if frames == 1:  # a one-sample shot: nothing to progress from
        lines = [f"This is 1 frame from one shot of a video. Write one sentence of at most {SHOT_CAPTION_WORDS} "
                 "words: what the main subject does in it. Do not describe the background."]
    else:
        lines = [f"These are {frames} frames from one shot of a video, in time order. For each frame, write one "
                 f"sentence of at most {SHOT_CAPTION_WORDS} words: what the main subject does in that frame and how "
                 "the action has progressed since the frame before. Do not describe the background."]
    lines += _context(identities, speech, screen_text)
    lines.append("Reply with the following format:")
    lines.append("\n".join(f"<Frame {i}>: Your sentence" for i in range(1, frames + 1)))
    return "\n".join(lines)



def _context(identities: Sequence[str], speech: Sequence[str], screen_text: Sequence[str]) -> list[str]:
    """The per-shot prompt's lines of what is known besides the pixels (as caption_prompt's)."""
    lines = []
    if identities:
        lines.append(f"The people visible are {', '.join(identities)}; refer to each person by this id.")
    if speech:
        lines.append("What is said during these frames (transcript): " + " ".join(f"“{s}”" for s in speech) + ".")
    if screen_text:
        lines.append("Text on screen: " + ", ".join(f"“{s}”" for s in screen_text) + ".")
    return lines


def boundary_prompt(before: int, after: int, speech: Sequence[str] = (), screen_text: Sequence[str] = (),
                    words: int | None = None) -> str:
    """Kinetic-GEB+ style boundary caption: frames before, one at, frames after the boundary;
    what is said and written around it as context, as for frame captions. ``words``: at most
    that many words a line (the per-shot plan's short replies)."""
    context = ""
    if speech:
        context += "What is said around the boundary (transcript): " + " ".join(f"“{s}”" for s in speech) + ". "
    if screen_text:
        context += "Text on screen: " + ", ".join(f"“{s}”" for s in screen_text) + ". "
    short = f", each at most {words} words" if words else ""
    return (
        f"These are {before + after + 1} frames from a video: {before} before an event boundary, "
        f"1 at the boundary (frame {before + 1}), and {after} after it. At the boundary the dominant "
        f"subject's status changes. {context}Reply with exactly three lines{short}:\n"
        "Subject: who or what changes\n"
        "Before: the subject's status before the boundary\n"
        "After: the subject's status after the boundary"
    )


def progression_prompt(first: str, second: str, action: str = "action") -> str:
    """Progression detection (evaluation variant)."""
    return (
        "You will be provided with two image descriptions depicting an action. Your task is to determine the "
        "relationship between the actions in the two images based on the descriptions provided.\n"
        f"Action: {action} The image descriptions are: Image 1: {first} Image 2: {second}\n"
        "Choose one of the following options:\n"
        "A. Action Progression: The action has advanced from Image 1 to Image 2 (e.g., more of the task has "
        "been completed in Image 2).\n"
        "B. No Action Progression: The action remains the same between Image 1 and Image 2 (e.g., the images "
        "may show a change in viewpoint, hand position, or slight object adjustments, but the action itself "
        "has not progressed).\n"
        "C. Uncertain: It is unclear whether the action has progressed or not."
    )


def matching_prompt(captions: Sequence[str]) -> str:
    """Caption matching: the image goes before this text; the answer is one letter."""
    letters = [_letter(i) for i in range(len(captions) + 1)]
    options = [f"{letters[i]}. {c}" for i, c in enumerate(captions)]
    options.append(f"{letters[-1]}. None of the above descriptions match the image, are hard to determine, "
                   "or contain incorrect information about the image.")
    return ("Which caption best describes the image?\n" + "\n".join(options)
            + "\nReply with only the corresponding letter (A, B, C, etc.)")


def _letter(i: int) -> str:
    return chr(ord("A") + i) if i < 26 else f"A{i - 25}"
