"""`videoreview models list [--json] | pull NAME | remove NAME | verify NAME | path NAME |
add DIR` (convert-llava-onevision to come)."""

from __future__ import annotations

import argparse
import json
import os
import sys

from ..errors import VideoReviewError

EXIT_ERROR = 1
EXIT_USAGE = 2
NOT_YET = ("convert-llava-onevision",)


def _error(message: str) -> None:
    print(f"videoreview: error: {message}", file=sys.stderr)


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
    _error(f"'videoreview models {name}' is not yet available in this version")
    return EXIT_USAGE


def _size(entry, folder) -> int | None:
    """The catalog's download size, or for an installed builtin model what it takes on disk."""
    if entry.size_bytes is not None or folder is None:
        return entry.size_bytes
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def cmd_list(args: argparse.Namespace) -> int:
    from .catalog import installed_path, load_catalog

    try:
        catalog = load_catalog()
    except VideoReviewError as exc:
        _error(str(exc))
        return EXIT_ERROR
    rows = []
    for entry in catalog.values():
        folder = installed_path(entry)
        rows.append({"name": entry.name, "family": entry.family, "tasks": list(entry.tasks),
                     "license": entry.license, "size_bytes": _size(entry, folder), "installed": folder is not None,
                     "builtin": entry.builtin, "repo": entry.repo, "revision": entry.revision})
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        print()
        return 0
    for row in rows:
        size = f"{row['size_bytes'] / 1e6:8.1f} MB" if row["size_bytes"] is not None else "       ? MB"
        state = "builtin" if row["builtin"] else ("installed" if row["installed"] else "not installed")
        print(f"{row['name']:<28} {size}  {row['license']:<14} {state:<13} {', '.join(row['tasks'])}")
    return 0


def cmd_path(args: argparse.Namespace) -> int:
    from .catalog import find, installed_path

    try:
        entry = find(args.name)
    except VideoReviewError as exc:
        _error(str(exc))
        return EXIT_ERROR
    folder = installed_path(entry)
    if folder is None:
        _error(f"{entry.name} is not installed (videoreview models pull {entry.name})")
        return EXIT_ERROR
    print(os.fspath(folder))
    return 0


def _entry(name: str):
    from .catalog import find

    return find(name)


def cmd_pull(args: argparse.Namespace) -> int:
    from .manager import pull

    try:
        entry = _entry(args.name)
        if not entry.builtin:
            size = f", {entry.size_bytes / 1e9:.2f} GB" if entry.size_bytes else ""
            print(f"{entry.name}: {entry.repo} at {entry.revision[:12]}, licence {entry.license}{size}",
                  file=sys.stderr)
        folder = pull(entry)
    except VideoReviewError as exc:
        _error(str(exc))
        return EXIT_ERROR
    print(os.fspath(folder))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from .manager import verify

    try:
        folder = verify(_entry(args.name))
    except VideoReviewError as exc:
        _error(str(exc))
        return EXIT_ERROR
    print(f"{args.name}: ok ({folder})")
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    from .manager import remove

    try:
        freed = remove(_entry(args.name))
    except VideoReviewError as exc:
        _error(str(exc))
        return EXIT_ERROR
    print(f"removed {args.name} ({freed / 1e6:.1f} MB freed)")
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .catalog import load_catalog
    from .manager import add

    try:
        entry, folder = add(Path(args.folder), load_catalog())
    except VideoReviewError as exc:
        _error(str(exc))
        return EXIT_ERROR
    print(f"added {entry.name} ({entry.license}) at {folder}")
    return 0
