"""Light and dark themes: Fusion with a palette; "system" follows the desktop's colour scheme."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

from .window_settings import window_settings

THEMES = ("system", "light", "dark")


def dark_palette() -> QPalette:
    palette = QPalette()
    base, window, text = QColor(30, 31, 34), QColor(43, 45, 48), QColor(223, 225, 229)
    for role, colour in ((QPalette.Window, window), (QPalette.WindowText, text), (QPalette.Base, base),
                         (QPalette.AlternateBase, window), (QPalette.ToolTipBase, QColor(60, 63, 65)),
                         (QPalette.ToolTipText, text), (QPalette.Text, text), (QPalette.Button, window),
                         (QPalette.ButtonText, text), (QPalette.BrightText, QColor(255, 90, 90)),
                         (QPalette.Highlight, QColor(53, 116, 240)), (QPalette.HighlightedText, Qt.white),
                         (QPalette.Link, QColor(88, 157, 246)), (QPalette.PlaceholderText, QColor(128, 131, 136)),
                         (QPalette.Mid, QColor(70, 72, 76)), (QPalette.Dark, QColor(22, 23, 25)),
                         (QPalette.Light, QColor(80, 83, 87))):
        palette.setColor(role, colour)
    for role in (QPalette.WindowText, QPalette.Text, QPalette.ButtonText):
        palette.setColor(QPalette.Disabled, role, QColor(110, 112, 116))
    return palette


def saved_theme() -> str:
    theme = window_settings().value("theme", "system")
    return theme if theme in THEMES else "system"


def apply_theme(app: QApplication, theme: str = "system") -> None:
    """Fusion with a light or dark palette; "system" follows the desktop's colour scheme
    (and keeps following it when it changes)."""
    app.setStyle(QStyleFactory.create("Fusion"))
    dark = theme == "dark" or (
        theme == "system" and QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark)
    app.setPalette(dark_palette() if dark else app.style().standardPalette())


def saved_overlay_style():
    """The overlay style kept in the settings; the default for a value missing or odd."""
    from dataclasses import fields

    from .video.video_overlays import OverlayStyle

    s, values = window_settings(), {}
    for field in fields(OverlayStyle):
        value = s.value(f"overlay-style/{field.name}")
        if field.name == "caption_position":
            if value in OverlayStyle.POSITIONS:
                values[field.name] = value
        elif value is not None:
            try:
                values[field.name] = float(value)
            except (TypeError, ValueError):
                pass
    return OverlayStyle(**values)


def save_overlay_style(style) -> None:
    from dataclasses import asdict

    s = window_settings()
    for name, value in asdict(style).items():
        s.setValue(f"overlay-style/{name}", value)
