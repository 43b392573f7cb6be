"""Where videoreview keeps its data. VIDEOREVIEW_HOME overrides the platform default."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import platformdirs

APP_NAME = "videoreview"


def data_dir() -> Path:
    home = os.environ.get("VIDEOREVIEW_HOME")
    path = Path(home) if home else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


LOCATION_FILE = "library-location.json"
LIBRARY_ENV = "VIDEOREVIEW_LIBRARY"  # a folder, or a team library's postgresql:// URL
TEAM_SCHEMES = ("postgresql://", "postgres://")


def library_choice() -> str | None:
    """The library chosen: ``VIDEOREVIEW_LIBRARY`` (which ``--library`` sets), else
    Settings > Library (LOCATION_FILE); None for the default, the data folder."""
    chosen = os.environ.get(LIBRARY_ENV, "").strip()
    if chosen:
        return chosen
    try:
        return str(json.loads((data_dir() / LOCATION_FILE).read_text(encoding="utf-8"))["location"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def team_library_url() -> str | None:
    """The team library's URL when the chosen library is one, else None (a local one)."""
    chosen = library_choice()
    return chosen if chosen and chosen.startswith(TEAM_SCHEMES) else None


def library_location() -> tuple[Path, str | None]:
    """The library's folder (the catalog of analysed videos and their saved Analyses with
    the reviewer's edits) and, when the chosen one cannot be used, one line saying why
    (the data folder is used then). Chosen in Settings or by VIDEOREVIEW_LIBRARY; the data
    folder by default, and for a team library (its catalog is on the server) the saved
    Analyses' folder."""
    file = data_dir() / LOCATION_FILE
    env = os.environ.get(LIBRARY_ENV, "").strip()
    if team_library_url() is not None:
        return data_dir(), None
    try:
        chosen = Path(env) if env else Path(json.loads(file.read_text(encoding="utf-8"))["location"])
    except FileNotFoundError:
        return data_dir(), None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return data_dir(), f"{file}: not a library location ({exc}); using {data_dir()}"
    try:
        chosen.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return data_dir(), f"{chosen}: the library folder cannot be used ({exc.strerror}); using {data_dir()}"
    return chosen, None


def library_dir() -> Path:
    return library_location()[0]


def cache_dir() -> Path:
    """Finished pipeline stages, one folder per video content hash."""
    path = data_dir() / "cache"
    path.mkdir(parents=True, exist_ok=True)
    return path


def package_dir(name: str) -> Path | None:
    """The folder of an installed package (by import name), found without running its
    code; None when it is not installed."""
    import importlib.util

    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def folder_size(path: Path) -> int:
    """Bytes of the files under ``path`` (links followed)."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def resources_dir() -> Path:
    """The files the app ships beside its code (label lists, icons): the checkout's
    resources/ folder, which the PyInstaller bundle keeps at the same place relative to
    the package."""
    return Path(__file__).resolve().parents[1] / "resources"


def own_command(*args: str) -> list[str]:
    """The command line that runs ``videoreview ARGS...`` in a new process: this Python
    with ``-m videoreview``, or the bundle's executable itself when frozen (PyInstaller),
    which has no ``-m``."""
    if getattr(sys, "frozen", False):
        return [sys.executable, *args]
    return [sys.executable, "-m", "videoreview", *args]


def log_dir() -> Path:
    """The log file's folder: the platform's user log folder, or ``$VIDEOREVIEW_HOME/logs``
    when that is set (so that everything moves together)."""
    home = os.environ.get("VIDEOREVIEW_HOME")
    path = Path(home) / "logs" if home else Path(platformdirs.user_log_dir(APP_NAME, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path
