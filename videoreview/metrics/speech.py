"""Word error rate of a transcript against a reference, and how well segment times agree.

The normaliser (applied to both sides before counting):
1. Unicode NFKC, then lower case (``casefold``);
2. hyphens and dashes become spaces ("well-known" is two words, as speech has it);
3. every other character that is not a letter, a digit, an apostrophe or a space is
   dropped (punctuation, symbols), and curly apostrophes become straight ones;
4. words are split on white space.
Numbers are left as written: "twelve" and "12" count as different words (Whisper writes
digits; references should too). This is the usual "basic" normalisation (lower case, no
punctuation), not Whisper's English normaliser, which also rewrites spellings.

WER = (substitutions + deletions + insertions) / reference words, from one Levenshtein
alignment over words.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

_DASHES = re.compile(r"[-\u2010-\u2015]")
_DROP = re.compile(r"[^\w' ]|_")


def normalise(text: str) -> list[str]:
    text = unicodedata.normalize("NFKC", text).casefold().replace("\u2019", "'").replace("\u2018", "'")
    text = _DROP.sub("", _DASHES.sub(" ", text))
    return [w.strip("'") for w in text.split() if w.strip("'")]


@dataclass(frozen=True)
class WordErrors:
    reference_words: int
    substitutions: int
    deletions: int
    insertions: int

    @property
    def errors(self) -> int:
        return self.substitutions + self.deletions + self.insertions

    @property
    def wer(self) -> float:
        return self.errors / self.reference_words if self.reference_words else float(self.errors > 0)


def word_errors(reference: str, hypothesis: str) -> WordErrors:
    ref, hyp = normalise(reference), normalise(hypothesis)
    # cost[j] = (errors, subs, dels, ins) aligning ref[:i] with hyp[:j]
    row = [(j, 0, 0, j) for j in range(len(hyp) + 1)]
    for i in range(1, len(ref) + 1):
        new = [(i, 0, i, 0)]
        for j in range(1, len(hyp) + 1):
            same = ref[i - 1] == hyp[j - 1]
            d = row[j - 1]
            diagonal = (d[0] + (not same), d[1] + (not same), d[2], d[3])
            u = row[j]
            delete = (u[0] + 1, u[1], u[2] + 1, u[3])
            left = new[j - 1]
            insert = (left[0] + 1, left[1], left[2], left[3] + 1)
            new.append(min(diagonal, delete, insert))
        row = new
    _, subs, dels, ins = row[-1]
    return WordErrors(len(ref), subs, dels, ins)


def mean_boundary_error(predicted: list[tuple[float, float]], reference: list[tuple[float, float]]) -> float | None:
    """Mean absolute difference (s) between each reference segment's start and end and the
    predicted segment that overlaps it most; None when nothing overlaps."""
    errors = []
    for start, end in reference:
        best = max(predicted, key=lambda p: min(end, p[1]) - max(start, p[0]), default=None)
        if best is not None and min(end, best[1]) - max(start, best[0]) > 0:
            errors += [abs(best[0] - start), abs(best[1] - end)]
    return sum(errors) / len(errors) if errors else None


_TIMING = re.compile(r"(\d+):(\d\d):(\d\d)[,.](\d{3})|(\d+):(\d\d)[,.](\d{3})")


def _seconds(match: re.Match) -> float:
    g = match.groups()
    if g[0] is not None:
        return int(g[0]) * 3600 + int(g[1]) * 60 + int(g[2]) + int(g[3]) / 1000
    return int(g[4]) * 60 + int(g[5]) + int(g[6]) / 1000


def parse_subtitles(text: str) -> list[tuple[float, float, str]]:
    """(start, end, text) of each cue of an SRT or WebVTT file; markup tags dropped."""
    cues = []
    for block in re.split(r"\n\s*\n", text.replace("\r\n", "\n").replace("\ufeff", "")):
        lines = block.strip().split("\n")
        for k, line in enumerate(lines):
            if "-->" in line:
                times = list(_TIMING.finditer(line))
                if len(times) >= 2:
                    body = " ".join(lines[k + 1:])
                    cues.append((_seconds(times[0]), _seconds(times[1]), re.sub(r"<[^>]*>", "", body).strip()))
                break
    return cues
