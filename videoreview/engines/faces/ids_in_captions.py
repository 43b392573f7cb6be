"""Fill in the blanks: put identity ids into caption text (MICap's FITB step, rule-based).

Captions from a model say "someone", "a man", "the woman", "he". Given who is on screen
at the caption's time (identities ranked by how prominent their face is: large and
central first), each mention gets an id:
  * a new person ("someone", "a man", "another woman") takes the most prominent visible
    identity not yet mentioned in this caption;
  * "the man" / "the woman" refers back to the last person mentioned with that noun
    (in this caption or the ones before), else it is treated as a new person;
  * a pronoun ("he", "her", "his") refers back to the last person mentioned.
Speaking order is not known here. The original text is kept next to the filled one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

NOUNS = r"man|woman|person|boy|girl|guy|lady|child|kid|gentleman|stranger"
_MENTION = re.compile(
    rf"\b(?P<new>someone|somebody|(?:a|an|another) (?:young |old |older |younger )?(?P<new_noun>{NOUNS}))\b"
    rf"|\b(?P<def>the (?:other )?(?:young |old |older |younger )?(?P<def_noun>{NOUNS}))\b"
    r"|\b(?P<pron>he|she|him|his|her|hers|himself|herself)\b",
    re.IGNORECASE,
)
# "her" before one of these is an object ("hands her a cup"), before a noun a possessive.
_NOT_A_NOUN = {"a", "an", "the", "and", "or", "to", "in", "on", "at", "with", "from", "for", "up", "down",
               "away", "back", "out", "off", "over", "into", "as", "but", "while", "again"}


@dataclass(frozen=True)
class FilledCaption:
    time: float
    original: str
    text: str
    ids: tuple[str | None, ...]  # one per mention, in order


def fill_in(captions: Sequence[tuple[float, str]], visible_at) -> list[FilledCaption]:
    """Fill the mentions of a caption set (time-ordered (time, text) pairs).

    ``visible_at(time)`` returns the identity ids on screen then, most prominent first."""
    last_any: str | None = None
    last_by_noun: dict[str, str] = {}
    out = []
    for time, text in captions:
        visible = list(visible_at(time))
        used: list[str] = []
        ids: list[str | None] = []
        pieces: list[str] = []
        pos = 0

        def new_person() -> str | None:
            for pid in visible:
                if pid not in used:
                    return pid
            return None

        for match in _MENTION.finditer(text):
            if match.group("new"):
                pid = new_person()
                noun = (match.group("new_noun") or "").lower()
            elif match.group("def"):
                noun = match.group("def_noun").lower()
                pid = last_by_noun.get(noun) or new_person()
            else:
                noun = ""
                pid = last_any if last_any is not None else new_person()
            ids.append(pid)
            if pid is None:
                continue
            used.append(pid)
            last_any = pid
            if noun:
                last_by_noun[noun] = pid
            pieces.append(text[pos:match.start()])
            pieces.append(_replacement(match, pid, text))
            pos = match.end()
        pieces.append(text[pos:])
        out.append(FilledCaption(time=time, original=text, text="".join(pieces), ids=tuple(ids)))
    return out


def _replacement(match: re.Match, pid: str, text: str) -> str:
    word = match.group(0).lower()
    if word in ("his", "hers"):
        return f"{pid}'s"
    if word == "her":
        following = re.match(r"\s+([A-Za-z']+)", text[match.end():])
        if following and following.group(1).lower() not in _NOT_A_NOUN:
            return f"{pid}'s"
    return pid


def visibility_from_faces(faces, width: float, height: float, window: float = 0.75):
    """A ``visible_at`` for :func:`fill_in` from an Analysis's faces: the identities with a
    face within ``window`` s of the time, ranked by face area times closeness to the centre
    of the frame (in the nearest sampled frame that has them)."""
    by_time: dict[float, list] = {}
    for face in faces:
        if face.identity is not None:
            by_time.setdefault(face.time, []).append(face)
    times = sorted(by_time)

    def prominence(face) -> float:
        x, y, w, h = face.box
        dx = (x + w / 2) / width - 0.5
        dy = (y + h / 2) / height - 0.5
        return w * h * (1.0 - min(0.9, (dx * dx + dy * dy) ** 0.5))

    def visible_at(time: float) -> list[str]:
        best: dict[str, tuple[float, float]] = {}
        for t in times:
            if abs(t - time) <= window:
                for face in by_time[t]:
                    key = (abs(t - time), -prominence(face))
                    if face.identity not in best or key < best[face.identity]:
                        best[face.identity] = key
        return sorted(best, key=lambda pid: best[pid])

    return visible_at
