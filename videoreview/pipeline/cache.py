"""Finished pipeline stages, kept per video and reused when nothing changed.

A stage result is keyed by the video's content hash, the stage name, and the engine's
name and version: a moved or renamed file hits the cache, an edited file or a new
engine version misses it. Hashing a large file takes a while, so the hash is remembered
per (path, size, mtime) in a small index; a file that changes gets hashed again.
All writes go through ``write_atomic``: a crash leaves the previous entry intact.
The cache holds JSON: the runner writes a stage's result as its Result's ``to_json`` and
reads it back with the stage's ``Result.from_json`` (pipeline/stages/result.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from pathlib import Path
from typing import Any

from ..paths import cache_dir
from ..records import write_atomic

CACHE_FORMAT = 1
_CHUNK = 1 << 20
_lock = threading.Lock()  # guards the hash index file within one process


def file_hash(path: str | os.PathLike) -> str:
    """SHA-256 of the file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _safe(part: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", part)


class StageCache:
    def __init__(self, root: Path | None = None):
        self.root = Path(root) if root is not None else cache_dir()
        self.root.mkdir(parents=True, exist_ok=True)
        self._index_path = self.root / "hash-index.json"

    # -- content hashes -------------------------------------------------------------
    def content_hash(self, path: str | os.PathLike) -> str:
        real = os.path.realpath(path)
        stat = os.stat(real)
        key = f"{real}|{stat.st_size}|{stat.st_mtime_ns}"
        with _lock:
            index = self._read_index()
            if key in index:
                return index[key]
        digest = file_hash(real)
        with _lock:
            index = self._read_index()
            # Drop stale keys of the same path so the index does not grow forever.
            index = {k: v for k, v in index.items() if not k.startswith(real + "|")}
            index[key] = digest
            write_atomic(self._index_path, json.dumps(index).encode())
        return digest

    def _read_index(self) -> dict[str, str]:
        try:
            data = json.loads(self._index_path.read_text())
            return data if isinstance(data, dict) else {}
        except (FileNotFoundError, ValueError):
            return {}

    # -- stage results --------------------------------------------------------------
    def entry_path(self, content_hash: str, stage: str, engine: str, version: str) -> Path:
        name = f"{_safe(stage)}--{_safe(engine)}--{_safe(version)}.json"
        return self.root / content_hash[:2] / content_hash / name

    def get(self, content_hash: str, stage: str, engine: str, version: str) -> Any | None:
        """The stored result, or None when absent or unreadable (a damaged entry is a miss)."""
        entry = self.get_entry(content_hash, stage, engine, version)
        return entry[0] if entry is not None else None

    def get_entry(self, content_hash: str, stage: str, engine: str, version: str) -> tuple[Any, str] | None:
        """(the stored result, the device it was made on: "" when not recorded), or None."""
        path = self.entry_path(content_hash, stage, engine, version)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError, UnicodeDecodeError):
            return None
        if not isinstance(data, dict) or data.get("cache_format") != CACHE_FORMAT or data.get("result") is None:
            return None
        return data["result"], str(data.get("device", ""))

    def put(self, content_hash: str, stage: str, engine: str, version: str, result: Any, device: str = "") -> Path:
        path = self.entry_path(content_hash, stage, engine, version)
        payload = {"cache_format": CACHE_FORMAT, "stage": stage, "engine": engine, "version": version,
                   "device": device, "result": result}
        write_atomic(path, json.dumps(payload, ensure_ascii=False).encode("utf-8"))
        return path

    def entries(self) -> list[Path]:
        return sorted(p for p in self.root.glob("??/*/*.json"))
