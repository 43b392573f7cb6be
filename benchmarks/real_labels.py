"""What the app says of real footage, scored against the corpus's hand-written truth.

    .venv/bin/python benchmarks/real_labels.py [--keep DIR] [--part tuning|held-out|both]
        [--engines KEY=NAME ...] [--clips NAME ...] [-v]

Clips: the real-footage corpus (benchmarks/corpus/, fetched by scripts/fetch-real-clips).
Each is analysed with the default engines (a stage cache in --keep, default a folder of
the user's cache, so a second run reuses the stages that did not change). What the app
says of a clip is read as a reviewer meets it:
- labels: the Objects track's labels (the boxes and the library's objects are those
  tracks), and every thing the captions name (words of the COCO labels and of the WordNet
  categories the app says, found in the caption text less its camera and motion
  sentences), "person" where a caption names a person or an identity;
- the statuses said of people ("walking", ...) by the pose tracks;
- captions that name nothing (a look alone: "a picture in grey"), and the clues they give
  instead ("a graphic", "a black-and-white picture": CLUES);
- absence claims: captions saying nobody is there ("no people seen"), false where the
  truth has people (``people`` > 0: the truth is per clip, so a claim of a shot without
  the clip's people counts as false too: the stricter reading); and the sentence most
  captions end in after their scene (what is said or written apart), with its share: a
  filler repeated in every caption says nothing;
- camera claims ("The camera pans right."), false where the truth's ``camera`` rules them
  out (CAMERA_TRUE: a still camera in a clip whose camera moves or shakes, a moving one in
  a clip filmed still, a shake but in handheld or mixed footage; per clip again).

Scored per (clip, label) pair: a COCO label is right where the truth lists it (``coco``,
"person" where it has people); any other word where it is, or is a kind above, a word of
the truth's ``imagenet`` or ``coco``. Recall: the thing a person would name first (the
first of ``things``), where COCO or ImageNet has a word for it, named by one of its words
or a right word below one (all the truth's ``things`` apart, for information). Subject
named: the captions that name the first thing, over clips where COCO or ImageNet has a
word for it. Printed per class of footage, for the tuning part and the held-out part
apart, then the clues, the statuses and each COCO label. ``--set`` tries other thresholds:
on the tuning part only.
The issue's targets on the held-out part: precision >= 0.95, recall >= 0.7, subject named
>= 80 %.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from real_corpus import CLASSES, Clip, clips_dir, corpus, present  # noqa: E402

# Sentences of a caption that say nothing of what is there.
NOT_THINGS = re.compile(r"(The camera [^.;]*[.;]|something moves in the picture\.?|Something starts moving\."
                        r"|The movement stops\.|New shot:|no people seen|in (close-up|a medium shot|a wide shot)"
                        r"|(a|a dark|a bright) picture in [a-z ]+|[Ss]omeone says)")
PERSON = re.compile(r"\b(person|people|P\d+|unrecognised faces?)\b")
# The camera's motion a caption claims, and the truth's ``camera`` values it is right in.
CAMERA = re.compile(r"\bThe camera (is still|pans|tilts|zooms|shakes)\b")
CAMERA_TRUE = {"is still": ("still", "mixed"), "pans": ("moving", "handheld", "mixed"),
               "tilts": ("moving", "handheld", "mixed"), "zooms": ("moving", "handheld", "mixed"),
               "shakes": ("handheld", "mixed")}
# A caption saying nobody is there.
ABSENCE = re.compile(r"\b(no (people|person|one)|nobody)\b", re.IGNORECASE)


@cache
def _vocabulary() -> tuple[re.Pattern, dict[str, str]]:
    """One pattern of every word a caption may name a thing with, longest first ("wine glass"
    before "glass"), and each word's name: a COCO label's own (singular), a WordNet lemma's
    synset's name in the taxonomy ("teddy bear" -> "teddy")."""
    from videoreview.engines.captions.builtin import _PLURALS
    from videoreview.engines.objects.decode import COCO_LABELS
    from videoreview.metrics.caption_sense import GRAMMAR
    from videoreview.taxonomy import taxonomy

    tax = taxonomy()
    name: dict[str, str] = {}
    for synset, lemmas in tax.lemmas.items():
        for lemma in lemmas:
            name.setdefault(lemma.lower(), tax.names[synset])
    for label in COCO_LABELS:
        name[label] = name[_PLURALS.get(label, label + "s")] = label
    words = sorted(set(name) - GRAMMAR, key=len, reverse=True)
    return re.compile(r"\b(" + "|".join(map(re.escape, words)) + r")\b", re.IGNORECASE), name


def says_nobody(text: str) -> bool:
    """Whether a caption claims that nobody is there (outside quotations)."""
    from videoreview.metrics.caption_sense import QUOTED

    return bool(ABSENCE.search(QUOTED.sub(" ", text)))


def last_sentence(text: str) -> str:
    """The last sentence of a caption after its scene (its first sentence, what the picture
    shows or looks like), "" where it has no other; what is said or written (a quotation,
    "On screen: ...", "... says ...") is cut off first."""
    from videoreview.metrics.caption_sense import QUOTED

    own = re.split(r"\s(?=\S+ says |On screen:)", QUOTED.sub("“”", text))[0]
    sentences = [s for s in re.split(r"(?<=[.!?…])\s+", own.strip()) if s]
    return sentences[-1] if len(sentences) > 1 else ""


def caption_words(text: str) -> set[str]:
    """The things a caption names, outside quotations (what is said or written), who says it
    and its camera and motion sentences, as COCO labels and taxonomy names; "person" for a
    person, people or an identity."""
    from videoreview.metrics.caption_sense import QUOTED

    pattern, name = _vocabulary()
    rest = NOT_THINGS.sub(" ", QUOTED.sub(" ", text))
    found = {name.get(m.lower(), m.lower()) for m in pattern.findall(rest)}
    return found | {"person"} if PERSON.search(rest) else found


@cache
def kinds_of(word: str) -> frozenset[str]:
    """The word and every category above it (the taxonomy's names), for a COCO label through
    what it means in WordNet (coco_kinds.py)."""
    from videoreview.coco_kinds import COCO_KINDS
    from videoreview.taxonomy import taxonomy

    tax = taxonomy()
    entry = COCO_KINDS.get(word)
    above = tax.synset_kinds(entry.synsets()) if entry else tax.kinds(word)
    return frozenset({word, *above, *(entry.words if entry else ())})


def right(word: str, truth: dict) -> bool:
    from videoreview.engines.objects.decode import COCO_LABELS

    if word == "person":
        return truth.get("people", 0) > 0
    if word in COCO_LABELS and word in truth.get("coco", ()):
        return True
    true_words = [*truth.get("imagenet", ()), *truth.get("coco", ())]
    return any(meaning(word) & kinds_of(w) for w in true_words)


@cache
def meaning(word: str) -> frozenset[str]:
    """The names a word stands for: itself, and for a COCO label the name of the synset it
    means in the taxonomy and its other names ("tv" -> "television")."""
    from videoreview.coco_kinds import COCO_KINDS
    from videoreview.taxonomy import taxonomy

    entry = COCO_KINDS.get(word)
    own = taxonomy().names.get(entry.synset) if entry and entry.under is None else None
    return frozenset({word, own, *(entry.words if entry else ())} - {None})


def thing_words(thing: list[str]) -> set[str]:
    """A thing's words and the names the app would say them by ("taxi" -> "cab")."""
    _, name = _vocabulary()
    return set(thing) | {name[w.lower()] for w in thing if w.lower() in name}


def names(thing: list[str], said: set[str], truth: dict) -> bool:
    """Whether ``said`` names the thing: one of its words, or a right word that is a kind of one."""
    words = thing_words(thing)
    return any(w in words or (right(w, truth) and words & kinds_of(w)) for w in said)


def has_word(thing: list[str]) -> bool:
    """Whether COCO or ImageNet (a class, or a category above classes) has a word for the thing."""
    _, name = _vocabulary()
    return any(w.lower() in name for w in thing)


@dataclass
class Said:
    clip: Clip
    labels: set[str] = field(default_factory=set)  # every label said in the clip
    tracks: set[str] = field(default_factory=set)  # of those, the Objects track's
    statuses: set[str] = field(default_factory=set)
    clues: set[str] = field(default_factory=set)  # the clues of CLUES said somewhere in the clip
    captions: int = 0
    subject_named: int = 0
    empty: int = 0  # captions that name nothing
    absent: int = 0  # captions saying nobody is there
    endings: Counter = field(default_factory=Counter)  # the captions' last sentences
    camera: Counter = field(default_factory=Counter)  # the camera motions claimed, one per caption claiming it

    @property
    def false_absent(self) -> int:
        """The absence claims the truth denies (the clip has people)."""
        return self.absent if self.truth.get("people", 0) > 0 else 0

    @property
    def truth(self) -> dict:
        return self.clip.truth

    def false(self) -> list[str]:
        return sorted(w for w in self.labels if not right(w, self.truth))

    def nameable(self, first: bool = True) -> list[list[str]]:
        """The thing a person would name first (``first``; else every thing of the truth),
        where COCO or ImageNet has a word for it: the app has no other words."""
        things = self.truth.get("things", [])[:1 if first else None]
        return [t for t in things if has_word(t)]

    def found(self, first: bool = True) -> list[list[str]]:
        return [t for t in self.nameable(first) if names(t, self.labels, self.truth)]


def said_of(clip: Clip, analysis) -> Said:
    out = Said(clip)
    out.tracks = {t.label for t in analysis.object_tracks}
    out.labels |= out.tracks
    first = (clip.truth.get("things") or [[]])[0]
    for c in analysis.captions:
        words = caption_words(c.text)
        out.labels |= words
        out.captions += 1
        out.subject_named += bool(first) and names(first, words, clip.truth)
        out.empty += not words
        out.absent += says_nobody(c.text)
        out.endings[last_sentence(c.text)] += 1
        out.camera.update(CAMERA.findall(c.text))
        out.clues |= {name for name, (said, _) in CLUES.items() if said.search(c.text)}
    out.statuses = {s.status for p in analysis.poses for s in p.statuses}
    return out


def analysed(clips, keep: Path, engines: list[str], speed: float | None = None):
    """(clip, Analysis) for each clip, the default engines but ``engines`` (KEY=NAME), the
    stages cached in ``keep``, within the budget ``speed`` (x realtime) if given."""
    from videoreview.pipeline import StageCache, analyze
    from videoreview.pipeline.stages import DEFAULT_ENGINES, build_stages

    chosen = {**DEFAULT_ENGINES, **dict(item.split("=", 1) for item in engines)}
    cache_ = StageCache(keep)
    for clip in clips:
        yield clip, analyze(clip.path, stages=build_stages(chosen), cache=cache_, speed=speed)


# What a caption says the picture is where it names nothing (the look phrase), and what the
# truth must hold for it to be right. (Dark and bright are the picture's mean luma, a
# measurement, not a claim about the scene's light: not scored.)
CLUES = {
    # a graphic: a drawing, a screen, or a title (a clip with on-screen text may hold a title card)
    "graphic": (re.compile(r"\bgraphic\b"), lambda t: t["picture"] in ("drawn", "screen") or bool(t["text"])),
    # black and white: film, or a monochrome graphic (a terminal, a white-on-black title)
    "black-and-white": (re.compile(r"\bblack-and-white picture\b"),
                        lambda t: t["picture"] in ("film-bw", "drawn", "screen") or bool(t["text"])),
}


def clue_table(results: list[Said]) -> None:
    print("\n| clue | clips where it is said | right | precision |\n| --- | --- | --- | --- |")
    for name, (_, holds) in CLUES.items():
        said = [r for r in results if name in r.clues]
        good = sum(holds(r.truth) for r in said)
        print(f"| {name} | {len(said)} | {good} | {share(good, len(said))} |")


STATUSES = ("standing", "sitting", "walking", "running", "lying", "bending", "arms raised")


def poses_table(results: list[Said]) -> None:
    """The statuses said of people (the poses stage), per (clip, status) pair: right where the
    truth's ``doing`` has it."""
    said = [(r, s) for r in results for s in r.statuses]
    good = sum(s in r.truth.get("doing", ()) for r, s in said)
    wanted = [(r, s) for r in results for s in r.truth.get("doing", ()) if s in STATUSES]
    found = sum(s in r.statuses for r, s in wanted)
    print(f"\nStatuses said (poses): {share(good, len(said))} right; of the truth's, {share(found, len(wanted))} said")


def labels_table(results: list[Said]) -> None:
    """Each COCO label said or wanted: right in how many of the clips it is said in, and said
    in how many of the clips whose named-first things it is a word of."""
    from videoreview.engines.objects.decode import COCO_LABELS

    said: dict[str, list[bool]] = defaultdict(list)
    wanted: dict[str, list[bool]] = defaultdict(list)
    for r in results:
        for w in r.labels & set(COCO_LABELS):
            said[w].append(right(w, r.truth))
        for w in {w for thing in r.truth.get("things", []) for w in thing if w in COCO_LABELS}:
            wanted[w].append(w in r.labels)
    print("\n| COCO label | right / clips said | said / clips wanted |\n| --- | --- | --- |")
    for w in sorted(set(said) | set(wanted), key=lambda w: (-len(said[w]) - len(wanted[w]), w)):
        print(f"| {w} | {sum(said[w])}/{len(said[w])} | {sum(wanted[w])}/{len(wanted[w])} |")


def share(a: int, b: int) -> str:
    return f"{a}/{b} = {a / b:.2f}" if b else "-"


def table(results: list[Said], title: str) -> None:
    print(f"\n### {title}\n")
    print("| class | clips | labels said | right | precision | first things found | recall | all things found | "
          "subject named | captions naming nothing |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    groups = defaultdict(list)
    for r in results:
        groups[r.clip.kind].append(r)
    for kind in [*[k for k in CLASSES if k in groups], "all"]:
        rs = results if kind == "all" else groups[kind]
        said = sum(len(r.labels) for r in rs)
        wrong = sum(len(r.false()) for r in rs)
        things = sum(len(r.nameable()) for r in rs)
        found = sum(len(r.found()) for r in rs)
        every = f"{sum(len(r.found(False)) for r in rs)}/{sum(len(r.nameable(False)) for r in rs)}"
        named = [r for r in rs if has_word((r.truth.get("things") or [[]])[0])]
        subject_named = share(sum(r.subject_named for r in named), sum(r.captions for r in named))
        print(f"| {kind} | {len(rs)} | {said} | {said - wrong} | {share(said - wrong, said)} | {found}/{things} | "
              f"{share(found, things)} | {every} | {subject_named}"
              f" | {share(sum(r.empty for r in rs), sum(r.captions for r in rs))} |")


def claims_table(results: list[Said]) -> None:
    """Captions claiming nobody is there (false where the clip has people), and the sentence
    most captions end in."""
    captions = sum(r.captions for r in results)
    absent = sum(r.absent for r in results)
    false = sum(r.false_absent for r in results)
    endings = sum((r.endings for r in results), Counter())
    endings.pop("", None)
    ending, n = endings.most_common(1)[0] if endings else ("", 0)
    moves = sum(n for e, n in endings.items() if e.endswith("something moves in the picture."))
    print(f"\nAbsence claims (\"no people\"): {absent} of {captions} captions, {false} false "
          f"(in {sum(bool(r.false_absent) for r in results)} clips with people); "
          f"the most common last sentence after the scene: \"{ending}\" in {share(n, captions)}; "
          f"ending in \"something moves in the picture\": {share(moves, captions)}")
    claims = sum(sum(r.camera.values()) for r in results)
    wrong = sum(n for r in results for motion, n in r.camera.items() if r.truth["camera"] not in CAMERA_TRUE[motion])
    print(f"Camera claims: {claims} in {captions} captions, {wrong} false "
          f"({share(claims - wrong, claims)} right)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, default=clips_dir().parent / "real-analyses",
                        help="the stage cache (default: beside the clips)")
    parser.add_argument("--part", choices=("tuning", "held-out", "both"), default="both")
    parser.add_argument("--engines", nargs="*", default=[], metavar="KEY=NAME")
    parser.add_argument("--clips", nargs="*", help="only these clips")
    parser.add_argument("--speed", type=float, metavar="X", help="analyse within a budget of the length / X "
                        "(videoreview analyze --speed)")
    parser.add_argument("-v", "--verbose", action="store_true", help="per clip: what was said, false ones marked *")
    parser.add_argument("--captions", type=Path, help="write every clip's captions to this file (JSON lines)")
    parser.add_argument("--set", nargs="*", default=[], metavar="MODULE.NAME=VALUE",
                        help="another value of a threshold, e.g. pipeline.stages.label_vote.AGREE=0.1 "
                             "(tuning part only!)")
    args = parser.parse_args()
    for item in args.set:
        where, value = item.split("=", 1)
        module, name = where.rsplit(".", 1)
        setattr(importlib.import_module(f"videoreview.{module}"), name, float(value))
    os.environ.setdefault("VIDEOREVIEW_HOME", tempfile.mkdtemp(prefix="bench-real-"))
    clips = [c for c in present(corpus()) if (not args.clips or c.name in args.clips)
             and (args.part == "both" or c.part == args.part)]
    missing = len(corpus()) - len(present(corpus()))
    if missing:
        print(f"({missing} clips not fetched: scripts/fetch-real-clips)")
    results = []
    written = args.captions.open("w") if args.captions else None
    for clip, analysis in analysed(clips, args.keep, args.engines, args.speed):
        r = said_of(clip, analysis)
        results.append(r)
        if written:
            written.write(json.dumps({"clip": clip.name, "part": clip.part, "people": clip.truth.get("people", 0),
                                      "captions": [[c.time, c.text] for c in analysis.captions]}) + "\n")
        if args.verbose:
            marked = ", ".join(w + ("*" if not right(w, clip.truth) else "") for w in sorted(r.labels))
            missed = [t[0] + ("!" if t in r.nameable() else "") for t in r.nameable(False) if t not in r.found(False)]
            print(f"{clip.name} [{clip.kind}, {clip.part}]: {marked or '-'}; "
                  f"missed (! first): {', '.join(missed) or '-'}; statuses: {', '.join(sorted(r.statuses)) or '-'}; "
                  f"\"no people\" {r.absent}/{r.captions}{'*' if r.false_absent else ''}")
    if written:
        written.close()
    for part in ("tuning", "held-out"):
        rs = [r for r in results if r.clip.part == part]
        if rs:
            table(rs, f"{part} part ({len(rs)} clips)")
            clue_table(rs)
            claims_table(rs)
            poses_table(rs)
            labels_table(rs)


if __name__ == "__main__":
    main()
