"""Summaries of an Analysis in several formats: text only, k keyframes + text, keyframes only.

Keyframes for a budget of k come from the Analysis's keyframes (chosen by progression):
one per shot, longest shots first, then ones that bring in an identity not yet shown,
then the ones farthest in time from those already chosen; shown in time order.

The text comes from a writer. The builtin one (no language model) composes it from what
the engines measured: length, shots, identities, the opening scene, event boundaries,
people arriving and the objects seen (summary/objects.py: per label the most at once and
when; at a keyframe, those in view that its words do not name already), then what an
image-text model's shot tags name besides them (a parrot, a beach). A VLM writer
(summary.writer) follows ViSIL's summary prompt (F.4). With keyframes, the text is the
glue between ``[KEYFRAME1]``..``[KEYFRAMEn]``: what happens before, between and after them.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import replace
from typing import Protocol

from ..engines.captions.phrases import objects_phrase, said, sentence, written
from ..records import SHOT_CHANGE_KINDS, Analysis, Keyframe, Summary
from . import objects

ENGINE = "builtin@1"
PLACEHOLDER = re.compile(r"\[KEYFRAME(\d+)\]")


class TextWriter(Protocol):
    """Writes a summary's text for the chosen keyframes ([] for a text-only summary)."""

    name: str

    def __call__(self, analysis: Analysis, keyframes: list[Keyframe]) -> str: ...
NEAR_FACE_SECONDS = 0.6  # a face sample this close to a keyframe counts as visible in it
MOST_IN_VIEW = 3  # objects said at a keyframe
MOST_TAGS_IN_VIEW = 2  # and shot tags after them, the most probable


def _shot_starts(analysis: Analysis) -> list[float]:
    return [0.0] + analysis.shot_changes()


def _ids_near(analysis: Analysis, seconds: float) -> set[str]:
    return {f.identity for f in analysis.faces if f.identity and abs(f.time - seconds) <= NEAR_FACE_SECONDS}


def choose_keyframes(analysis: Analysis, k: int) -> list[Keyframe]:
    """At most ``k`` of the Analysis's keyframes covering shots and identities, in time order."""
    pool = sorted(analysis.keyframes, key=lambda kf: kf.time)
    if k <= 0 or not pool:
        return []
    if len(pool) <= k:
        return pool
    starts = _shot_starts(analysis)
    ends = starts[1:] + [analysis.video.duration]
    shot_of = {kf.frame: bisect.bisect_right(starts, kf.time + 1e-6) - 1 for kf in pool}
    chosen: list[Keyframe] = []
    for shot in sorted(range(len(starts)), key=lambda s: starts[s] - ends[s]):  # longest first
        first = next((kf for kf in pool if shot_of[kf.frame] == shot), None)
        if first is not None and len(chosen) < k:
            chosen.append(first)
    shown = set().union(*(_ids_near(analysis, kf.time) for kf in chosen)) if chosen else set()
    for kf in pool:
        if len(chosen) >= k:
            break
        new = _ids_near(analysis, kf.time) - shown
        if kf not in chosen and new:
            chosen.append(kf)
            shown |= new
    while len(chosen) < k:
        rest = [kf for kf in pool if kf not in chosen]
        chosen.append(max(rest, key=lambda kf: min(abs(kf.time - c.time) for c in chosen)))
    return sorted(chosen, key=lambda kf: kf.time)


def keyframe_time(analysis: Analysis, frame: int) -> float:
    """When a summary's keyframe shows: its keyframe record's time (right for variable
    frame rates), else frame / fps."""
    return next((kf.time for kf in analysis.keyframes if kf.frame == frame), frame / analysis.video.fps)


def _people(analysis: Analysis) -> str:
    names = [f"{i.name} ({i.id})" if i.name else i.id for i in analysis.identities]
    if not names:
        # Without faces, the object detector's people: "two people, none recognised".
        people = objects.people_seen(analysis)
        if people:
            return f"{objects_phrase([('person', people)])}, {'not' if people == 1 else 'none'} recognised"
        return "no recognised people"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


_NEW_SHOT = "New shot: "
UNKNOWN = "no people seen, nothing recognised"  # what builtin captions said of such a picture before they said its look


def _scene(text: str) -> str:
    """A caption's description of the picture: its first sentence, without "New shot:"
    (builtin captions put the scene first, then what changed and the camera); empty
    where the caption knows nothing of the picture."""
    first = text.removeprefix(_NEW_SHOT).split(". ")[0].rstrip(".")
    first = first[:1].lower() + first[1:] if not re.match(r"P\d+\b", first) else first
    return "" if first == UNKNOWN else first


def _caption_at(analysis: Analysis, seconds: float) -> str:
    before = [c for c in analysis.captions if c.time <= seconds + 1e-6]
    return _scene(before[-1].text) if before else ""


def _shot_scenes(analysis: Analysis, limit: int = 4) -> list[str]:
    """What each shot opens on, in order, each said once."""
    captions = sorted(analysis.captions, key=lambda c: c.time)
    times = [c.time for c in captions]
    scenes: list[str] = []
    for start in _shot_starts(analysis):
        first = bisect.bisect_left(times, start - 1e-6)
        scene = _scene(captions[first].text) if first < len(captions) else ""
        if scene and scene not in scenes:
            scenes.append(scene)
    return scenes[:limit]


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + ", then " + items[-1]


def _events(analysis: Analysis, start: float, end: float, limit: int = 3) -> list[str]:
    """What changes in (start, end]: event boundaries with their captions, cuts counted."""
    inside = [b for b in sorted(analysis.boundaries, key=lambda b: b.time) if start < b.time <= end]
    said = []
    for b in inside:
        if b.kind == "event" and b.caption is not None and len(said) < limit:
            said.append(_change(b.caption.subject, b.caption.before, b.caption.after))
    cuts = sum(b.kind in SHOT_CHANGE_KINDS for b in inside)
    if cuts:
        plural = "s" if cuts > 1 else ""
        said.append(f"{cuts} cut{plural}" if said else f"the picture cuts {cuts} time{plural}")
    return said


def _parts(state: str) -> list[str]:
    return [p.strip() for p in re.split(r"[;,]", state) if p.strip()]


def _change(subject: str, before: str, after: str) -> str:
    """An event boundary in a few words: what its "after" state adds to "before"."""
    old = set(_parts(before))
    new = [p for p in _parts(after) if p not in old]
    return f"{subject}, now {', '.join(new)}" if new else f"{subject} changes"


def _heard_and_read(analysis: Analysis) -> str:
    """The first things said (two at most) and the first lines of on-screen text, as one
    or two sentences; empty when the video has neither."""
    sentences = []
    segments = sorted(analysis.transcript, key=lambda s: s.start)[:2]
    if segments:
        sentences.append("; ".join(said(analysis, s) for s in segments))
    spans = sorted(analysis.screen_text, key=lambda s: (-len(s.text) * (s.end - s.start), s.start))[:2]
    if spans:
        sentences.append(written(sorted(spans, key=lambda s: s.start)))
    return " ".join(map(sentence, sentences))


def builtin_text(analysis: Analysis, keyframes: list[Keyframe]) -> str:
    """Two or three sentences; with keyframes, the narrative between their placeholders."""
    info = analysis.video
    shots = len(_shot_starts(analysis))
    seconds = f"{info.duration:.0f}"
    article = "An" if seconds.startswith("8") or seconds in ("11", "18") else "A"  # "an eight", "an eleven"
    first = f"{article} {seconds} s clip in {shots} shot{'s' if shots > 1 else ''} with {_people(analysis)}."
    heard = _heard_and_read(analysis)
    first = f"{first} {heard}" if heard else first
    opening = _caption_at(analysis, 0.0)
    if not keyframes:
        scenes = _shot_scenes(analysis)
        middle = f"It shows {_listed(scenes)}." if scenes else ""
        seen = objects.inventory(analysis, said=f"{first} {middle}")
        things = f"Objects seen: {seen}." if seen else ""
        tags = objects.tag_inventory(analysis, said=f"{first} {middle} {things}")
        named = f"{'Also seen' if seen else 'Seen'}: {tags}." if tags else ""
        events = _events(analysis, 0.0, info.duration)
        last = f"Along the way {'; '.join(events)}." if events else ""
        return " ".join(s for s in (first, middle, things, named, last) if s)
    part = f"It opens{' on ' + opening if opening else ''}, leading to [KEYFRAME1]"
    parts = [part + _in_view(analysis, keyframes, 0, part)]
    for n in range(1, len(keyframes)):
        start, end = keyframes[n - 1].time, keyframes[n].time
        between = _events(analysis, start, end, limit=1)
        scene = _caption_at(analysis, end)
        new_scene = scene and scene != _caption_at(analysis, start)
        cut = _cut_between(analysis, start, end)
        if new_scene and cut:
            part = f"it cuts to {scene} in [KEYFRAME{n + 1}]"
        elif between:
            part = f"{', '.join(between)} until [KEYFRAME{n + 1}]"
        elif new_scene:
            part = f"{scene} in [KEYFRAME{n + 1}]"
        else:
            part = f"it continues until [KEYFRAME{n + 1}]"
        parts.append(part + _in_view(analysis, keyframes, n, part))
    after = _events(analysis, keyframes[-1].time, info.duration, limit=1)
    ending = f"After that {', '.join(after)}, to the end." if after else "It ends soon after."
    return f"{first} {'; then '.join(parts)}. {ending}"


def _cut_between(analysis: Analysis, start: float, end: float) -> bool:
    return any(b.kind in SHOT_CHANGE_KINDS and start < b.time <= end for b in analysis.boundaries)


def _in_view(analysis: Analysis, keyframes: list[Keyframe], n: int, words: str) -> str:
    """" with a cup": the objects in view at keyframe ``n`` that ``words`` (what the text
    says up to it, from its caption) do not name, and that were not in view at the
    keyframe before in the same shot already; then its shot's tags that neither those
    objects nor ``words`` name, at the shot's first keyframe; "" for none."""
    seconds = keyframes[n].time
    shown = objects.in_view(analysis, seconds)
    same_shot = n > 0 and not _cut_between(analysis, keyframes[n - 1].time, seconds)
    if same_shot:
        before = set(objects.in_view(analysis, keyframes[n - 1].time))
        shown = [seen for seen in shown if seen not in before]
    new = [(label, count) for label, count in shown if not objects.named(words, label)]
    new = sorted(new, key=lambda lc: (-lc[1], lc[0]))[:MOST_IN_VIEW]  # as objects_phrase keeps them
    tags = [] if same_shot else objects.tags_at(analysis, seconds, words,
                                                (label for label, _ in objects.in_view(analysis, seconds)))
    phrase = objects.seen_phrase(new, tags[:MOST_TAGS_IN_VIEW])
    return f" with {phrase}" if phrase else ""


def with_placeholders(text: str, keyframes: int) -> str:
    """``text`` with each of [KEYFRAME1]..[KEYFRAMEn] exactly where the writer put it
    first; placeholders past n are dropped, repeats too, and missing ones are appended
    in order (a model may forget one: the reader still sees every keyframe)."""
    seen: set[int] = set()

    def keep(match: re.Match) -> str:
        n = int(match.group(1))
        if 1 <= n <= keyframes and n not in seen:
            seen.add(n)
            return match.group(0)
        return ""

    kept = re.sub(r"[ \t]{2,}", " ", PLACEHOLDER.sub(keep, text)).strip()
    missing = " ".join(f"[KEYFRAME{n}]" for n in range(1, keyframes + 1) if n not in seen)
    return f"{kept} {missing}".strip() if missing else kept


def build(analysis: Analysis, fmt: str, k: int = 0, writer: TextWriter | None = None) -> Summary:
    """A summary in ``fmt`` ("text", "keyframes+text" or "keyframes") with up to k
    keyframes; the text by ``writer`` (the builtin writer when None, or when the writer
    gives nothing)."""
    if fmt not in ("text", "keyframes+text", "keyframes"):
        raise ValueError(f"unknown summary format {fmt!r}")
    keyframes = [] if fmt == "text" else choose_keyframes(analysis, k)
    text, engine = "", ENGINE
    if fmt != "keyframes":
        written = with_placeholders(writer(analysis, keyframes), len(keyframes)) if writer is not None else ""
        if PLACEHOLDER.sub("", written).strip():
            text, engine = written, writer.name
        else:
            text = builtin_text(analysis, keyframes)
    return Summary(format=fmt, text=text, keyframe_frames=tuple(kf.frame for kf in keyframes), engine=engine)


def standard_summaries(analysis: Analysis, writer: TextWriter | None = None) -> list[Summary]:
    """ViSIL's three formats: text only, 1 image + text, 3 images + text."""
    return [build(analysis, "text", writer=writer), build(analysis, "keyframes+text", 1, writer),
            build(analysis, "keyframes+text", 3, writer)]


def with_summaries(analysis: Analysis, summaries: list[Summary]) -> Analysis:
    """The Analysis with these summaries; ones a reviewer edited are kept."""
    edited = [s for s in analysis.summaries if s.edited]
    taken = {(s.format, len(s.keyframe_frames)) for s in edited}
    fresh = [s for s in summaries if (s.format, len(s.keyframe_frames)) not in taken]
    return replace(analysis, summaries=tuple(edited + fresh))
