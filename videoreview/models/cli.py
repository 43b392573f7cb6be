"""`videoreview models list [--json] | pull NAME | remove NAME | verify NAME | path NAME |
add DIR` (convert-llava-onevision to come)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from ..cli import EXIT_ERROR, EXIT_USAGE, print_error
from ..errors import VideoReviewError

NOT_YET = ("convert-llava-onevision",)


def add_parser(sub) -> None:
    p = sub.add_parser("models", help="the model catalog: what can be installed, and where it is")
    actions = p.add_subparsers(dest="models_command", metavar="ACTION", required=True)
    ls = actions.add_parser("list", help="the catalog's models, their licences and sizes, and which are installed")
    ls.add_argument("--json", action="store_true", help="a list of {name, family, tasks, license, size_bytes, "
                                                        "installed}")
    ls.set_defaults(run=cmd_list)
    path = actions.add_parser("path", help="the folder an installed model is loaded from")
    path.add_argument("name", metavar="NAME")
    path.set_defaults(run=cmd_path)
    for action, text, run in (("pull", "download a model at its pinned revision (resumes), then verify it", cmd_pull),
                              ("verify", "check an installed model: config, no remote code, safetensors, revision",
                               cmd_verify),
                              ("remove", "delete a pulled model from the cache", cmd_remove)):
        a = actions.add_parser(action, help=text)
        a.add_argument("name", metavar="NAME")
        a.set_defaults(run=run)
    add = actions.add_parser("add", help="install a model folder copied by hand (no network needed)")
    add.add_argument("folder", metavar="DIR")
    add.set_defaults(run=cmd_add)
    for name in NOT_YET:
        later = actions.add_parser(name, help="(not yet available)")
        later.add_argument("args", nargs=argparse.REMAINDER)
        later.set_defaults(run=lambda args, _name=name: _not_yet(_name))


def _not_yet(name: str) -> int:
    print_error(f"'videoreview models {name}' is not yet available in this version")
    return EXIT_USAGE


def _command(work):
    """A command from ``work(args)``, which returns what to print: a VideoReviewError
    becomes one line on stderr and exit status 1."""
    def run(args: argparse.Namespace) -> int:
        try:
            out = work(args)
        except VideoReviewError as exc:
            print_error(str(exc))
            return EXIT_ERROR
        print(out)
        return 0

    return run


def _size(entry, folder) -> int | None:
    """The catalog's download size, or for an installed builtin model what it takes on disk."""
    if entry.size_bytes is not None or folder is None:
        return entry.size_bytes
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


@_command
def cmd_list(args: argparse.Namespace) -> str:
    from .catalog import installed_path, load_catalog

    rows = []
    for entry in load_catalog().values():
        folder = installed_path(entry)
        rows.append({"name": entry.name, "family": entry.family, "tasks": list(entry.tasks),
                     "license": entry.license, "size_bytes": _size(entry, folder), "installed": folder is not None,
                     "builtin": entry.builtin, "repo": entry.repo, "revision": entry.revision})
    if args.json:
        return json.dumps(rows, indent=2)
    lines = []
    for row in rows:
        size = f"{row['size_bytes'] / 1e6:8.1f} MB" if row["size_bytes"] is not None else "       ? MB"
        state = "builtin" if row["builtin"] else ("installed" if row["installed"] else "not installed")
        lines.append(f"{row['name']:<28} {size}  {row['license']:<14} {state:<13} {', '.join(row['tasks'])}")
    return "\n".join(lines)


@_command
def cmd_path(args: argparse.Namespace) -> str:
    from .manager import installed_folder

    return os.fspath(installed_folder(_entry(args.name)))


def _entry(name: str):
    from .catalog import find

    return find(name)


@_command
def cmd_pull(args: argparse.Namespace) -> str:
    from .manager import pull

    entry = _entry(args.name)
    if not entry.builtin:
        size = f", {entry.size_bytes / 1e9:.2f} GB" if entry.size_bytes else ""
        print(f"{entry.name}: {entry.repo} at {entry.revision[:12]}, licence {entry.license}{size}", file=sys.stderr)
    return os.fspath(pull(entry))


@_command
def cmd_verify(args: argparse.Namespace) -> str:
    from .manager import verify

    return f"{args.name}: ok ({verify(_entry(args.name))})"


@_command
def cmd_remove(args: argparse.Namespace) -> str:
    from .manager import remove

    return f"removed {args.name} ({remove(_entry(args.name)) / 1e6:.1f} MB freed)"


@_command
def cmd_add(args: argparse.Namespace) -> str:
    from pathlib import Path

    from .catalog import load_catalog
    from .manager import add

    entry, folder = add(Path(args.folder), load_catalog())
    return f"added {entry.name} ({entry.license}) at {folder}"
