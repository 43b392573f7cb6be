"""`videoreview library add PATH... | list | remove ID | search QUERY | notes | rebuild | location |
export | import`."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys

from ..records import NOTE_STATUSES, NOTE_TAGS
from .common import EXIT_ERROR, EXIT_USAGE, add_library_option, parse_engines, print_error


def add_parsers(sub) -> None:
    p = sub.add_parser("library", help="the library of analysed videos: add, list, remove, search, notes, rebuild")
    commands = p.add_subparsers(dest="library_command", metavar="ACTION", required=True)
    a = commands.add_parser(
        "add", help="add video files or folders (recursively); analyse and index what is new",
        description="Add video files or folders (searched recursively by file suffix); analyse and index "
                    "what is new or changed. Files that are not usable videos are refused and listed at the "
                    "end with their reasons; the rest are indexed.",
        epilog="Exit status: 0 when at least one of the videos is in the library (indexed now or before), "
               "also when others were refused; 1 when none could be indexed.")
    a.add_argument("paths", nargs="+", metavar="PATH")
    a.add_argument("--engines", action="append", metavar="CAP=NAME[,CAP=NAME]", help="as for analyze")
    a.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    a.add_argument("--cluster", metavar="ADDRESS",
                   help="analyse on a Ray cluster: ray://HOST:10001, HOST:6379 or auto (the 'cluster' extra; the "
                        "workers must see the videos at the same paths: docs/cluster.md)")
    a.add_argument("--actors", type=int, metavar="N", help="with --cluster: how many videos at once (default: one "
                                                            "per GPU where the engines use one, else one per CPU)")
    a.set_defaults(run=lambda args: cmd_add(args, parse_engines(args.engines)))
    ls = commands.add_parser("list", help="the library's videos with their status and people")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(run=cmd_list)
    rm = commands.add_parser("remove", help="forget a video (the file is not touched)")
    rm.add_argument("id", type=int, metavar="ID")
    rm.set_defaults(run=cmd_remove)
    s = commands.add_parser("search", help="find moments by text")
    s.add_argument("query", metavar="QUERY")
    s.add_argument("--top", type=int, default=10, metavar="K")
    s.add_argument("--video", type=int, metavar="ID", help="only in this video (see 'library list')")
    s.add_argument("--identity", metavar="NAME", help="only while this person is on screen: P2, or a given name")
    s.add_argument("--kind", metavar="KIND", help="only this kind of moment: caption, labels, objects, tags, "
                                                  "boundary, speech, text, summary, identity, file or note")
    s.add_argument("--tag", choices=NOTE_TAGS, help="only notes with this tag (colour)")
    s.add_argument("--status", choices=NOTE_STATUSES, help="only notes that are open, or resolved")
    s.add_argument("--author", metavar="NAME", help="only notes by this reviewer (any case)")
    s.add_argument("--json", action="store_true", help="a ranked list of {path, video_id, start, end, text, score}")
    s.set_defaults(run=cmd_search)
    n = commands.add_parser("notes", help="reviewers' notes across the library (the open ones unless told)",
                            description="Reviewers' notes in every video of the library, video by video in "
                                        "time order: video, timecode, tag, author, text.")
    n.add_argument("--status", choices=(*NOTE_STATUSES, "all"), default="open", help="open (the default), "
                                                                                     "resolved or all notes")
    n.add_argument("--tag", choices=NOTE_TAGS, help="only notes with this tag (colour)")
    n.add_argument("--author", metavar="NAME", help="only notes by this reviewer (any case)")
    n.add_argument("--json", action="store_true", help="a list of {path, video_id, id, start, end, frame, "
                                                       "last_frame, text, tag, status, author}")
    n.set_defaults(run=cmd_notes)
    r = commands.add_parser("rebuild", help="rebuild the catalog's index from the saved analyses (and the "
                                            "vector index); a damaged catalog is moved aside first")
    r.set_defaults(run=cmd_rebuild)
    e = commands.add_parser("export", help="copy the library in use to another: a folder, or a team library's "
                                           "postgresql:// URL (videos, analyses, edits, notes and authors)")
    e.add_argument("destination", metavar="FOLDER|URL")
    e.set_defaults(run=cmd_export)
    i = commands.add_parser("import", help="copy another library (a folder, or a team library's URL) into the "
                                           "one in use")
    i.add_argument("source", metavar="FOLDER|URL")
    i.set_defaults(run=cmd_import)
    loc = commands.add_parser("location", help="print which library is in use, or move it to FOLDER (the "
                                               "catalog and saved analyses are copied there when it has none), "
                                               "or choose a team library by its postgresql:// URL")
    loc.add_argument("folder", nargs="?", metavar="FOLDER|URL")
    loc.set_defaults(run=cmd_location)
    pw = commands.add_parser("password", help="keep a team library's password in the system keyring (read "
                                              "from the terminal, or a line of standard input)")
    pw.add_argument("url", metavar="URL")
    pw.set_defaults(run=cmd_password)
    for action in commands.choices.values():
        add_library_option(action)


def _catalog(readonly: bool = False):
    from ..library.catalogs import open_catalog

    return open_catalog(readonly=readonly)


def cmd_add(args: argparse.Namespace, engines: dict) -> int:
    if args.cluster:
        return cmd_add_on_cluster(args, engines)
    if args.actors is not None:
        print_error("--actors goes with --cluster")
        return EXIT_USAGE
    from ..library.frames import chosen_frame_embedder
    from ..library.indexer import add_paths
    from .progress import ProgressBar

    shown: ProgressBar | None = None  # the video being analysed
    current = ""

    def report(path: str, what: str, detail: str) -> None:
        nonlocal shown, current
        if shown is not None:
            shown.close()
            shown = None
        current = os.path.basename(path)
        if not args.quiet:
            print(f"{what:>9}  {path}", file=sys.stderr)

    def progress(stage: str, fraction: float, message: str) -> None:
        nonlocal shown
        if shown is None:
            shown = ProgressBar(current, quiet=args.quiet, leave=False)
        shown.update(stage, fraction, message)

    try:
        result = add_paths(args.paths, engines=engines or None, report=report, progress=progress,
                           frames=chosen_frame_embedder())
    finally:
        if shown is not None:
            shown.close()
    return _added(result)


def _added(result) -> int:
    """The end of an add: what was refused, the counts, the exit status."""
    for path, why in result.skipped:
        print_error(f"{path}: {why}")
    if result.failed:
        print("refused:", file=sys.stderr)
        for _path, problem in result.failed:
            print(f"  {problem}", file=sys.stderr)  # the problem names the file
    elsewhere = f", {len(result.elsewhere)} being analysed elsewhere" if result.elsewhere else ""
    print(f"{len(result.indexed)} indexed, {len(result.unchanged)} unchanged, {len(result.failed)} failed{elsewhere}")
    in_library = result.indexed or result.unchanged or result.elsewhere
    return EXIT_ERROR if not in_library and (result.failed or result.skipped) else 0


def cmd_add_on_cluster(args: argparse.Namespace, engines: dict) -> int:
    from ..cluster.connect import import_ray, parse_address
    from ..cluster.driver import add_on_cluster
    from ..library.frames import chosen_frame_embedder

    if args.actors is not None and args.actors < 1:
        print_error("--actors must be at least 1")
        return EXIT_USAGE
    parse_address(args.cluster)  # a mistyped address or no Ray: one line before anything loads
    import_ray()
    bar = ClusterBar(quiet=args.quiet)
    try:
        # Ray prints what its nodes report (a node that died, say) on stdout: sent to stderr
        # here, so that stdout holds only the counts, as for a local add.
        with contextlib.redirect_stdout(sys.stderr):
            result = add_on_cluster(args.paths, args.cluster, engines, report=bar.report, actors=args.actors,
                                    frames=chosen_frame_embedder())
    finally:
        bar.close()
    return _added(result)


class ClusterBar:
    """Progress of a cluster run: one bar (queued, running, done, failed) on a terminal,
    above it a line per video sent, retried, indexed or failed (where, and why)."""

    def __init__(self, quiet: bool = False, stream=None) -> None:
        self.quiet, self.stream = quiet, stream or sys.stderr
        self.queued: set[str] = set()
        self.running: set[str] = set()
        self.done = self.failed = 0
        self.bar = None
        if not quiet and self.stream.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=0, desc="cluster", unit="video", file=self.stream, leave=True)

    def report(self, path: str, what: str, detail: str) -> None:
        if what in ("queued", "retrying"):
            self.running.discard(path)
            self.queued.add(path)
        elif what == "running":
            self.queued.discard(path)
            self.running.add(path)
        elif what in ("indexed", "failed", "elsewhere"):
            self.queued.discard(path)
            self.running.discard(path)
            self.done += what == "indexed"
            self.failed += what == "failed"
        if what == "notice":
            self._line(f"videoreview: notice: {detail}")
        elif what == "failed":
            self._line(f"{what:>9}  {detail}")  # the problem names the file
        elif what != "queued":
            self._line(f"{what:>9}  {path}" + (f"  ({detail})" if detail else ""))
        if self.bar is not None:
            self.bar.total = len(self.queued) + len(self.running) + self.done + self.failed
            self.bar.n = self.done + self.failed
            self.bar.set_postfix_str(f"queued {len(self.queued)}, running {len(self.running)}, done {self.done}, "
                                     f"failed {self.failed}", refresh=False)
            self.bar.refresh()

    def _line(self, text: str) -> None:
        if self.quiet and not text.startswith("videoreview:"):
            return
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def cmd_list(args: argparse.Namespace) -> int:
    with _catalog(readonly=True) as catalog:
        videos = catalog.videos()
    if args.json:
        json.dump([{"id": v.id, "path": v.path, "status": v.status, "duration": v.duration,
                    "identities": [{"id": pid, "name": name} for pid, name in v.identities], "error": v.error}
                   for v in videos], sys.stdout, ensure_ascii=False, indent=2)
        print()
        return 0
    for v in videos:
        people = ", ".join(f"{name} ({pid})" if name else pid for pid, name in v.identities)
        length = f"{v.duration:7.1f} s" if v.duration is not None else "      ? s"
        print(f"{v.id:>4}  {v.status:<9} {length}  {v.path}" + (f"  [{people}]" if people else "")
              + (f"  ({v.error})" if v.error else ""))
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    with _catalog() as catalog:
        if not catalog.remove(args.id):
            print_error(f"no video with id {args.id} in the library (see 'videoreview library list')")
            return EXIT_ERROR
    print(f"removed video {args.id}")
    return 0


def cmd_location(args: argparse.Namespace) -> int:
    from ..library.catalogs import describe
    from ..library.location import change_location
    from ..paths import library_location

    if args.folder is None:
        _, problem = library_location()
        if problem:
            print_error(problem)
        print(describe())
        return 0
    print(change_location(args.folder))
    return 0


def cmd_password(args: argparse.Namespace) -> int:
    import getpass

    from ..library.team.url import display, store_password

    password = getpass.getpass(f"Password for {display(args.url)}: ") if sys.stdin.isatty() \
        else sys.stdin.readline().rstrip("\n")
    store_password(args.url, password)
    print(f"{display(args.url)}: password kept in the system keyring")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from ..library.frames import chosen_frame_embedder
    from ..library.indexer import text_embedder
    from ..library.search import NoteFilter, Searcher, query_words
    from ..library.units import KINDS
    from ..timecode import format_time

    if args.kind is not None and args.kind not in KINDS:
        print_error(f"--kind {args.kind!r} is not one of {', '.join(KINDS)}")
        return EXIT_ERROR
    query_words(args.query)  # a query with no words fails before the model loads
    with _catalog(readonly=True) as catalog:
        searcher = Searcher(catalog, text_embedder(), chosen_frame_embedder())
        moments = searcher.search(args.query, top=args.top, video_id=args.video, identity=args.identity,
                                  kind=args.kind, notes=NoteFilter(args.tag, args.status, args.author))
    if args.json:
        json.dump([m.to_json() for m in moments], sys.stdout, ensure_ascii=False, indent=2)
        print()
        return 0
    if not moments:
        print("no matches")
    shown: list[str] = []
    for m in moments:  # grouped by video, videos in the order of their best moment
        if m.path not in shown:
            shown.append(m.path)
    for path in shown:
        print(path)
        for m in (m for m in moments if m.path == path):
            print(f"  {format_time(m.start)}-{format_time(m.end)}  {m.score:.4f}  [{m.kind}] {m.text[:100]}")
    return 0


def cmd_notes(args: argparse.Namespace) -> int:
    from ..library.search import NoteFilter, list_notes

    status = None if args.status == "all" else args.status
    with _catalog(readonly=True) as catalog:
        notes = list_notes(catalog, NoteFilter(args.tag, status, args.author))
    if args.json:
        json.dump([n.to_json() for n in notes], sys.stdout, ensure_ascii=False, indent=2)
        print()
        return 0
    if not notes:
        print("no notes")
    for n in notes:
        status = f"  {n.status:8}" if args.status == "all" else ""
        print(f"{os.path.basename(n.path)}  {n.when('-')}{status}  {n.tag:6}  {n.author}: {n.text}")
    return 0


def cmd_rebuild(args: argparse.Namespace) -> int:
    from ..library.frames import chosen_frame_embedder
    from ..library.indexer import rebuild

    def report(path: str, what: str, detail: str) -> None:
        print(f"{what:>9}  {path}" + (f" ({detail})" if detail else ""), file=sys.stderr)

    catalog, moved = rebuild(report=report, frames=chosen_frame_embedder())
    with catalog:
        count = len(catalog.videos())
    if moved:
        print(f"the old catalog could not be used and was moved to {moved}")
    print(f"rebuilt: {count} videos")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from ..library.transfer import open_at

    return _copy(_catalog(readonly=True), open_at(args.destination), f"exported to {args.destination}")


def cmd_import(args: argparse.Namespace) -> int:
    from ..library.transfer import open_at

    return _copy(open_at(args.source, readonly=True), _catalog(), f"imported from {args.source}")


def _copy(source, target, done: str) -> int:
    from ..library.indexer import text_embedder
    from ..library.transfer import copy_library

    with source, target:
        moved = copy_library(source, target, text_embedder().embed,
                             lambda path, what: print(f"{what}  {path}", file=sys.stderr))
    print(f"{moved.summary()} {done}")
    return 0

