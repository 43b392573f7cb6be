"""What every command shares: one line per error, the exit codes, and the engines the
user chose (see choices.py) with ``--engines`` overrides."""

from __future__ import annotations

import argparse
import functools
import sys

EXIT_ERROR = 1
EXIT_USAGE = 2


def print_error(message: str) -> None:
    print(f"videoreview: error: {message}", file=sys.stderr)


@functools.cache
def chosen():
    """The engines and the device chosen (choices.py), each notice about a chosen model
    that cannot be used printed once per command."""
    from ..choices import choose

    return choose(lambda text: print(f"videoreview: notice: {text}", file=sys.stderr))


def parse_engines(values: list[str] | None) -> dict[str, str]:
    """The chosen engines with ``--engines CAP=NAME`` overrides (an explicit choice has no fallback)."""
    engines = chosen().analysis_engines()
    for value in values or []:
        for item in value.split(","):
            capability, sep, name = item.partition("=")
            if not sep or not capability or not name:
                raise argparse.ArgumentTypeError(f"--engines expects CAPABILITY=NAME, got {item!r}")
            if name == "none":
                engines.pop(capability, None)
            else:
                engines[capability] = name
    return engines


def add_analysis_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--engines", action="append", metavar="CAP=NAME[,CAP=NAME]", help="as for analyze")
    p.add_argument("--no-cache", action="store_true", help="recompute every stage")
    p.add_argument("--backend", choices=["auto", "decord", "pyav"], default="auto", help="video decoder")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")


def add_library_option(parser) -> None:
    parser.add_argument("--library", dest="library_choice", metavar="URL|FOLDER",
                        help="the library to use: a team library's postgresql:// URL, or a folder (as "
                             "VIDEOREVIEW_LIBRARY; default: the one chosen in Settings, else the data folder)")
