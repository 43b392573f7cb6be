"""The pictures of the library panel's lists: the size of a still, the grey square shown
until it is decoded, and the keys stills are asked for by (one StillLoader serves the
videos list and the search results; each takes the keys it asked for)."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QColor, QIcon, QPixmap

THUMB = QSize(96, 54)


def placeholder() -> QIcon:
    pixmap = QPixmap(THUMB)
    pixmap.fill(QColor("#3a3a3a"))
    return QIcon(pixmap)


def video_key(path: str) -> str:
    """A video's still in the videos list."""
    return f"video|{path}"


def moment_key(path: str, seconds: float) -> str:
    """A search result's still."""
    return f"moment|{path}|{seconds:.3f}"
