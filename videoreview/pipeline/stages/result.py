"""What a stage's ``compute`` returns: its ``Result``, a small frozen dataclass of the stage's
own, and how the stage cache keeps it (as the JSON a stage's result was before results had
types, so that results cached then still load).

A field typed as a record (records/) or as another ``StageResult``, optional or a tuple of
them, is written with its own ``to_dict`` / ``to_json`` and read back by its annotated type;
any other field is kept as it is (a tuple is written as a list and read back as a tuple).
The samples a sampled stage keeps (dicts of a frame's time, number and findings) stay dicts:
the functions that make records of them (object_tracks, link_people, merge_spans, ...) read
them so, and so do the benchmarks.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, get_args, get_type_hints

from ...errors import RecordError


class StageResult:
    """to_json / from_json of a stage's Result (a frozen dataclass that subclasses this)."""

    def to_json(self) -> Any:
        return {f.name: _written(getattr(self, f.name)) for f in fields(self)}  # type: ignore[arg-type]

    @classmethod
    def from_json(cls, data: Any):
        if not isinstance(data, dict):
            raise RecordError(None, f"{cls.__name__}: expected an object, got {type(data).__name__}")
        hints = _hints(cls)
        try:
            return cls(**{name: _read(hints[name], value) for name, value in data.items() if name in hints})
        except TypeError as exc:
            raise RecordError(None, f"{cls.__name__}: {exc}") from None


class Untyped:
    """The Result of a stage that declares none: its result is the JSON the cache keeps."""

    @staticmethod
    def from_json(data: Any) -> Any:
        return data


def as_json(result: Any) -> Any:
    """What the cache keeps of a stage's result: a typed one's JSON, an untyped one as it is."""
    return result.to_json() if isinstance(result, StageResult) else result


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """Field name -> its annotated type (keys of the JSON that are not fields are left out)."""
    if cls not in _HINTS:
        hints = get_type_hints(cls)
        _HINTS[cls] = {f.name: hints[f.name] for f in fields(cls)}  # type: ignore[arg-type]
    return _HINTS[cls]


def _written(value: Any) -> Any:
    if isinstance(value, StageResult):
        return value.to_json()
    if hasattr(value, "to_dict"):  # a record
        return value.to_dict()
    if isinstance(value, tuple):
        return [_written(v) for v in value]
    return value


def _read(hint: Any, value: Any) -> Any:
    """``value`` from JSON as the field typed ``hint`` holds it."""
    kind = _loadable_in(hint)
    if isinstance(value, list):
        return tuple(_load(kind, v) for v in value) if kind is not None else tuple(value)
    return _load(kind, value) if kind is not None and value is not None else value


def _load(kind: type, value: Any) -> Any:
    return kind.from_json(value) if issubclass(kind, StageResult) else kind.from_dict(value)  # type: ignore[attr-defined]


def _loadable_in(hint: Any) -> type | None:
    """The StageResult or record type a field typed ``hint`` holds (or a tuple of), if any."""
    if isinstance(hint, type) and (issubclass(hint, StageResult) or hasattr(hint, "from_dict")):
        return hint
    return next((kind for kind in map(_loadable_in, get_args(hint)) if kind is not None), None)
