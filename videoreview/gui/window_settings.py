"""The window settings: layout, recent files, theme, overlay toggles and the like, in
``settings.ini`` in the data directory (VIDEOREVIEW_HOME moves them with everything else).
Not the engine choices (choices.py, engines.json), nor where the library lives (paths.py).
The Ray cluster the library's analysis goes to (Settings > Cluster) is here."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt

from ..paths import data_dir


def window_settings() -> QSettings:
    return QSettings(str(data_dir() / "settings.ini"), QSettings.IniFormat)


CLUSTER = "library/cluster"
FIRST_SIZE = (1500, 950)  # the window's size on the first run, where the screen has room


def cluster_address() -> str:
    """The Ray address the library's analysis is sent to; "" for this machine."""
    return str(window_settings().value(CLUSTER, "") or "").strip()


def set_cluster_address(address: str) -> None:
    s = window_settings()
    s.setValue(CLUSTER, address.strip())
    s.sync()


def restore_layout(window) -> None:
    """The main window's size as it was when it last closed, and its layout (layouts.py);
    on the first run, maximized on a screen smaller than FIRST_SIZE, else that size."""
    geometry = window_settings().value("window/geometry")
    if geometry is None or not window.restoreGeometry(geometry):
        available = window.screen().availableGeometry()
        if available.width() < FIRST_SIZE[0] or available.height() < FIRST_SIZE[1]:
            window.setWindowState(Qt.WindowState.WindowMaximized)  # a laptop: all of it
        else:
            window.resize(*FIRST_SIZE)
    window.layouts.start()
    window.layout().activate()  # the window's least size as the layout now has it, not as it was built


def save_layout(window) -> None:
    s = window_settings()
    s.setValue("window/geometry", window.saveGeometry())
    window.layouts.remember()
    s.sync()
