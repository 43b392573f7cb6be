"""Moving the library to another folder (Settings > Library location).

The new folder is used from then on. When it holds no library yet, the current one is
copied there first: the catalog through SQLite's backup (consistent even while the
library process has it open), its vector index, and the saved Analyses. The old folder
is left as it was, so nothing is lost if the new place turns out to be wrong; the
saved Analyses the new folder lacks are always copied, so no reviewer's edit is left
behind.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

from ..errors import LibraryError
from ..paths import LOCATION_FILE, TEAM_SCHEMES, data_dir, library_dir
from ..records import write_atomic
from .catalog import DB_NAME

INDEX_FILES = ("library.faiss", "library.faiss.json")  # vectors.py keeps them beside the catalog


def change_location(new: str | os.PathLike) -> str:
    """Use ``new`` for the library from now on (a folder, or a team library's URL);
    returns one line saying what was done. LibraryError names the folder or the server
    when it cannot be used (nothing is changed then)."""
    if str(new).startswith(TEAM_SCHEMES):
        return _choose_team(str(new))
    old, new = library_dir().resolve(), Path(new).expanduser().resolve()
    if new == old:
        return f"The library stays in {old}."
    try:
        new.mkdir(parents=True, exist_ok=True)
        probe = new / ".videoreview-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise LibraryError(str(new), f"cannot be written ({exc.strerror or exc})") from exc
    copied = []
    if not (new / DB_NAME).exists() and (old / DB_NAME).exists():
        _copy_catalog(old / DB_NAME, new / DB_NAME)
        for name in INDEX_FILES:
            if (old / name).exists():
                shutil.copy2(old / name, new / name)
        copied.append("the catalog")
    analyses = _copy_missing(old / "analyses", new / "analyses")
    if analyses:
        copied.append(f"{analyses} saved {'analysis' if analyses == 1 else 'analyses'}")
    chosen = None if new == data_dir().resolve() else str(new)
    if chosen is None:
        (data_dir() / LOCATION_FILE).unlink(missing_ok=True)
    else:
        write_atomic(data_dir() / LOCATION_FILE, (json.dumps({"location": chosen}, indent=2) + "\n").encode())
    what = f"; {' and '.join(copied)} copied there from {old}, which is left as it was" if copied else ""
    return f"The library is now in {new}{what}."


def _choose_team(url: str) -> str:
    """A team library from now on, once its server has been reached and its catalog made
    or checked. Nothing is copied: ``library export`` / ``import`` move a library."""
    from .team.catalog import TeamCatalog
    from .team.url import display

    TeamCatalog(url).close()
    write_atomic(data_dir() / LOCATION_FILE, (json.dumps({"location": url}, indent=2) + "\n").encode())
    return f"The library is now the team library at {display(url)}."


def _copy_catalog(source: Path, target: Path) -> None:
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as src, sqlite3.connect(partial) as dst:
        src.backup(dst)
    src.close()
    dst.close()
    os.replace(partial, target)


def _copy_missing(source: Path, target: Path) -> int:
    if not source.is_dir():
        return 0
    target.mkdir(parents=True, exist_ok=True)
    count = 0
    for file in source.glob("*.analysis.json"):
        if not (target / file.name).exists():
            shutil.copy2(file, target / file.name)
            count += 1
    return count
