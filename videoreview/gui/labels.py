"""How the window names things: an identity ("Alice (P1)", or "P1" before a reviewer
names it) and the state of a video's analysis, wherever they are shown (panels, the
video's face boxes, the timeline's lanes, the library's lists)."""

from __future__ import annotations

# Both the open videos' states (the analysis queue's) and the library's (the catalog's).
STATUS_TEXT = {
    "new": "not analysed yet",
    "queued": "queued",
    "analysing": "analysing…",
    "done": "",
    "failed": "failed",
    "cancelled": "cancelled",
    "missing": "file missing",
}


def identity_label(pid: str, name: str | None = None) -> str:
    """"Name (P1)" for a named identity, else its id."""
    return f"{name} ({pid})" if name else pid


def status_text(status: str) -> str:
    """A video's state as its list shows it ("" when done)."""
    return STATUS_TEXT.get(status, status)
