"""The prompts of the papers, word for word where the papers give them.

ProgressCaptioner (Xue et al.), supplementary 2.2: caption generation, progression
detection (pseudo-labelling and evaluation variants) and caption matching. Kinetic-GEB+
boundary captions follow its annotation format: the subject, its status before and after.
"""

from __future__ import annotations

from collections.abc import Sequence


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


def boundary_prompt(before: int, after: int, speech: Sequence[str] = (), screen_text: Sequence[str] = ()) -> str:
    """Kinetic-GEB+ style boundary caption: frames before, one at, frames after the boundary;
    what is said and written around it as context, as for frame captions."""
    context = ""
    if speech:
        context += "What is said around the boundary (transcript): " + " ".join(f"“{s}”" for s in speech) + ". "
    if screen_text:
        context += "Text on screen: " + ", ".join(f"“{s}”" for s in screen_text) + ". "
    return (
        f"These are {before + after + 1} frames from a video: {before} before an event boundary, "
        f"1 at the boundary (frame {before + 1}), and {after} after it. At the boundary the dominant "
        f"subject's status changes. {context}Reply with exactly three lines:\n"
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
