"""The JSON form every record shares (``_Record``), and reading and writing JSON files."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any, get_args, get_type_hints

from ..errors import RecordError


class _Record:
    """to_dict / from_dict for every record. The records inside a record (a field typed as a
    record, an optional one or a tuple of them) are read back by their annotated type."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)  # type: ignore[call-overload]

    @classmethod
    def from_dict(cls, data: dict[str, Any]):
        if not isinstance(data, dict):
            raise RecordError(None, f"{cls.__name__}: expected an object, got {type(data).__name__}")
        names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
        # Keys this version does not know are ignored, so newer minor additions still load.
        unknown_ok = {k: v for k, v in data.items() if k in names}
        for name, sub in _nested(cls).items():
            value = unknown_ok.get(name)
            if isinstance(value, (list, tuple)):
                unknown_ok[name] = tuple(sub.from_dict(v) for v in value)
            elif isinstance(value, dict):
                unknown_ok[name] = sub.from_dict(value)
        for name, value in list(unknown_ok.items()):
            if isinstance(value, list):
                unknown_ok[name] = tuple(value)
        try:
            return cls(**unknown_ok)
        except TypeError as exc:
            raise RecordError(None, f"{cls.__name__}: {exc}") from None


_NESTED: dict[type, dict[str, type]] = {}


def _nested(cls: type) -> dict[str, type]:
    """Field name -> the record type its value (or each item of it) is, from ``cls``'s
    annotations: ``Boundary``, ``Boundary | None``, ``tuple[Boundary, ...]``."""
    if cls not in _NESTED:
        hints = get_type_hints(cls)
        found = {f.name: _record_in(hints[f.name]) for f in fields(cls)}  # type: ignore[arg-type]
        _NESTED[cls] = {name: sub for name, sub in found.items() if sub is not None}
    return _NESTED[cls]


def _record_in(hint) -> type | None:
    if isinstance(hint, type) and issubclass(hint, _Record):
        return hint
    return next((sub for sub in map(_record_in, get_args(hint)) if sub is not None), None)


def one_of(what: str, value, allowed) -> None:
    """RecordError unless ``value`` (a record's ``what``) is one of ``allowed``."""
    if value not in allowed:
        raise RecordError(None, f"{what} {value!r} is not one of {', '.join(allowed)}")


def read_json(path: str | os.PathLike):
    """A JSON file's content; RecordError naming the file when it is missing or unreadable."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RecordError(path, "file not found") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise RecordError(path, f"not valid JSON ({exc})") from None


def write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary file beside ``path`` and rename it over: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
