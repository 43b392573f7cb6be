"""Reading model replies robustly: one bad line never costs the other frames' captions.

The ProgressCaptioner reference script asserts that a reply has exactly N ``<Frame i>:``
lines and drops the whole clip otherwise. Models do not always comply: they number from
0, write "Frame 1:" or "**Frame 1**:", skip a frame, repeat one, wrap a description over
several lines, or stop mid-sentence at the token cap. Here every frame gets what can be
recovered and None only when the reply really has nothing for it.
"""

from __future__ import annotations

import re

# "<Frame 2>:", "Frame 2:", "**Frame 2:**", "<Frame 2> -", "[Frame 2]" ...
_FRAME = re.compile(r"^[\s>*#\-\[<(]*frame\s*(\d+)\s*[>\]):*]*\s*[:\-\u2013.]?\s*\**\s*", re.IGNORECASE | re.MULTILINE)


def parse_frame_captions(reply: str, frames: int) -> list[str | None]:
    """One caption (or None) per frame 1..``frames`` from a reply to the caption prompt."""
    marks = list(_FRAME.finditer(reply))
    numbers = [int(m.group(1)) for m in marks]
    # A reply numbered from 0 (0..N-1) is shifted to 1..N.
    offset = 1 if numbers and min(numbers) == 0 and max(numbers) <= frames - 1 else 0
    found: dict[int, str] = {}
    for k, mark in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(reply)
        text = _clean(reply[mark.end():end])
        index = int(mark.group(1)) + offset
        if 1 <= index <= frames and text and index not in found:  # first answer for a frame wins
            found[index] = text
    if not marks and frames == 1 and _clean(reply):
        found[1] = _clean(reply)  # a single frame answered without its label
    return [found.get(i) for i in range(1, frames + 1)]


def _clean(text: str) -> str:
    text = re.sub(r"\s+", " ", text.replace("**", "")).strip()
    return text.strip(" :-")


def parse_boundary_caption(reply: str) -> tuple[str, str, str] | None:
    """(subject, before, after) from a reply to the boundary prompt; None when any is missing."""
    fields = {}
    for key in ("subject", "before", "after"):
        match = re.search(rf"^[\s*\-]*{key}[\s*]*[:\-]\s*\**\s*(.+)$", reply, re.IGNORECASE | re.MULTILINE)
        if match:
            fields[key] = _clean(match.group(1))
    if len(fields) < 3 or not all(fields.values()):
        return None
    return fields["subject"], fields["before"], fields["after"]


def parse_choice(reply: str, options: int) -> int | None:
    """Index of the option letter a judge replied with (A -> 0), or None."""
    match = re.search(r"\b([A-Z])\b", reply.strip().upper())
    if not match:
        return None
    index = ord(match.group(1)) - ord("A")
    return index if 0 <= index < options else None
