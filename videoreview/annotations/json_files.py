"""JSON files of the annotation formats (Label Studio's tasks, Kinetic-GEB+'s boundaries,
MICap's clips): read with the line and column of what is damaged, written atomically, and
the checks their readers share on values of the wrong type."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ..records import write_atomic
from . import AnnotationError


def load(path: Path) -> Any:
    """The JSON at ``path``, or one AnnotationError saying where it is damaged."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise AnnotationError(path, "", exc.strerror or str(exc)) from None
    except UnicodeDecodeError as exc:
        raise AnnotationError(path, f"byte {exc.start}", "not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise AnnotationError(path, f"line {exc.lineno} column {exc.colno}", f"damaged JSON: {exc.msg}") from None
    except RecursionError:
        raise AnnotationError(path, "", "damaged JSON: nested too deeply") from None


def dump(path: Path, data: Any) -> None:
    write_atomic(path, (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))


def number(path: Path, where: str, value: Any, what: str) -> float:
    """``value`` as a finite number, else an AnnotationError naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise AnnotationError(path, where, f"{what} is {json.dumps(value)[:40]}, not a number")
    return float(value)


def whole(path: Path, where: str, value: Any, what: str) -> int:
    found = number(path, where, value, what)
    if found != int(found):
        raise AnnotationError(path, where, f"{what} is {value}, not a whole number")
    return int(found)


def text(path: Path, where: str, value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise AnnotationError(path, where, f"{what} is {json.dumps(value)[:40]}, not text")
    return value


def mapping(path: Path, where: str, value: Any, what: str) -> dict:
    if not isinstance(value, dict):
        raise AnnotationError(path, where, f"{what} is {json.dumps(value)[:40]}, not an object")
    return value


def listing(path: Path, where: str, value: Any, what: str) -> list:
    if not isinstance(value, list):
        raise AnnotationError(path, where, f"{what} is {json.dumps(value)[:40]}, not a list")
    return value
