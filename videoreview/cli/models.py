"""`videoreview models list [--json] | pull NAME | remove NAME | verify NAME | path NAME |
add DIR | use NAME | device | convert-llava-onevision SRC DST | server add|list|remove|key`."""

from __future__ import annotations

import argparse
import json
import os
import sys

from ..engines.device import DEVICES
from ..engines.registry import CAPABILITIES
from ..errors import VideoReviewError


def add_parsers(sub) -> None:
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
    use = actions.add_parser("use", help="choose the engine for capabilities (a catalog model for every "
                                         "capability it serves, or 'builtin' or a model folder with --for)")
    use.add_argument("name", metavar="NAME")
    use.add_argument("--for", dest="capabilities", action="append", metavar="CAPABILITY",
                     choices=list(CAPABILITIES))
    use.set_defaults(run=cmd_use)
    device = actions.add_parser("device", help="the devices here and their free memory; with DEVICE, choose it")
    device.add_argument("device", nargs="?", choices=DEVICES)
    device.set_defaults(run=cmd_device)
    convert = actions.add_parser("convert-llava-onevision",
                                 help="convert a LLaVA-NeXT layout checkpoint (ProgressCaptioner's release) to the "
                                      "Hugging Face layout the engines load")
    convert.add_argument("src", metavar="SRC")
    convert.add_argument("dst", metavar="DST", help="a new folder; use it as captions=vlm:DST")
    convert.set_defaults(run=cmd_convert)
    _server_parsers(actions)


def _server_parsers(actions) -> None:
    server = actions.add_parser("server", help="model servers (vLLM, Ollama, LM Studio: an OpenAI-compatible "
                                               "API) to caption, write summaries and (vLLM) score with: "
                                               "--engines captions=server:NAME, --writer / --scorer server:NAME")
    servers = server.add_subparsers(dest="server_command", metavar="ACTION", required=True)
    add = servers.add_parser("add", help="add (or change) a server")
    add.add_argument("name", metavar="NAME")
    add.add_argument("url", metavar="URL", help="the API's base, e.g. http://localhost:8000/v1 (vLLM), "
                                                "http://localhost:11434/v1 (Ollama)")
    add.add_argument("--model", required=True, metavar="M", help="the model name the server knows")
    add.add_argument("--api-key-env", default="", metavar="VAR",
                     help="the environment variable holding the key (default: the system keyring, if any)")
    add.add_argument("--concurrency", type=int, default=4, metavar="N", help="requests in flight at once (4)")
    add.add_argument("--timeout", type=float, default=120.0, metavar="S", help="seconds to wait for a reply (120)")
    add.set_defaults(run=cmd_server_add)
    ls = servers.add_parser("list", help="the servers added")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(run=cmd_server_list)
    remove = servers.add_parser("remove", help="forget a server")
    remove.add_argument("name", metavar="NAME")
    remove.set_defaults(run=cmd_server_remove)
    key = servers.add_parser("key", help="store a server's API key in the system keyring (read from stdin)")
    key.add_argument("name", metavar="NAME")
    key.set_defaults(run=cmd_server_key)


def _command(work):
    """A command from ``work(args)``, which returns what to print."""
    def run(args: argparse.Namespace) -> int:
        out = work(args)
        print(out)
        return 0

    return run


def _size(entry) -> int | None:
    """The catalog's download size, or for an installed model without one what it takes on disk."""
    from ..models.catalog import disk_use

    return entry.size_bytes if entry.size_bytes is not None else disk_use(entry)


@_command
def cmd_list(args: argparse.Namespace) -> str:
    from ..choices import load_choices
    from ..models.catalog import installed_path, load_catalog

    choices = load_choices()[0]
    rows = []
    for entry in load_catalog().values():
        folder = installed_path(entry)
        rows.append({"name": entry.name, "family": entry.family, "tasks": list(entry.tasks),
                     "license": entry.license, "size_bytes": _size(entry), "installed": folder is not None,
                     "builtin": entry.builtin, "repo": entry.repo, "revision": entry.revision,
                     "chosen_for": [key for key, name in choices.items() if name == entry.name]})
    if args.json:
        return json.dumps(rows, indent=2)
    lines = []
    name_width, family_width = (max((len(row[key]) for row in rows), default=0) for key in ("name", "family"))
    for row in rows:
        size = f"{row['size_bytes'] / 1e6:8.1f} MB" if row["size_bytes"] is not None else "       ? MB"
        state = "builtin" if row["builtin"] else ("installed" if row["installed"] else "not installed")
        chosen = f"  (chosen for {', '.join(row['chosen_for'])})" if row["chosen_for"] else ""
        lines.append(f"{row['name']:<{name_width}}  {row['family']:<{family_width}} {size}  "
                     f"{row['license']:<14} {state:<13} {', '.join(row['tasks'])}{chosen}")
    return "\n".join(lines)


@_command
def cmd_path(args: argparse.Namespace) -> str:
    from ..models.folders import installed_folder

    return os.fspath(installed_folder(_entry(args.name)))


def _entry(name: str):
    from ..models.catalog import find

    return find(name)


@_command
def cmd_pull(args: argparse.Namespace) -> str:
    from ..models.manager import pull

    entry = _entry(args.name)
    if not entry.builtin:
        size = f", {entry.size_bytes / 1e9:.2f} GB" if entry.size_bytes else ""
        print(f"{entry.name}: {entry.repo} at {entry.revision[:12]}, licence {entry.license}{size}", file=sys.stderr)
    folder = pull(entry)
    if "image-text" in entry.tasks:
        _prepare_namer(entry.name, folder)
    return os.fspath(folder)


def _prepare_namer(name: str, folder) -> None:
    """An image-text model's ONNX export and its vocabulary's embeddings, made once here
    rather than in the first analysis that names shots with it (minutes on a CPU)."""
    from ..engines.embeddings.image_text import ImageTextEncoder
    from ..engines.embeddings.naming import ShotNamer

    namer = ShotNamer(ImageTextEncoder(folder))
    print(f"{name}: embedding the {len(namer.vocabulary.names):,} names it tells shots by, once "
          "(a few minutes on a CPU)", file=sys.stderr)
    namer.text_embeddings()


@_command
def cmd_verify(args: argparse.Namespace) -> str:
    from ..models.manager import verify

    return f"{args.name}: ok ({verify(_entry(args.name))})"


@_command
def cmd_remove(args: argparse.Namespace) -> str:
    from ..models.manager import remove

    return f"removed {args.name} ({remove(_entry(args.name)) / 1e6:.1f} MB freed)"


@_command
def cmd_add(args: argparse.Namespace) -> str:
    from pathlib import Path

    from ..models.catalog import load_catalog
    from ..models.manager import add

    entry, folder = add(Path(args.folder), load_catalog())
    return f"added {entry.name} ({entry.license}) at {folder}"


@_command
def cmd_use(args: argparse.Namespace) -> str:
    from ..choices import models_for, save_choice
    from ..models.catalog import installed_path, load_catalog

    catalog = load_catalog()
    keys = args.capabilities or [key for key in CAPABILITIES if args.name in models_for(key, catalog)]
    if not keys:
        raise VideoReviewError(f"{args.name}: name the capability with --for "
                               f"({', '.join(CAPABILITIES)}), or a catalog model (videoreview models list)")
    for key in keys:
        try:
            save_choice(key, args.name)
        except ValueError as exc:
            raise VideoReviewError(str(exc)) from None
    entry = catalog.get(args.name)
    later = (f" (not installed yet: videoreview models pull {args.name})"
             if entry is not None and installed_path(entry) is None else "")
    return f"{', '.join(keys)}: {args.name}{later}"


@_command
def cmd_device(args: argparse.Namespace) -> str:
    from ..choices import load_choices, save_choice
    from ..engines.device import free_memory_gb, present

    if args.device:
        save_choice("device", args.device)
    choices = load_choices()[0]
    chosen = choices.get("device", "auto")
    lines = [f"chosen: {chosen}"]
    for device in present():
        free = free_memory_gb(device)
        lines.append(f"{device:<5} {'?' if free is None else f'{free:.1f}'} GB free")
    return "\n".join(lines + where_stages_run(choices))


def where_stages_run(choices: dict[str, str]) -> list[str]:
    """"runs on: CAPABILITY DEVICE" per analysis stage, for the engines and device chosen."""
    from ..about import where
    from ..choices import device_in
    from ..engines.registry import analysis_capabilities

    device = device_in(choices)
    return [f"runs on: {c.key} {where(c.key, choices.get(c.key, c.default), device)}"
            for c in analysis_capabilities() if choices.get(c.key, c.default) != "none"]


@_command
def cmd_convert(args: argparse.Namespace) -> str:
    from pathlib import Path

    from ..engines.captions.llava_convert import convert

    return f"converted to {convert(Path(args.src), Path(args.dst))}"


@_command
def cmd_server_add(args: argparse.Namespace) -> str:
    from ..models.servers import Server, add_server

    add_server(Server(args.name, args.url, args.model, args.api_key_env, args.concurrency, args.timeout))
    return f"{args.name}: {args.url} ({args.model}); use it with --engines captions=server:{args.name}"


@_command
def cmd_server_list(args: argparse.Namespace) -> str:
    from dataclasses import asdict

    from ..models.servers import servers

    known = servers()
    if args.json:
        return json.dumps([asdict(s) for s in known.values()], indent=2)
    if not known:
        return "no model servers (videoreview models server add NAME URL --model M)"
    return "\n".join(f"{s.name}  {s.url}  model {s.model}  key from {s.api_key_env or 'the keyring'}  "
                     f"{s.concurrency} at once, {s.timeout:g} s" for s in known.values())


@_command
def cmd_server_remove(args: argparse.Namespace) -> str:
    from ..models.servers import remove_server

    remove_server(args.name)
    return f"{args.name}: removed"


@_command
def cmd_server_key(args: argparse.Namespace) -> str:
    import getpass

    from ..models.servers import store_key

    key = getpass.getpass(f"API key for {args.name}: ") if sys.stdin.isatty() else sys.stdin.readline().strip()
    store_key(args.name, key)
    return f"{args.name}: key stored in the system keyring"
