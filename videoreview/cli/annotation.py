"""`videoreview export` and `videoreview import`: a reviewed analysis in annotation tools'
and data sets' formats (annotations/), and corrections made there brought back as reviewer
edits. VIDEO is a video, whose saved Analysis (the one the window shows) is used and, on
import, saved again; ANALYSIS is an Analysis JSON file, read and written in place."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import VideoReviewError
from .common import EXIT_ERROR, add_library_option, print_error


def add_parsers(sub) -> None:
    from ..annotations import FORMATS

    readable = [f.name for f in FORMATS.values() if f.read]
    p = sub.add_parser("export", help="write a video's analysis for an annotation tool (CVAT, Label Studio, "
                                      "MOT, COCO) or a data set's layout (Kinetic-GEB+, MICap)",
                       description="Formats: " + "; ".join(f"{f.name}: {f.carries}" for f in FORMATS.values()))
    p.add_argument("source", metavar="VIDEO|ANALYSIS")
    p.add_argument("--format", required=True, choices=list(FORMATS), help="the format to write")
    p.add_argument("-o", "--output", required=True, metavar="FOLDER",
                   help="the folder to write into, laid out as the tool's importer finds it")
    p.add_argument("--frames", action="store_true", help="COCO: write the sampled frames' pictures too")
    add_library_option(p)
    p.set_defaults(run=cmd_export)

    i = sub.add_parser("import", help="bring corrections made in an annotation tool back into a video's "
                                      "analysis, as reviewer edits",
                       description=f"Formats read back: {', '.join(readable)} (guessed from the file).")
    i.add_argument("file", metavar="FILE")
    i.add_argument("--into", required=True, metavar="VIDEO|ANALYSIS")
    i.add_argument("--format", choices=readable, help="the file's format (default: guessed)")
    add_library_option(i)
    i.set_defaults(run=cmd_import)


def _load(source: str):
    """(the Analysis, where to save it: None for a video's saved one, else the JSON file)."""
    from ..records import Analysis

    if source.lower().endswith(".json") and Path(source).is_file():
        return Analysis.load(source), Path(source)
    from .notes import saved_or_probed

    return saved_or_probed(source)[0], None


def cmd_export(args: argparse.Namespace) -> int:
    from ..annotations import Options, export_annotations

    try:
        analysis, _ = _load(args.source)
        video = args.source if not args.source.lower().endswith(".json") else analysis.video.path
        for line in export_annotations(analysis, args.format, args.output, Options(video, args.frames)):
            print(f"videoreview: warning: {line}", file=sys.stderr)
    except (VideoReviewError, OSError) as exc:
        print_error(str(exc) if getattr(exc, "path", True) else f"{args.source}: {exc}")
        return EXIT_ERROR
    print(f"{args.output}: {args.format}", file=sys.stderr)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from ..annotations import read_annotations
    from ..library.indexer import index_again
    from ..pipeline import store

    try:
        analysis, json_file = _load(args.into)
        edits = read_annotations(analysis, args.file, args.format)
        for edit in edits:
            analysis = edit.change(analysis)
            print(f"{args.file}: {edit.text}" + (f" (by {edit.author})" if edit.author else ""), file=sys.stderr)
        if edits:
            if json_file is not None:
                analysis.save(json_file)
            else:
                store.save(analysis)
                index_again(args.into, analysis)
    except (VideoReviewError, OSError) as exc:
        print_error(str(exc) if getattr(exc, "path", True) else f"{args.file}: {exc}")
        return EXIT_ERROR
    print(f"{args.file}: {len(edits)} edit{'' if len(edits) == 1 else 's'}", file=sys.stderr)
    return 0
