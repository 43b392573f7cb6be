"""Hearing of other reviewers' work in a team library: the catalog NOTIFYs on CHANNEL
when it commits a video's analysis (a note, a correction, a new analysis), and a
``Changes`` listens on a connection of its own. Nothing polls the catalog: a listener is
told of each change once, at its commit."""

from __future__ import annotations

import json
from dataclasses import dataclass

from ...errors import LibraryError
from .catalog import CHANNEL
from .url import connect, display


@dataclass(frozen=True)
class Change:
    video: int
    path: str
    content_hash: str


class Changes:
    """A listening connection to the team library at ``url``."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.db = connect(url)
        self.db.execute(f"LISTEN {CHANNEL}")

    def wait(self, timeout: float) -> list[Change]:
        """The changes committed since the last call, waiting up to ``timeout`` seconds for
        the first (then taking what else has arrived)."""
        import psycopg

        found = []
        try:
            for notice in self.db.notifies(timeout=timeout, stop_after=1):
                found.append(_change(notice.payload))
            for notice in self.db.notifies(timeout=0):
                found.append(_change(notice.payload))
        except psycopg.Error as exc:
            raise LibraryError(display(self.url), f"cannot be reached ({str(exc).strip().splitlines()[0]})") from None
        return found

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Changes:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _change(payload: str) -> Change:
    data = json.loads(payload)
    return Change(int(data["video"]), data["path"], data["content_hash"])
