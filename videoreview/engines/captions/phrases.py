"""What is said and written, as the builtin captions and summaries put it in words."""

from __future__ import annotations

from ...records import Analysis, TextSpan, TranscriptSegment


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


def written(spans: list[TextSpan], max_chars: int = 40) -> str:
    """'on screen: “Chapter 3”, “Exit”'."""
    return "on screen: " + ", ".join(quote(s.text, max_chars) for s in spans)


def sentence(text: str) -> str:
    """``text`` with a capital first letter and a full stop, unless it ends a sentence already
    (a quotation closing on its own . ! ? or …)."""
    text = text[:1].upper() + text[1:]
    return text if text.rstrip("”’\"'").endswith((".", "!", "?", "…")) else f"{text}."
