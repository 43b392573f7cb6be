"""`videoreview notes VIDEO`: a reviewer's notes from the command line: list, add,
resolve, export, import. Notes live in the video's saved Analysis, the one the window
shows; a video not analysed yet gets one with what the probe found, and analysing it
later keeps the notes."""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import VideoReviewError
from .common import EXIT_ERROR, add_library_option, print_error


def add_parsers(sub) -> None:
    p = sub.add_parser("notes", help="list, add, resolve, export and import a video's review notes",
                       description="A video's review notes (the ones the window shows). Exports by suffix: "
                                   ".json .csv .srt .vtt .otio .edl (DaVinci Resolve markers) .xml (Final Cut "
                                   "Pro 7 / Premiere) .fcpxml. Imports: .json .csv .edl .otio, merged by note id.")
    p.add_argument("video", metavar="VIDEO")
    add_library_option(p)
    p.add_argument("--add", nargs=2, metavar=("TIME", "TEXT"),
                   help="add a note at TIME (seconds, m:ss.s or a timecode HH:MM:SS:FF)")
    p.add_argument("--to", metavar="TIME", help="with --add: the note covers TIME to this time")
    p.add_argument("--tag", default="blue", help="with --add: the marker colour (blue, cyan, green, yellow, red, "
                                                 "pink, purple)")
    p.add_argument("--author", help="sign notes with this name from now on (default: your login name)")
    p.add_argument("--resolve", metavar="ID", action="append", default=[],
                   help="mark the note whose id starts with ID resolved")
    p.add_argument("--import", dest="import_", metavar="FILE", action="append", default=[],
                   help="merge the notes of FILE in")
    p.add_argument("--export", metavar="FILE", action="append", default=[], help="write the notes to FILE")
    p.add_argument("--list", action="store_true", help="print the notes (the default with nothing else to do)")
    p.add_argument("--json", action="store_true", help="with --list: as JSON")
    p.set_defaults(run=cmd_notes)


def cmd_notes(args: argparse.Namespace) -> int:
    from ..library.indexer import index_again
    from ..notes import changes
    from ..notes.author import set_reviewer_name
    from ..notes.files import export_notes, import_notes
    from ..pipeline import store
    from ..smpte import frame_from_text

    try:
        analysis, fresh = saved_or_probed(args.video)
        before = analysis
        if args.author:
            set_reviewer_name(args.author)
        for file in args.import_:
            analysis, report, messages = import_notes(analysis, file)
            for line in messages:
                print(f"videoreview: notice: {line}", file=sys.stderr)
            print(f"{file}: {report.summary()}", file=sys.stderr)
        if args.add:
            info = analysis.video
            frame = frame_from_text(args.add[0], info.fps, info.frame_count)
            end = frame_from_text(args.to, info.fps, info.frame_count) if args.to else None
            analysis = changes.add_note(analysis, changes.new_note(analysis, frame, args.add[1], end, args.tag))
        for prefix in args.resolve:
            analysis = changes.change_note(analysis, _by_prefix(analysis, prefix).id, status="resolved")
        if analysis != before:
            store.save(analysis)
            index_again(args.video, analysis)  # the library lists it now, on every reviewer's machine
            if fresh:
                print(f"videoreview: {args.video} is not analysed yet: its notes are kept, and analysing it "
                      "keeps them", file=sys.stderr)
        for file in args.export:
            export_notes(analysis, file)
            print(f"{file}: {len(analysis.notes)} notes", file=sys.stderr)
    except (VideoReviewError, OSError) as exc:
        # An error about no file in particular (a time, an id) is about this video.
        print_error(str(exc) if getattr(exc, "path", True) else f"{args.video}: {exc}")
        return EXIT_ERROR
    if args.list or not (args.add or args.import_ or args.export or args.resolve or args.author):
        _print(analysis, args.json)
    return 0


def saved_or_probed(path: str):
    """The video's saved Analysis, or (not analysed yet) a new one with what the probe found.
    A saved one is found by content hash alone: probing reads the whole file."""
    from pathlib import Path

    from ..library.indexer import analysis_in_library
    from ..media import probe
    from ..pipeline import store
    from ..pipeline.cache import StageCache
    from ..records import Analysis

    if not Path(path).is_file():
        probe(path)  # the one clear error for what is not a file (missing, a folder)
    content_hash = StageCache().content_hash(path)
    saved = store.load_saved(content_hash) or analysis_in_library(path)  # another reviewer's, in a team library
    if saved is not None:
        return saved, False
    return Analysis(video=probe(path), content_hash=content_hash), True  # probe: the error for a non-video


def _by_prefix(analysis, prefix: str):
    from ..errors import RecordError

    found = [n for n in analysis.notes if n.id.startswith(prefix)]
    if len(found) != 1:
        raise RecordError(None, f"{'no' if not found else 'more than one'} note id starts with {prefix!r}")
    return found[0]


def _print(analysis, as_json: bool) -> None:
    from ..smpte import span

    if as_json:
        print(json.dumps([n.to_dict() for n in analysis.notes], indent=2, ensure_ascii=False))
        return
    fps = analysis.video.fps
    for n in analysis.notes:
        when = span(n.frame, n.last_frame, fps, "-")
        drawing = f" [drawing: {len(n.drawing)} shapes]" if n.drawing else ""
        print(f"{n.id[:8]}  {when}  {n.status:8}  {n.tag:6}  {n.author}: {n.text}{drawing}")
