"""The name a reviewer's notes are signed with: set once (Settings, or ``videoreview
notes --author``), else the system user's login name."""

from __future__ import annotations

import getpass
import json

from ..paths import data_dir
from ..records import write_atomic

FILE = "reviewer.json"


def reviewer_name() -> str:
    try:
        name = json.loads((data_dir() / FILE).read_text(encoding="utf-8"))["name"]
        if isinstance(name, str) and name.strip():
            return name.strip()
    except (OSError, ValueError, KeyError, TypeError):
        pass  # not set (or unreadable): the login name
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "reviewer"


def set_reviewer_name(name: str) -> None:
    """Remember ``name`` (an empty one goes back to the login name)."""
    write_atomic(data_dir() / FILE, json.dumps({"name": name.strip()}).encode("utf-8"))
