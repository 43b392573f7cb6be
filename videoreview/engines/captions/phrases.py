"""What is said and written, and who and what is seen, as the builtin captions and summaries
put it in words."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ...records import Analysis, ScreenText, TranscriptSegment


def quote(text: str, max_chars: int = 60) -> str:
    """``text`` in quotation marks, cut at a word boundary with an ellipsis when long."""
    text = " ".join(text.split())
    if len(text) > max_chars:
        text = text[:max_chars].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return f"“{text}”"


def said(analysis: Analysis, segment: TranscriptSegment, max_chars: int = 60) -> str:
    """'P2 says “The train leaves at noon.”', or 'someone says …' when nobody can be told."""
    who = analysis.person_name(segment.speaker) if segment.speaker else "someone"
    return f"{who} says {quote(segment.text, max_chars)}"


def written(spans: list[ScreenText], max_chars: int = 40) -> str:
    """'on screen: “Chapter 3”, “Exit”'."""
    return "on screen: " + ", ".join(quote(s.text, max_chars) for s in spans)


def sentence(text: str) -> str:
    """``text`` with a capital first letter and a full stop, unless it ends a sentence already
    (a quotation closing on its own . ! ? or …)."""
    text = text[:1].upper() + text[1:]
    return text if text.rstrip("”’\"'").endswith((".", "!", "?", "…")) else f"{text}."


def with_article(word: str) -> str:
    return ("an " if word[:1].lower() in "aeio" or word.lower().startswith(("un", "um", "up", "hour")) else "a ") + word


_NUMBERS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def count(n: int, thing: str, things: str) -> str:
    return f"{_NUMBERS[n] if n < len(_NUMBERS) else n} {thing if n == 1 else things}"


# COCO labels whose plural is not the label + "s"
_PLURALS = {"person": "people", "bus": "buses", "knife": "knives", "mouse": "mice", "sheep": "sheep", "skis": "skis",
            "couch": "couches", "sandwich": "sandwiches", "wine glass": "wine glasses", "bench": "benches",
            "toothbrush": "toothbrushes", "dining table": "dining tables", "hair drier": "hair driers"}


def objects_phrase(objects: Sequence[tuple[str, int]], most: int = 3) -> str:
    """"two cars and a dog": the objects seen, most numerous first, at most ``most`` labels."""
    ordered = sorted(objects, key=lambda lc: (-lc[1], lc[0]))[:most]
    return listing([with_article(label) if n == 1 else count(n, label, _PLURALS.get(label, label + "s"))
                    for label, n in ordered])


def listing(parts: Sequence[str]) -> str:
    """"a, b and c"."""
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def doing_phrase(status: str) -> str:
    """A status said after a person: "walking", "with arms raised"."""
    return "with arms raised" if status == "arms raised" else status


def unnamed_people(doing: Sequence[str], seen: int = 0) -> str:
    """"a person walking", "two people sitting", "three people: two standing and one running";
    where more people are ``seen`` (by the object detector) than bodies whose status is known,
    "six people, one walking"."""
    counts = sorted(Counter(map(doing_phrase, doing)).items(), key=lambda sc: (-sc[1], sc[0]))
    parts = [f"{_NUMBERS[n] if n < len(_NUMBERS) else n} {status}" for status, n in counts]
    listed = listing(parts)
    if seen > len(doing):
        return f"{count(seen, 'person', 'people')}, {listed}"
    if len(doing) == 1:
        return f"a person {doing_phrase(doing[0])}"
    people = count(len(doing), "person", "people")
    return f"{people} {counts[0][0]}" if len(counts) == 1 else f"{people}: {listed}"
