"""What the object detector saw, as summaries and reports put it: per label how many, when,
and what is in view at a moment; and whether a text already names a label.

How many: the most tracks of a label on screen at the same time. A track follows one
object through one shot, so the same cup over three shots is three tracks but one cup,
and two cups on the table together are two whatever the cuts: the count a reader can
check on the picture. Every track of the Analysis is a sure one (pipeline/stages/objects.py).

People: "person" tracks count as people only where the Analysis has no faces and no
identities; elsewhere the identities say who is there, and the tracks are left out.

Shot tags (what an image-text model names in each shot, records.ShotTag) are said the same
way, after the objects: per name when (its shots), without a count (a tag says a shot
shows a parrot, not how many). A name the object tracks already give is not said again:
the same word, or one a kind of the other in WordNet ("sports car" and "car", "parrot" and
"bird"); nor "person", which the people part of a summary says.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..coco_kinds import COCO_KINDS
from ..engines.captions.phrases import listing, objects_phrase
from ..engines.captions.subjects import same_kind
from ..records import Analysis, ObjectTrack
from ..taxonomy import taxonomy
from ..timecode import format_span

PERSON = "person"
MERGE_SECONDS = 1.0  # a label's tracks this close join one span of when it is seen
MOST_LABELS = 4  # labels a summary names, most seen first
MOST_SPANS = 2  # a label seen in more spans than this is named without times
WHOLE_SHARE = 0.9  # a label on screen this share of the video is named without times


@dataclass(frozen=True)
class Seen:
    """One label the detector saw: how many at most at once, and when."""

    label: str
    count: int  # the most of its tracks on screen together
    spans: tuple[tuple[float, float], ...]  # when any is on screen, merged, in time order

    @property
    def seconds(self) -> float:
        return sum(end - start for start, end in self.spans)

    def phrase(self) -> str:
        """ "a cup", "two cups", "three people"."""
        return objects_phrase([(self.label, self.count)])


def counts_people(analysis: Analysis) -> bool:
    """Whether "person" tracks stand for the video's people: no faces, no identities."""
    return not analysis.identities and not analysis.faces


def counted_tracks(analysis: Analysis) -> list[ObjectTrack]:
    """The tracks summaries count: all, less the "person" ones where identities say who is there."""
    people = counts_people(analysis)
    return [t for t in analysis.object_tracks if people or t.label != PERSON]


def seen_objects(analysis: Analysis) -> list[Seen]:
    """Each counted label, most seen first: the most at once, then the longest on screen,
    then the first seen."""
    by_label: dict[str, list[ObjectTrack]] = {}
    for track in counted_tracks(analysis):
        by_label.setdefault(track.label, []).append(track)
    seen = [Seen(label, _most_at_once(tracks), _merged([(t.start, t.end) for t in tracks]))
            for label, tracks in by_label.items()]
    return sorted(seen, key=lambda s: (-s.count, -round(s.seconds, 3), s.spans[0][0], s.label))


def people_seen(analysis: Analysis) -> int:
    """The most people on screen at once by the detector, where they count (counts_people); else 0."""
    return next((s.count for s in seen_objects(analysis) if s.label == PERSON), 0)


def in_view(analysis: Analysis, seconds: float) -> list[tuple[str, int]]:
    """(label, how many) of the counted tracks on screen at ``seconds`` (start <= t < end),
    most numerous first."""
    counts: dict[str, int] = {}
    for track in counted_tracks(analysis):
        if track.start <= seconds < track.end:
            counts[track.label] = counts.get(track.label, 0) + 1
    return sorted(counts.items(), key=lambda lc: (-lc[1], lc[0]))


def inventory(analysis: Analysis, said: str = "", most: int = MOST_LABELS) -> str:
    """"a motorcycle (00:00–00:06), two cups and a dog": the objects seen besides people,
    at most ``most`` labels, each with when it is seen where that is one or two spans of
    a part of the video; "" when none was seen. A label that ``said`` (the text before)
    names in the very words, with no time to add ("a tie" seen throughout), is left out."""
    return _listed(analysis, [s for s in seen_objects(analysis) if s.label != PERSON], said, most)


def tagged(analysis: Analysis) -> list[Seen]:
    """Each name of the shot tags, its shots' spans merged: the longest seen first, then
    the first seen. Counted once (a tag says what a shot shows, not how many)."""
    by_name: dict[str, list[tuple[float, float]]] = {}
    for tag in analysis.shot_tags:
        by_name.setdefault(tag.name, []).append((tag.start, tag.end))
    seen = [Seen(name, 1, _merged(spans)) for name, spans in by_name.items()]
    return sorted(seen, key=lambda s: (-round(s.seconds, 3), s.spans[0][0], s.label))


def tag_inventory(analysis: Analysis, said: str = "", most: int = MOST_LABELS) -> str:
    """"a parrot (00:00–00:14) and a beach": what the shot tags name that the object
    tracks do not (same_thing) and that is not a person, as ``inventory`` says objects."""
    labels = {t.label for t in analysis.object_tracks}
    fresh = [s for s in tagged(analysis)
             if s.label != PERSON and not any(same_thing(label, s.label) for label in labels)]
    return _listed(analysis, fresh, said, most)


def tags_at(analysis: Analysis, seconds: float, text: str = "", shown: Iterable[str] = ()) -> list[str]:
    """The names the shot tags give the shot at ``seconds`` (start <= t < end), most probable
    first, less a person, those ``text`` says already (``says``) and those the object labels
    ``shown`` give (same_thing)."""
    shown = list(shown)
    return [t.name for t in sorted(analysis.shot_tags, key=lambda t: -t.score) if t.start <= seconds < t.end
            and t.name != PERSON and not says(text, t.name) and not any(same_thing(label, t.name) for label in shown)]


def seen_phrase(things: Sequence[tuple[str, int]], names: Sequence[str] = ()) -> str:
    """"two cups, a dog and a beach": objects (label, how many), most numerous first, then
    shot tags' names in their order."""
    ordered = sorted(things, key=lambda lc: (-lc[1], lc[0]))
    return listing([objects_phrase([lc]) for lc in ordered] + [objects_phrase([(name, 1)]) for name in names])


def same_thing(label: str, name: str) -> bool:
    """Whether an object track's ``label`` and a shot tag's ``name`` say one thing: the same
    word, another word for the label (coco_kinds: "sofa" for "couch"), or one a kind of the
    other in WordNet ("sports car" and "car", "parrot" and "bird", "animal" and "dog")."""
    entry = COCO_KINDS.get(label)
    if name == label or (entry is not None and name in entry.words):
        return True
    tax = taxonomy()
    # A label filed under its nearest hypernyms (the giraffe under "ruminant") has only those:
    # a name is then a kind of it only by being above them, never below.
    own = entry is None or entry.under is None
    labels = set(entry.synsets()) if entry is not None else set(tax.synsets(label))
    named = COCO_KINDS[name].synsets() if name in COCO_KINDS else tuple(tax.synsets(name))
    for l_synset in labels:
        for n_synset in named:
            if n_synset in tax.ancestors(l_synset) or (own and l_synset in tax.ancestors(n_synset)):
                return True
    return False


def _listed(analysis: Analysis, seen: list[Seen], said: str, most: int) -> str:
    """``seen`` as a list for a sentence, at most ``most`` of them: see ``inventory``."""
    duration = analysis.video.duration
    entries = []
    for s in seen:
        timed = len(s.spans) <= MOST_SPANS and not (duration > 0 and s.seconds >= WHOLE_SHARE * duration)
        if timed or not re.search(rf"\b{re.escape(s.phrase())}\b", said, re.IGNORECASE):
            entries.append(s.phrase() + (f" ({', '.join(format_span(a, b) for a, b in s.spans)})" if timed else ""))
    parts = entries[:most]
    if len(entries) > most:
        parts.append(f"{len(entries) - most} more kind{'s' if len(entries) - most > 1 else ''}")
    return listing(parts)


_SPLIT = re.compile(r"[,;:.()]|\b(?:and|with|wearing|then|in|on|to|until|of)\b", re.IGNORECASE)
_DETERMINER = re.compile(r"^(?:an?|the|one|two|three|four|five|six|seven|eight|nine|\d+)\s+", re.IGNORECASE)


def named(text: str, label: str) -> bool:
    """Whether ``text`` already says ``label``: its word or plural ("cup", "cups", "people"),
    or a thing of its broad kind that the builtin captions said instead of it (an
    "espresso" for a cup, a "moped" for a motorcycle: subjects.same_kind)."""
    words = (label, objects_phrase([(label, 2)]).split(" ", 1)[1])  # "two cups" -> "cups"
    if any(re.search(rf"\b{re.escape(w)}\b", text, re.IGNORECASE) for w in words):
        return True
    for chunk in _SPLIT.split(text):
        chunk = _DETERMINER.sub("", chunk.strip())
        if chunk and (_same_kind(label, chunk) or _same_kind(label, chunk[:1].lower() + chunk[1:])):
            return True
    return False


def says(text: str, name: str) -> bool:
    """Whether ``text`` already says a shot tag's ``name``: its word or plural, or a thing
    it is a kind of or that is a kind of it (same_thing: "a macaw" says "parrot"). Stricter
    than ``named``: a dog in the text does not say a parrot."""
    words = (name, objects_phrase([(name, 2)]).split(" ", 1)[1])
    if any(re.search(rf"\b{re.escape(w)}\b", text, re.IGNORECASE) for w in words):
        return True
    for chunk in _SPLIT.split(text):
        chunk = _DETERMINER.sub("", chunk.strip()).lower()
        if chunk and _same_thing(chunk, name):
            return True
    return False


@functools.lru_cache(maxsize=4096)
def _same_thing(words: str, name: str) -> bool:
    return same_thing(words, name)


@functools.lru_cache(maxsize=4096)
def _same_kind(label: str, words: str) -> bool:
    return same_kind(label, words)  # the captions repeat themselves: each pair is looked up once


def _most_at_once(tracks: list[ObjectTrack]) -> int:
    # A track ends at the first sample after its last, so one that ends when another starts is not beside it.
    events = sorted([(t.start, 1) for t in tracks] + [(t.end, -1) for t in tracks])
    now = most = 0
    for _, step in events:
        now += step
        most = max(most, now)
    return max(most, 1)


def _merged(spans: list[tuple[float, float]]) -> tuple[tuple[float, float], ...]:
    out: list[tuple[float, float]] = []
    for start, end in sorted(spans):
        if out and start - out[-1][1] <= MERGE_SECONDS:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return tuple(out)
