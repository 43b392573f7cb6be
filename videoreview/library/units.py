"""The searchable units of an Analysis: short texts with the span of video they describe.

Kinds: ``caption`` (a frame caption, until the next caption or cut), ``boundary`` (an
event boundary's subject / before / after, around its time), ``summary`` (the whole
video), ``identity`` (a person's id and name, over their appearances), ``labels`` (the
builtin classifier's labels at a frame with what the sure ones are kinds of, "macaw" with
"parrot, bird, animal", over the caption's span), ``speech`` (what is said,
a subtitle cue at a time, with the speaker's name: a phrase finds the moment it is said),
``text`` (a line of on-screen text, while it is shown), ``objects`` (a detected object's
COCO label with what it is a kind of, "car" with "motor vehicle, wheeled vehicle, vehicle",
over its track; overlapping or touching tracks of one label are one unit, so two dogs
playing for a minute are one moment, not two), ``tags`` (a name an image-text model gave
a shot, records.ShotTag, with what it is a kind of as for objects, "parrot (bird,
animal)", over the shot; shots one after another with the same name are one unit),
``file`` (the file name's words, the whole video), ``note`` (a reviewer's note, at its
frame or over its range; the unit keeps the note, so the catalog can store its tag,
status and author for filters). Each unit lists the identities on screen during it, so a
search can ask for "scenes with P2".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from ..records import Analysis, Note, ObjectTrack, ShotTag
from ..summary.builder import PLACEHOLDER
from ..summary.export.subtitles import speech_cues

BOUNDARY_CONTEXT = 1.0  # seconds either side of a boundary that its caption describes
SURE_LABEL = 0.2  # a classifier label this probable (or the top one) adds its kinds to the labels unit
KINDS = ("caption", "labels", "objects", "tags", "boundary", "speech", "text", "summary", "identity", "file", "note")
# A note with only a drawing still needs a text: without a unit it would be missing from
# the library's list of open notes.
DRAWING_ONLY = "(a drawing)"


@dataclass(frozen=True)
class Unit:
    kind: str
    start: float
    end: float
    text: str
    people: tuple[str, ...] = ()  # identity ids on screen during the span
    note: Note | None = None  # kind "note": the note itself (its id, tag, status, author, frames)


def file_words(path: str) -> str:
    """A file name as words: "holiday_2024-beach.MP4" -> "holiday 2024 beach"."""
    return " ".join(re.split(r"[\W_]+", Path(path).stem)).strip()


def labels_text(labels: tuple[tuple[str, float], ...]) -> str:
    """The classifier's labels, then what the top one and the sure ones are kinds of."""
    from ..taxonomy import taxonomy

    kinds: list[str] = []
    for n, (name, probability) in enumerate(labels):
        if n == 0 or probability >= SURE_LABEL:
            kinds += [k for k in taxonomy().kinds(name) if k not in kinds]
    names = ", ".join(name for name, _ in labels)
    return f"{names} ({', '.join(kinds)})" if kinds else names


def objects_text(label: str) -> str:
    """A detector's COCO label, then the WordNet synset it means when that is not the label's
    own word, more names for it and what it is a kind of (coco_kinds.py): "couch (sofa, seat,
    furniture, furnishing)", "giraffe (ruminant, ...)". A label not in the table (another
    detector's) is looked up by name, as the classifier's labels are."""
    from ..coco_kinds import COCO_KINDS
    from ..taxonomy import taxonomy

    entry = COCO_KINDS.get(label)
    if entry is None:
        said = taxonomy().kinds(label)
    else:
        kinds = taxonomy().synset_kinds(entry.synsets())
        own = kinds[:1] if entry.under is None else []  # the synset's own name: "sofa" for "couch"
        said = own + list(entry.words) + kinds[len(own):]
    words: list[str] = []
    for word in said:
        if word != label and word not in words:
            words.append(word)
    return f"{label} ({', '.join(words)})" if words else label


def object_spans(tracks: tuple[ObjectTrack, ...]) -> list[tuple[str, float, float]]:
    """(label, start, end) of the tracks, those of one label that overlap or touch merged
    into one span, by label then time."""
    return _merged((t.label, t.start, t.end) for t in tracks)


def tag_spans(tags: tuple[ShotTag, ...]) -> list[tuple[str, float, float]]:
    """(name, start, end) of the shot tags, the shots one name is given in a row (their
    spans touch) merged into one span, by name then time."""
    return _merged((t.name, t.start, t.end) for t in tags)


def _merged(spans) -> list[tuple[str, float, float]]:
    out: list[tuple[str, float, float]] = []
    for name, start, end in sorted(spans):
        if out and out[-1][0] == name and start <= out[-1][2]:
            out[-1] = (name, out[-1][1], max(out[-1][2], end))
        else:
            out.append((name, start, end))
    return out


def units_of(analysis: Analysis) -> list[Unit]:
    duration = analysis.video.duration
    captions = sorted(analysis.captions, key=lambda c: c.time)
    cuts = analysis.shot_changes()
    appearances = [(i.id, a.start, a.end) for i in analysis.identities for a in i.appearances]

    def people(start: float, end: float) -> tuple[str, ...]:
        # On screen during the span: overlapping it, not just touching its end.
        return tuple(sorted({pid for pid, a, b in appearances
                             if (a < end and b > start) or (start == end and a <= start <= b)}))

    def unit(kind: str, start: float, end: float, text: str) -> Unit | None:
        text = " ".join(text.split())
        if not text:
            return None
        start, end = max(0.0, start), min(duration, end) if duration else end
        return Unit(kind, start, max(start, end), text, people(start, max(start, end)))

    out: list[Unit | None] = []
    for n, c in enumerate(captions):
        end = captions[n + 1].time if n + 1 < len(captions) else duration
        end = min([end] + [t for t in cuts if c.time < t < end])  # a caption ends at a cut
        out.append(unit("caption", c.time, end, c.text))
        if c.labels:
            out.append(unit("labels", c.time, end, labels_text(c.labels)))
    for b in analysis.boundaries:
        if b.caption is not None:
            text = f"{b.caption.subject}: {b.caption.before} -> {b.caption.after}"
            out.append(unit("boundary", b.time - BOUNDARY_CONTEXT, b.time + BOUNDARY_CONTEXT, text))
    for cue in speech_cues(analysis):
        out.append(unit("speech", cue.start, cue.end, cue.text))
    for span in analysis.screen_text:
        out.append(unit("text", span.start, span.end, span.text))
    said: dict[str, str] = {}
    for label, start, end in object_spans(analysis.object_tracks):
        if label not in said:
            said[label] = objects_text(label)
        out.append(unit("objects", start, end, said[label]))
    for name, start, end in tag_spans(analysis.shot_tags):  # said as a detector's label is: "parrot (bird, animal)"
        if name not in said:
            said[name] = objects_text(name)
        out.append(unit("tags", start, end, said[name]))
    for s in analysis.summaries:
        out.append(unit("summary", 0.0, duration, PLACEHOLDER.sub(" ", s.text)))
    for i in analysis.identities:
        if i.appearances:
            text = f"{i.name} ({i.id})" if i.name else i.id
            u = unit("identity", min(a.start for a in i.appearances), max(a.end for a in i.appearances), text)
            out.append(None if u is None else Unit(u.kind, u.start, u.end, u.text, (i.id,)))
    for n in analysis.notes:
        u = unit("note", n.time, n.end_time if n.end_time is not None else n.time, n.text.strip() or DRAWING_ONLY)
        out.append(None if u is None else replace(u, note=n))
    out.append(unit("file", 0.0, duration, file_words(analysis.video.path)))
    return [u for u in out if u is not None]
