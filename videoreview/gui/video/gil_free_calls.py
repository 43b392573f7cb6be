"""QMediaPlayer's stop and setSource called with Python's GIL released.

PySide keeps the GIL through these calls. Inside them Qt takes signal-slot locks that
a Qt Multimedia thread may hold while it waits for the GIL (destroying one of its
objects, it calls a virtual of one of ours, and PySide's check for a Python override
needs the GIL): both threads wait for ever. This hung a GUI test run in the window's
close. ctypes releases the GIL around every foreign call, so these go through ctypes to
the same C++ functions. Where the library's symbols are not found (another C++ ABI),
the plain PySide call is made.
"""

from __future__ import annotations

import ctypes
import sys
from functools import cache
from pathlib import Path

import shiboken6
from PySide6.QtCore import QUrl
from PySide6.QtMultimedia import QMediaPlayer

STOP = "_ZN12QMediaPlayer4stopEv"  # void QMediaPlayer::stop()
SET_SOURCE = "_ZN12QMediaPlayer9setSourceERK4QUrl"  # void QMediaPlayer::setSource(const QUrl &)


@cache
def _multimedia() -> ctypes.CDLL | None:
    import PySide6

    qt = Path(PySide6.__file__).parent / "Qt"
    candidates = {"linux": [qt / "lib" / "libQt6Multimedia.so.6"],
                  "darwin": [qt / "lib" / "QtMultimedia.framework" / "QtMultimedia"]}.get(sys.platform, [])
    for path in candidates:
        if path.exists():
            try:
                return ctypes.CDLL(str(path))  # already loaded by PySide: the same copy
            except OSError:
                return None
    return None


def _function(symbol: str):
    library = _multimedia()
    function = getattr(library, symbol, None) if library is not None else None
    if function is not None:
        function.restype = None
    return function


def _pointer(obj) -> ctypes.c_void_p:
    return ctypes.c_void_p(shiboken6.getCppPointer(obj)[0])


def stop(player: QMediaPlayer) -> None:
    function = _function(STOP)
    if function is None:
        player.stop()
    else:
        function(_pointer(player))


def set_source(player: QMediaPlayer, url: QUrl) -> None:
    function = _function(SET_SOURCE)
    if function is None:
        player.setSource(url)
    else:
        function(_pointer(player), _pointer(url))
