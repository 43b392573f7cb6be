"""The command line: the same jobs as the window, without one.

Errors a user can cause (bad file, bad JSON) are raised as VideoReviewError, and ``main``
prints each as one line naming the file and the problem and exits with 1; nothing else is
touched. One module per command group; the rest of videoreview never imports this package.
"""

from __future__ import annotations

import argparse
import os
import sys

from ..errors import Cancelled, VideoReviewError
from ..paths import LIBRARY_ENV
from . import analyze, annotation, evaluate, library, models, notes, speech, summarize
from .common import EXIT_ERROR, EXIT_USAGE, chosen, print_error

__all__ = ["main", "build_parser", "print_error", "EXIT_ERROR", "EXIT_USAGE"]


class VersionAction(argparse.Action):
    """--version, computed only when asked (it reads the engine choices)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from ..about import version_text

        print(version_text())
        parser.exit()


def cmd_gui(args: argparse.Namespace) -> int:
    from ..gui.app import run

    return run(args.videos, screenshot=args.screenshot, at=args.at, size=args.size, layout=args.layout,
               search=args.search)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="videoreview", description="Review videos with local models.")
    parser.add_argument("--version", action=VersionAction, nargs=0,
                        help="show the versions of videoreview, Python, Qt, torch and the chosen engines, and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.commands = sub.choices
    analyze.add_parsers(sub)
    evaluate.add_parsers(sub)
    summarize.add_parsers(sub)
    annotation.add_parsers(sub)
    speech.add_parsers(sub)
    notes.add_parsers(sub)
    p = sub.add_parser("gui", help="open the window (the default with no command)")
    p.add_argument("videos", nargs="*", metavar="VIDEO", help="videos or folders to open and analyse")
    p.add_argument("--screenshot", metavar="OUT.png",
                   help="analyse, seek, save the window as a PNG and exit (0 on success)")
    p.add_argument("--at", type=float, default=None, metavar="SECONDS", help="with --screenshot: where to seek")
    p.add_argument("--size", default="1600x1000", metavar="WxH", help="with --screenshot: window size")
    p.add_argument("--layout", choices=("review", "library", "summaries"), default=None,
                   help="with --screenshot: the layout to show (default: the one last used)")
    p.add_argument("--search", default=None, metavar="TEXT", help="with --screenshot: search the library first")
    p.set_defaults(run=cmd_gui)
    library.add_parsers(sub)
    models.add_parsers(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    import multiprocessing

    multiprocessing.freeze_support()  # a frozen (PyInstaller) app starts its analysis processes through here
    chosen.cache_clear()  # the engine choices are read once per command
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] not in parser.commands and not argv[0].startswith("-") and os.path.exists(argv[0]):
        argv = ["gui", *argv]  # "videoreview FILE...": what a desktop's "Open with" runs
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):  # no command: the window, as a double-click would open it
        args = parser.parse_args(["gui"])
    if getattr(args, "library_choice", None):  # --library: for this command and the processes it starts
        os.environ[LIBRARY_ENV] = args.library_choice
    try:
        return args.run(args)
    except Cancelled:
        print_error("cancelled")
        return 130
    except VideoReviewError as exc:  # a problem the user can fix: one line naming the file and what is wrong
        print_error(str(exc))
        return EXIT_ERROR
    except KeyboardInterrupt:
        print_error("interrupted")
        return 130
