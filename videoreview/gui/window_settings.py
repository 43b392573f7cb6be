"""The window settings: layout, recent files, theme, overlay toggles and the like, in
``settings.ini`` in the data directory (VIDEOREVIEW_HOME moves them with everything else).
Not the engine choices (choices.py, engines.json), nor the Settings dialog, which edits
where the library lives and the cache."""

from __future__ import annotations

from PySide6.QtCore import QSettings

from ..paths import data_dir


def window_settings() -> QSettings:
    return QSettings(str(data_dir() / "settings.ini"), QSettings.IniFormat)
