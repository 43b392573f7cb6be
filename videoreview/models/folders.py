"""Model folders the engines load: found by path or by catalog name, and checked so that
loading them runs no code from the folder (no ``auto_map``, safetensors weights only).
The engines and the model manager both check folders here."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..errors import ModelError
from .catalog import ModelEntry, installed_path

PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".pkl", ".ckpt")


def resolve_model(spec: str | os.PathLike) -> Path:
    """A model folder from ``spec``: a path, or the name of a catalog model (see
    ``videoreview models list``), which must be installed."""
    path = Path(spec).expanduser()
    if path.exists() or os.sep in str(spec):
        return path.resolve()
    from .catalog import load_catalog  # reads every catalog file: only for a name

    catalog = load_catalog()
    if str(spec) not in catalog:
        return path.resolve()  # neither: the folder checks say it is not there
    return installed_folder(catalog[str(spec)])


def safe_config(folder: Path, name: str | None = None) -> dict:
    """The folder's config.json, after refusing what would run code when loaded."""
    name = f"{name}: " if name else ""
    config_path = folder / "config.json"
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(folder, f"{name}no config.json: not a model folder in Hugging Face layout") from None
    except (OSError, ValueError) as exc:
        raise ModelError(config_path, f"is not readable JSON ({exc})") from None
    if not isinstance(config, dict):
        raise ModelError(config_path, "is not a JSON object")
    if "auto_map" in config:
        raise ModelError(folder, f"{name}needs its own code (auto_map in config.json); videoreview never runs "
                                 f"code from a model folder (trust_remote_code stays off)")
    if not list(folder.glob("*.safetensors")):
        pickles = sorted(p.name for p in folder.iterdir() if p.suffix in PICKLE_SUFFIXES)
        why = f" (only {', '.join(pickles)}: pickle files can run code when loaded)" if pickles else ""
        raise ModelError(folder, f"{name}has no safetensors weights{why}; videoreview loads only safetensors")
    return config


def installed_folder(entry: ModelEntry) -> Path:
    """The folder ``entry`` is loaded from; ModelError when it is not installed."""
    folder = installed_path(entry)
    if folder is None:
        raise ModelError(entry.name, f"is not installed (videoreview models pull {entry.name})")
    return folder


def check_ctranslate2(folder: Path, name: str | None = None) -> str:
    """A CTranslate2 model folder (Whisper for faster-whisper): config.json, tokenizer.json
    and a model.bin whose header names its model spec. Returns the spec's name."""
    label = f"{name}: " if name else ""
    for needed in ("config.json", "tokenizer.json", "model.bin"):
        if not (folder / needed).is_file():
            raise ModelError(folder, f"{label}no {needed}: not a CTranslate2 model folder")
    return ctranslate2_spec(folder / "model.bin", label)


def ctranslate2_spec(path: Path, label: str = "", head: bytes | None = None) -> str:
    """The model spec a CTranslate2 weights file names in its header ("WhisperSpec")."""
    import struct

    try:
        if head is None:
            with open(path, "rb") as handle:
                head = handle.read(64)
        version, length = struct.unpack_from("<IH", head)
        spec = head[6:6 + length].rstrip(b"\0").decode("ascii")
    except (OSError, struct.error, UnicodeDecodeError) as exc:
        raise ModelError(path, f"{label}is not a readable CTranslate2 model ({exc})") from None
    if not 1 <= version <= 100 or not spec.isidentifier():
        raise ModelError(path, f"{label}is not a CTranslate2 model (its header is not one)")
    return spec
