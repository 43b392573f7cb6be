"""Generated test fixtures kept on disk between sessions (the taught tiny VLMs, the corpus).

:func:`cached` makes a thing into a folder once and finds it again in later sessions, under
a key made of the source of the code that makes it, the versions of the packages it
depends on and its arguments: change any of them and the thing is made again. The folders
are under ``$VIDEOREVIEW_TEST_CACHE``, else ``~/.cache/videoreview-tests``. Nothing depends
on the cache being there: a cold one makes everything as a session without it would, and
deleting it is always safe.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

LISTING = ".made.json"  # what the folder held when made: one that changed since is made again
STALE_S = 3600  # a half-made folder this old belongs to a run that was killed


def root() -> Path:
    return Path(os.environ.get("VIDEOREVIEW_TEST_CACHE") or Path.home() / ".cache" / "videoreview-tests")


def cached(name: str, sources: Iterable, make: Callable[[Path], object], packages: Iterable[str] = (),
           arguments: Iterable = ()) -> Path:
    """The folder of ``name`` that ``make(folder)`` filled, made now if the cache has none
    for this key. ``sources``: the modules or functions whose code makes it (their source
    text is hashed); ``packages``: distribution names whose versions matter; ``arguments``:
    anything else it depends on (written with repr). ``make`` writes into a temporary
    sibling that is renamed into place when complete, so a killed or concurrent run never
    leaves a half-made folder that a later one uses."""
    key = _key(name, sources, packages, arguments)
    base = root()
    folder = base / f"{name}-{key}"
    if folder.is_dir():
        if _unchanged(folder):
            return folder
        shutil.rmtree(folder, ignore_errors=True)
    base.mkdir(parents=True, exist_ok=True)
    _remove_others(base, name, keep=folder)
    building = Path(tempfile.mkdtemp(prefix=f".{name}-{key}.", suffix=".part", dir=base))
    try:
        make(building)
        (building / LISTING).write_text(json.dumps(_listing(building)))
        try:
            os.rename(building, folder)
        except OSError:
            if not (folder.is_dir() and _unchanged(folder)):  # else another run made it first: use theirs
                raise
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return folder


def _key(name: str, sources: Iterable, packages: Iterable[str], arguments: Iterable) -> str:
    digest = hashlib.sha256(name.encode())
    for source in sources:
        digest.update(inspect.getsource(source).encode())
    for package in packages:
        try:
            digest.update(f"{package}=={version(package)}".encode())
        except PackageNotFoundError:
            digest.update(f"{package} missing".encode())
    for argument in arguments:
        digest.update(repr(argument).encode())
    return digest.hexdigest()[:16]


def _listing(folder: Path) -> list:
    """Every path under ``folder`` with its size and modification time."""
    rows = []
    for path in sorted(folder.rglob("*")):
        if path.name != LISTING:
            stat = path.stat()
            rows.append([path.relative_to(folder).as_posix(), path.is_dir() or stat.st_size, stat.st_mtime_ns])
    return rows


def _unchanged(folder: Path) -> bool:
    """Whether ``folder`` holds what it held when made (a test that wrote into the cache
    must not change what later sessions get)."""
    try:
        made = json.loads((folder / LISTING).read_text())
    except (OSError, ValueError):
        return False
    return _listing(folder) == made


def _remove_others(base: Path, name: str, keep: Path) -> None:
    """Entries of ``name`` under other keys (made by older code), and half-made ones left by
    killed runs."""
    for path in base.glob(f"{name}-*"):
        if path != keep and path.name[len(name) + 1:].isalnum():
            shutil.rmtree(path, ignore_errors=True)
    for path in base.glob(f".{name}-*.part"):
        if time.time() - path.stat().st_mtime > STALE_S:
            shutil.rmtree(path, ignore_errors=True)
