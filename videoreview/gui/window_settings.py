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


def cluster_address() -> str:
    """The Ray address the library's analysis is sent to; "" for this machine."""
    return str(window_settings().value(CLUSTER, "") or "").strip()


def set_cluster_address(address: str) -> None:
    s = window_settings()
    s.setValue(CLUSTER, address.strip())
    s.sync()


def restore_layout(window) -> None:
    """The main window's size, docks and splitter as they were when it last closed; on the
    first run, a narrow list of videos and room for the video itself."""
    s = window_settings()
    geometry, state = s.value("window/geometry"), s.value("window/state")
    if geometry is not None:
        window.restoreGeometry(geometry)
    else:
        window.resize(1500, 950)
    if state is not None:
        window.restoreState(state)
    else:
        window.resizeDocks([window.videos_dock, window.details_dock], [300, 340], Qt.Horizontal)
        window.resizeDocks([window.videos_dock, window.library_dock], [140, 600], Qt.Vertical)
        window.resizeDocks([window.summaries_dock], [360], Qt.Vertical)
    splitter = s.value("window/splitter")
    if splitter is not None:
        window.splitter.restoreState(splitter)


def save_layout(window) -> None:
    s = window_settings()
    s.setValue("window/geometry", window.saveGeometry())
    s.setValue("window/state", window.saveState())
    s.setValue("window/splitter", window.splitter.saveState())
    s.sync()
