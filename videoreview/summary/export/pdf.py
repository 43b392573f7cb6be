"""The PDF report of one video: its facts, a summary, the people, the objects seen, what
an image-text model names in its shots (shot tags), the keyframes, the boundaries, the
reviewer's notes (each with its frame and drawing), a ViSIL comparison of summaries and
which engine produced what.

A4 portrait, made for printing: black text of at least 9 pt on white, thin grey rules,
the video's file name and the page number in every footer. All text goes through Unicode
fonts (fonts.py), shaped by HarfBuzz where the script needs it, so captions in any script
with an installed font print right; characters no installed font covers print as U+FFFD
and are named in the warnings ``write_pdf`` returns. The pictures are decoded in one
pass over the video, encoded once as JPEG and embedded as they are.
"""

from __future__ import annotations

import bisect
import dataclasses
import errno
import os
import re
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path

from ... import smpte
from ...errors import RecordError
from ...records import NOTE_TAG_COLOURS, Analysis, Identity, Note, Summary, write_atomic
from ...timecode import format_time
from ..builder import keyframe_time
from ..compare import Comparison
from ..objects import PERSON, counts_people, in_view, named, seen_objects, seen_phrase, tagged, tags_at
from .fonts import base_fonts, coverage, drawable, fallbacks_for
from .pdf_document import FAMILY, GAP, MARGIN, SMALL_PT, document_class, fit
from .pdf_layout import BODY_PT, LINE, MAX_PICTURE_ASPECT, Layout, Tile
from .pdf_pictures import Pictures, decode_pictures

TITLE_PT = 18
RULE_GREY = 170  # table rules and picture frames
MAX_CAPTION_CHARS = 300  # a caption under a keyframe; the subtitles export has them whole
MAX_MISSING_SHOWN = 20
MAX_SPANS_SHOWN = 6  # of an object's spans on screen in the Objects table
NOTE_PICTURE_SHARE = 0.5  # of the text width: a note's picture is larger than a keyframe's, to show its drawing
SWATCH = 2.6  # mm, the side of a note's tag colour square

KEYFRAME_PLACEHOLDER = re.compile(r"\[KEYFRAME(\d+)\]")


def write_pdf(analysis: Analysis, path: str | os.PathLike, *, video_path: str | os.PathLike | None = None,
              summary: Summary | None = None, comparison: Comparison | None = None) -> list[str]:
    """Write the report to ``path``; pictures come from ``video_path`` (none without it).

    ``summary`` defaults to the Analysis's first keyframes+text summary. Returns warnings
    for the reader (characters no installed font covers, pictures that could not be
    decoded); the report is written all the same. Raises OSError naming ``path`` when it
    cannot be written there, leaving any file already at ``path`` as it was."""
    destination = Path(path)
    _check_destination(destination)
    if summary is None:
        summary = next((s for s in analysis.summaries if s.format == "keyframes+text"), None)
    warnings: list[str] = []
    pictures = Pictures()
    if video_path is not None:
        pictures, problem = decode_pictures(analysis, summary, video_path)
        if problem:
            warnings.append(problem)
    report = _Report(analysis, pictures, _strings((analysis, summary, comparison, os.fspath(video_path or ""))))
    report.build(summary, comparison)
    warnings += report.missing_glyph_warnings()
    data = bytes(report.pdf.output())
    try:
        write_atomic(destination, data)
    except OSError as exc:
        raise OSError(exc.errno, f"cannot write the PDF report: {exc.strerror or exc}", str(destination)) from exc
    return warnings


def _check_destination(path: Path) -> None:
    # Checked before the work, unlike the other exporters' write_atomic, which would
    # quietly create a folder the user mistyped.
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "cannot write the PDF report: this is a folder", str(path))
    if not path.parent.is_dir():
        raise FileNotFoundError(errno.ENOENT, f"cannot write the PDF report: folder {path.parent} does not exist",
                                str(path))
    if not os.access(path.parent, os.W_OK):
        raise PermissionError(errno.EACCES, f"cannot write the PDF report: folder {path.parent} is not writable",
                              str(path))


def _strings(value) -> Iterator[str]:
    """Every string inside records (dataclasses, tuples, dicts): what the report may draw,
    to choose fonts for before drawing."""
    if isinstance(value, str):
        yield value
    elif dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            yield from _strings(getattr(value, f.name))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, (list, tuple)) and value and not isinstance(value[0], (int, float)):
        for item in value:
            yield from _strings(item)


# -- the document


class _Report(Layout):
    def __init__(self, analysis: Analysis, pictures: Pictures, strings: Iterator[str]):
        self.analysis = analysis
        self.pictures = pictures
        self.name = Path(analysis.video.path).name or analysis.video.path
        pdf = document_class()(self.name)
        pdf.set_margins(MARGIN, MARGIN, MARGIN)
        pdf.set_auto_page_break(True, margin=MARGIN + 3)
        pdf.set_title(f"Video review: {self.name}")
        pdf.set_creator("videoreview")
        self.pdf = pdf
        pdf.covered = self._fonts(set().union(*strings))
        pdf.set_draw_color(RULE_GREY)
        pdf.set_line_width(0.2)
        pdf.set_text_color(0)

    def _fonts(self, chars: set[str]) -> frozenset[int]:
        """Register the base font and the fallbacks ``chars`` need; the code points covered."""
        base = base_fonts()
        for style, font in base.items():
            self.pdf.add_font(FAMILY, style, font.path, collection_font_number=font.index)
        fallbacks, _ = fallbacks_for(chars)
        for n, font in enumerate(fallbacks):
            self.pdf.add_font(f"fallback{n}", "", font.path, collection_font_number=font.index)
        # exact_match=False: a regular fallback also stands in inside bold text.
        self.pdf.set_fallback_fonts([f"fallback{n}" for n in range(len(fallbacks))], exact_match=False)
        return coverage(base[""]).union(*(coverage(f) for f in fallbacks))

    def missing_glyph_warnings(self) -> list[str]:
        missing = sorted(c for c in self.pdf.drawn if drawable(c) and ord(c) not in self.pdf.covered)
        if not missing:
            return []
        shown = " ".join(f"{c} (U+{ord(c):04X})" for c in missing[:MAX_MISSING_SHOWN])
        more = f" and {len(missing) - MAX_MISSING_SHOWN} more" if len(missing) > MAX_MISSING_SHOWN else ""
        return [f"no installed font covers these characters: {shown}{more}; they print as \ufffd (U+FFFD). "
                "Install a font for them (e.g. Noto Sans CJK for Chinese, Japanese and Korean) and export again."]

    # -- sections

    def build(self, summary: Summary | None, comparison: Comparison | None) -> None:
        self.pdf.add_page()
        self.title()
        self.video_facts()
        if summary is not None:
            self.summary(summary)
        self.people()
        self.objects()
        self.shot_tags()
        self.keyframes()
        self.boundaries()
        self.transcript()
        self.screen_text()
        self.notes()
        if comparison is not None:
            self.visil(comparison)
        self.engines()

    def title(self) -> None:
        self.text(f"Video review: {self.name}", TITLE_PT, "B")
        self.text(f"Exported {datetime.now():%Y-%m-%d %H:%M} by videoreview", BODY_PT)

    def video_facts(self) -> None:
        info = self.analysis.video
        self.heading("Video")
        resolution = f"{info.width} × {info.height}"
        if info.rotation:
            resolution += f", rotated {info.rotation}° for display"
        rate = f"{round(info.fps, 3):g} fps" + (" (variable frame rate)" if info.variable_frame_rate else "")
        digest = self.analysis.content_hash
        rows = [("File", info.path),
                ("Duration", f"{format_time(info.duration, info.fps)} ({info.duration:.2f} s)"),
                ("Resolution", resolution),
                ("Frame rate", rate),
                ("Frames", f"{info.frame_count:,}"),
                ("Codec / container", f"{info.codec or 'unknown'} / {info.container or 'unknown'}"),
                ("File size", f"{info.size_bytes / 1e6:.1f} MB" if info.size_bytes else "unknown"),
                ("Content hash", f"{digest[:16]}…" if len(digest) > 16 else digest or "none"),
                ("Audio", "yes" if info.has_audio else "no")]
        self.table(None, rows, (1, 3))

    def summary(self, summary: Summary) -> None:
        self.heading("Summary")
        times = [keyframe_time(self.analysis, f) for f in summary.keyframe_frames]
        edited = ", edited by a reviewer" if summary.edited else ""
        self.text(f"{summary.format}, by {summary.engine or 'unknown'}{edited}", SMALL_PT)
        if summary.text.strip():
            def reference(match: re.Match) -> str:
                n = int(match.group(1))
                return f"[Keyframe {n}, {self.stamp(times[n - 1])}]" if 1 <= n <= len(times) else f"[Keyframe {n}]"

            self.text(KEYFRAME_PLACEHOLDER.sub(reference, summary.text), BODY_PT)
        tiles = [Tile(self.pictures.frames.get(f), f"Keyframe {n}", self.stamp(t))
                 for n, (f, t) in enumerate(zip(summary.keyframe_frames, times), 1)]
        self.grid(None, tiles, columns=5, aspect=self.aspect())

    def people(self) -> None:
        tiles = [self.person(i) for i in self.analysis.identities]
        self.grid("People", tiles, columns=5, aspect=1.0, empty="No people were identified.")

    def person(self, identity: Identity) -> Tile:
        label = f"{identity.name} ({identity.id})" if identity.name else identity.id
        count = len(identity.appearances)
        seen = sum(a.end - a.start for a in identity.appearances)
        text = f"{count} appearance{'s' if count != 1 else ''}\non screen {_seconds(seen)}"
        if identity.edited:
            text += "\nedited by a reviewer"
        return Tile(self.pictures.faces.get(identity.id), label, text)

    def objects(self) -> None:
        """The object detector's labels, as the identities' appearances: how many at once,
        when and how long on screen. None without object tracks."""
        tracks = self.analysis.object_tracks
        if not tracks:
            return
        seen = seen_objects(self.analysis)  # "person" left out where the identities say who is there
        self.heading("Objects")
        engine = self.analysis.engines.get("objects") or next((t.engine for t in tracks if t.engine), "")
        note = "At once: the most of a kind on screen together" + (f"; by {engine}." if engine else ".")
        if not counts_people(self.analysis) and any(t.label == PERSON for t in tracks):
            note += " People are under People."
        self.text(note, SMALL_PT)
        rows = [(s.label, f"{s.count}", self.spans(s.spans), _seconds(s.seconds)) for s in seen]
        if rows:
            self.table(("Object", "At once", "Seen", "On screen"), rows, (30, 16, 114, 20),
                       ("LEFT", "RIGHT", "LEFT", "RIGHT"))

    def shot_tags(self) -> None:
        """What the image-text model names in the shots, as the Objects table: per name the
        shots, when and how long, and the model's probability in its surest shot. None
        without shot tags."""
        tags = self.analysis.shot_tags
        if not tags:
            return
        self.heading("Shot tags")
        engines = sorted({t.engine for t in tags} - {""})
        by = f" by {', '.join(engines)}" if engines else ""
        self.text(f"What each shot shows, named{by}. Probability: the model's own that the name describes "
                  "the picture, averaged over a shot's frames (here its surest shot's).", SMALL_PT)
        rows = []
        for s in tagged(self.analysis):
            mine = [t for t in tags if t.name == s.label]
            rows.append((s.label, f"{len(mine)}", self.spans(s.spans), _seconds(s.seconds),
                         f"{max(t.score for t in mine):.2f}"))
        self.table(("Name", "Shots", "Seen", "On screen", "Probability"), rows, (32, 12, 94, 20, 22),
                   ("LEFT", "RIGHT", "LEFT", "RIGHT", "RIGHT"))

    def spans(self, spans: Sequence[tuple[float, float]]) -> str:
        shown = ", ".join(f"{self.stamp(a)} – {self.stamp(b)}" for a, b in spans[:MAX_SPANS_SHOWN])
        return shown + (f" and {len(spans) - MAX_SPANS_SHOWN} more" if len(spans) > MAX_SPANS_SHOWN else "")

    def keyframes(self) -> None:
        captions = sorted(self.analysis.captions, key=lambda c: c.time)
        starts = [c.time for c in captions]
        tiles = []
        for k in sorted(self.analysis.keyframes, key=lambda k: k.time):
            at = bisect.bisect_right(starts, k.time + 1e-6) - 1  # the last caption at or before it
            text = captions[at].text.strip() if at >= 0 else ""
            if len(text) > MAX_CAPTION_CHARS:
                text = text[:MAX_CAPTION_CHARS].rstrip() + "…"
            seen = in_view(self.analysis, k.time)
            unsaid = seen_phrase([(label, n) for label, n in seen if not named(text, label)],
                                 tags_at(self.analysis, k.time, text, (label for label, _ in seen)))
            if unsaid:  # what the caption does not say already
                text = (text + "\n" if text else "") + "In view: " + unsaid
            title = self.stamp(k.time) + (" (edited)" if k.edited else "")
            tiles.append(Tile(self.pictures.frames.get(k.frame), title, text))
        self.grid("Keyframes", tiles, columns=3, aspect=self.aspect(), empty="No keyframes.")

    def boundaries(self) -> None:
        self.heading("Boundaries")
        bounds = sorted(self.analysis.boundaries, key=lambda b: b.time)
        if not bounds:
            self.text("No boundaries.", BODY_PT)
            return
        rows = []
        for b in bounds:
            c = b.caption
            rows.append((self.stamp(b.time), b.kind, f"{b.confidence:.2f}", c.subject if c else "",
                         c.before if c else "", c.after if c else "", "yes" if b.edited else ""))
        self.table(("Time", "Kind", "Confidence", "Subject", "Before", "After", "Edited"), rows,
                   (18, 16, 22, 30, 39, 39, 16), ("LEFT", "LEFT", "RIGHT", "LEFT", "LEFT", "LEFT", "LEFT"))

    def transcript(self) -> None:
        """What is said: one row per segment, with its speaker where known."""
        speech = self.analysis.speech
        if speech is None:
            return  # speech was not analysed
        self.heading("What is said")
        found = {"none": "The video has no audio stream.", "silent": "The audio is silent.",
                 "no speech": "The audio holds no speech."}.get(speech.audio)
        language = f"Language: {speech.language} ({speech.language_probability:.0%} sure), " if speech.language else ""
        self.text(found or f"{language}by {speech.engine or 'unknown engine'}.", SMALL_PT)
        if speech.note:
            self.text(f"Note: {speech.note}.", SMALL_PT)
        rows = [(self.stamp(s.start), self.analysis.person_name(s.speaker) if s.speaker else "", s.text,
                 "yes" if s.edited else "") for s in sorted(self.analysis.transcript, key=lambda s: s.start)]
        if rows:
            self.table(("Time", "Speaker", "Said", "Edited"), rows, (18, 22, 124, 16),
                       ("LEFT", "LEFT", "LEFT", "LEFT"))

    def screen_text(self) -> None:
        spans = sorted(self.analysis.screen_text, key=lambda s: s.start)
        if not spans:
            return
        self.heading("On-screen text")
        rows = [(self.stamp(s.start), self.stamp(s.end), s.text) for s in spans]
        self.table(("From", "To", "Text"), rows, (18, 18, 144), ("LEFT", "LEFT", "LEFT"))

    def notes(self) -> None:
        """The reviewer's notes in time order, each beside its frame (with its drawing on it)."""
        notes = sorted(self.analysis.notes, key=lambda n: (n.frame, n.last_frame))
        if not notes:
            return
        pdf = self.pdf
        width = (pdf.epw - GAP) * NOTE_PICTURE_SHARE
        height = width * min(self.aspect(), MAX_PICTURE_ASPECT)
        text_width = pdf.epw - width - GAP
        heights = [max(height, self.note_text(n, text_width, dry_run=True)) for n in notes]
        self.heading("Notes", keep=heights[0] + 12)
        for note, row_height in zip(notes, heights):
            if pdf.get_y() + row_height > pdf.page_break_trigger:
                pdf.add_page()
            top, page = pdf.get_y(), pdf.page
            picture = self.pictures.drawn.get(note.id) if note.drawing else self.pictures.frames.get(note.frame)
            self.picture(picture, pdf.l_margin, top, width, height)
            pdf.set_xy(pdf.l_margin + width + GAP, top)
            self.note_text(note, text_width)
            # A text longer than a page flows onto the next: then it alone says where the next note goes.
            bottom = max(top + height, pdf.get_y()) if pdf.page == page else pdf.get_y()
            pdf.set_xy(pdf.l_margin, bottom + GAP)

    def note_text(self, note: Note, width: float, dry_run: bool = False) -> float:
        """Draw (or with ``dry_run`` only measure) at the cursor, ``width`` wide: a note's
        timecode; its tag (a square of its colour and its name), status and author; its text."""
        pdf = self.pdf
        x = pdf.get_x()
        total = self.lines(self.note_timecode(note), width, BODY_PT, "B", dry_run)
        pdf.set_font(FAMILY, "", SMALL_PT)
        facts = pdf.font_size * LINE
        if not dry_run:
            y, margin = pdf.get_y(), pdf.c_margin
            left = x + margin  # where the lines' text starts
            with pdf.local_context(fill_color=_rgb(NOTE_TAG_COLOURS[note.tag])):
                pdf.rect(left, y + (facts - SWATCH) / 2, SWATCH, SWATCH, style="DF")  # grey edge: yellow shows on white
            pdf.c_margin = 0  # the pieces of this line follow each other without gaps
            pdf.set_x(left + SWATCH + 1.2)
            pdf.cell(h=facts, text=f"{note.tag.capitalize()} · ")
            pdf.set_font(FAMILY, "B" if note.status == "resolved" else "", SMALL_PT)
            pdf.cell(h=facts, text=note.status.capitalize())
            pdf.set_font(FAMILY, "", SMALL_PT)
            if note.author:
                room = x + width - margin - pdf.get_x()
                pdf.cell(room, facts, fit(pdf, f" · by {note.author}", room))
            pdf.c_margin = margin
            pdf.set_xy(x, y + facts + 1)
        total += facts + 1
        if note.text.strip():
            total += self.lines(note.text.strip(), width, BODY_PT, "", dry_run)
        return total

    def lines(self, text: str, width: float, size: float, style: str, dry_run: bool) -> float:
        """``text`` wrapped to ``width`` at the cursor, which then stays at its left edge; its height."""
        pdf = self.pdf
        pdf.set_font(FAMILY, style, size)
        return pdf.multi_cell(width, pdf.font_size * LINE, text, align="L", new_x="LEFT", new_y="NEXT",
                              dry_run=dry_run, output="HEIGHT")

    def note_timecode(self, note: Note) -> str:
        """SMPTE "IN" or "IN – OUT" (the last frame shown); mm:ss.ff at a rate without timecode."""
        fps = self.analysis.video.fps
        try:
            return smpte.span(note.frame, note.last_frame, fps)
        except RecordError:  # a rate editors have no timecode for (12.5 fps, say): the report's own times
            start = self.stamp(note.time)
            return f"{start} – {self.stamp(note.end_time)}" if note.is_range and note.end_time is not None else start

    def visil(self, comparison: Comparison) -> None:
        approximate = any(r.approximate for r in comparison.rows)
        self.heading(f"Summary comparison: ViSIL under {comparison.scorer or 'no scorer'}"
                     + (" (approximate)" if approximate else ""))
        self.text(f"Reference description: {comparison.reference.origin}", BODY_PT)
        self.text(f"Keywords: {', '.join(comparison.keywords) or 'none'}", BODY_PT)
        chosen: dict[int, list[str]] = {}
        for alpha, row in comparison.choices:
            chosen.setdefault(row, []).append(f"{alpha:g}")
        rows = [(_format_label(r.format), f"{r.visil:.2f}", f"{r.tokens:,}",
                 "yes" if n in comparison.frontier else "", ", ".join(chosen.get(n, ())))
                for n, r in enumerate(comparison.rows)]
        self.table(("Summary", "ViSIL (nats)", "Tokens", "Pareto frontier", "Chosen at α"), rows,
                   (28, 16, 14, 16, 26), ("LEFT", "RIGHT", "RIGHT", "LEFT", "LEFT"))
        self.text("ViSIL is the information the summary loses about the video (lower is better); "
                  "at each α the choice minimises ViSIL + α × tokens.", SMALL_PT)

    def engines(self) -> None:
        a = self.analysis
        self.heading("Engines")
        if a.engines:
            self.table(("Stage", "Engine"), sorted(a.engines.items()), (1, 3))
        groups = [("Frame captions", a.captions), ("Boundaries", a.boundaries),
                  ("Boundary captions", [b.caption for b in a.boundaries if b.caption]),
                  ("Identities", a.identities), ("Keyframes", a.keyframes), ("Summaries", a.summaries),
                  ("Speech segments", a.transcript), ("On-screen text", a.screen_text),
                  ("Object tracks", a.object_tracks), ("Shot tags", a.shot_tags)]
        self.table(("Records", "Count", "Produced by", "Edited by a reviewer"),
                   [(what, f"{len(items):,}", *_provenance(items)) for what, items in groups], (3, 1.5, 5, 2.5),
                   ("LEFT", "RIGHT", "LEFT", "RIGHT"))

    # -- helpers

    def stamp(self, seconds: float) -> str:
        return format_time(seconds, self.analysis.video.fps)

    def aspect(self) -> float:
        info = self.analysis.video
        return info.height / info.width if info.width and info.height else 9 / 16


def _rgb(color: str) -> tuple[int, int, int]:
    """"#rrggbb" as three 0..255 numbers."""
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def _provenance(items: Sequence) -> tuple[str, str]:
    """The distinct engines that made ``items`` and how many a reviewer edited ("—" for
    records that carry no engine or no edited flag: boundary captions are edited with
    their boundary)."""
    engines = sorted({getattr(i, "engine", "") for i in items} - {""})
    flags = [getattr(i, "edited", None) for i in items]
    edited = "—" if None in flags else f"{sum(flags):,}"
    return ", ".join(engines) or "—", edited


def _format_label(fmt: str) -> str:
    """A Row's format ("text", "3", "3 images, no text") as a reader would say it."""
    if fmt == "text":
        return "text only"
    if fmt.isdigit():
        return f"{fmt} keyframe{'s' if fmt != '1' else ''} + text"
    return fmt


def _seconds(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s"
