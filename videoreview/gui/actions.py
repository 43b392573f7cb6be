"""The window's menus and keyboard shortcuts, declared as data: one row per action. A row
names what the action does as a function of the window, so the list reads like the menu
bar and the shortcuts dialog, and a new command is one row.

Rows give the menu text, what runs (``window -> None``, or ``(window, checked) -> None``
for a checkable action), the shortcut(s) and, for the window's later use, the field of
``Menus`` the QAction is kept in (what ``build_menus`` returns: the window declares it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu

from .annotation_files import AnnotationFiles
from .dialogs import help
from .layouts import KEYS, LAYOUTS, TITLES
from .theme import THEMES, saved_theme
from .video.overlay_table import OverlayRow, overlay_rows

Key = str | QKeySequence.StandardKey


@dataclass(frozen=True)
class Row:
    text: str
    run: Callable
    keys: Key | list[Key] | None = None
    keep_as: str | None = None  # the field of Menus the QAction is kept in ("overlays:NAME": an entry of it)
    checkable: bool = False
    checked: bool = False  # a checkable action's state before the window's settings are read


SEPARATOR = None


@dataclass
class Menus:
    """What the window keeps of its menus: the recent files' menu, and the actions whose
    state or text it sets (by overlay and theme name for those)."""

    recent: QMenu | None = None
    undo: QAction | None = None
    redo: QAction | None = None
    floating: QAction | None = None  # the picture in its own window
    overlays: dict[str, QAction] = field(default_factory=dict)
    themes: dict[str, QAction] = field(default_factory=dict)


def _play(w):
    return w.player


def _overlay(row: OverlayRow) -> Row:
    return Row(row.menu, lambda w, on: w.set_overlay(row.name, on), row.key, f"overlays:{row.name}",
               checkable=True, checked=True)


MENUS: list[tuple[str, list]] = [
    ("&File", [
        Row("&Open…", lambda w: w.open_dialog(), QKeySequence.Open),
        "recent",
        SEPARATOR,
        Row("Add &folder to the library…", lambda w: w.library_panel.ask_folder(), "Ctrl+Shift+O"),
        Row("Add files to the &library…", lambda w: w.library_panel.ask_files()),
        SEPARATOR,
        Row("&Export for annotation tools…", lambda w: AnnotationFiles.of(w).ask_export()),
        Row("&Import corrections…", lambda w: AnnotationFiles.of(w).ask_import()),
        SEPARATOR,
        Row("&Quit", lambda w: w.close(), QKeySequence.Quit),
    ]),
    ("&Edit", [
        Row("&Undo", lambda w: w.review.undo(), QKeySequence.Undo, keep_as="undo"),
        Row("&Redo", lambda w: w.review.redo(), QKeySequence.Redo, keep_as="redo"),
        SEPARATOR,
        Row("Add &boundary at playhead", lambda w: w.review.add_boundary_at_playhead(), "B"),
        Row("&Delete selected boundary", lambda w: w.review.delete_selected_boundary(), QKeySequence.Delete),
        Row("&Edit selected…", lambda w: w.review.edit_selected(), "F2"),
        SEPARATOR,
        Row("Add &note at playhead", lambda w: w.note_marks.add_note(), "N"),
        Row("Mark &in (a note's range)", lambda w: w.note_marks.mark(0), "I"),
        Row("Mark &out", lambda w: w.note_marks.mark(1), "O"),
        Row("Clear the marked range", lambda w: w.note_marks.clear(), "Alt+X"),
        Row("&Draw on this frame", lambda w: w.note_marks.draw_on_frame(), "D"),
        SEPARATOR,
        Row("&Find in this video…", lambda w: w.focus_search(True), QKeySequence.Find),
        Row("&Search the library…", lambda w: w.focus_search(False), "Ctrl+Shift+F"),
        Row("Next &match", lambda w: w.library_panel.jump(1), "F3"),
        Row("Previous matc&h", lambda w: w.library_panel.jump(-1), "Shift+F3"),
        SEPARATOR,
        Row("Se&ttings…", lambda w: w.show_settings(), QKeySequence.Preferences),
    ]),
    ("&Playback", [
        Row("Play / pause", lambda w: _play(w).toggle_play(), "Space"),
        Row("Next frame", lambda w: _play(w).step(1), "Right"),
        Row("Previous frame", lambda w: _play(w).step(-1), "Left"),
        Row("Forward 5 s", lambda w: _play(w).seek(_play(w).current_time() + 5), "Shift+Right"),
        Row("Back 5 s", lambda w: _play(w).seek(_play(w).current_time() - 5), "Shift+Left"),
        Row("Shuttle back (J)", lambda w: _play(w).shuttle("J"), "J"),
        Row("Shuttle stop (K)", lambda w: _play(w).shuttle("K"), "K"),
        Row("Shuttle forward (L)", lambda w: _play(w).shuttle("L"), "L"),
        Row("First frame", lambda w: _play(w).seek_frame(0), "Home"),
        Row("Last frame", lambda w: w.seek_last(), "End"),
        SEPARATOR,
        Row("Previous boundary", lambda w: w.jump("boundaries", -1), "["),
        Row("Next boundary", lambda w: w.jump("boundaries", 1), "]"),
        Row("Previous keyframe", lambda w: w.jump("keyframes", -1), ["{", "PgUp"]),
        Row("Next keyframe", lambda w: w.jump("keyframes", 1), ["}", "PgDown"]),
        SEPARATOR,
        Row("Slower", lambda w: w.change_rate(0.5), "-"),
        Row("Faster", lambda w: w.change_rate(2.0), ["+", "="]),
        Row("Normal speed", lambda w: _play(w).set_rate(1.0), "Backspace"),
        Row("Mute", lambda w, on: _play(w).set_muted(on), "M", checkable=True),
    ]),
    ("&View", [
        "overlays",  # a row each (video/overlay_table.py), found when the menus are built
        SEPARATOR,
        Row("Zoom timeline in", lambda w: w.timeline.zoom_in(), "Ctrl+="),
        Row("Zoom timeline out", lambda w: w.timeline.zoom_out(), "Ctrl+-"),
        Row("Fit timeline", lambda w: w.timeline.zoom_to_fit(), "Ctrl+0"),
        "themes",
        SEPARATOR,
        *[Row(f"{TITLES[name]} layout", lambda w, n=name: w.layouts.switch(n), KEYS[name]) for name in LAYOUTS],
        Row("Reset layout", lambda w: w.layouts.reset()),
        Row("&Full screen", lambda w: w.picture_modes.toggle_full_screen(), "F"),
        Row("&Picture in its own window", lambda w, on: w.picture_modes.set_floating(on), "Ctrl+Shift+P",
            keep_as="floating", checkable=True),
        SEPARATOR,
        "docks",
    ]),
    ("&Analysis", [
        Row("&Cancel analysis", lambda w: w.escape(), "Esc"),  # (in full screen: leave it)
        Row("&Re-analyse this video", lambda w: w.reanalyse_current(), "Ctrl+R"),
        SEPARATOR,
        Row("&Models…", lambda w: w.show_models()),
    ]),
    ("&Help", [
        Row("&Tour of the timeline", lambda w: w.start_tour()),
        Row("&Keyboard shortcuts", lambda w: help.show_shortcuts(w), "?"),
        Row("&About videoreview", lambda w: help.show_about(w, w.queue.engines)),
    ]),
]


def _sequences(keys: Key | list[Key]) -> list[QKeySequence]:
    sequences = []
    for key in keys if isinstance(keys, list) else [keys]:
        # A standard key (Undo, Redo, ...) has several bindings on most platforms.
        sequences += QKeySequence.keyBindings(key) if isinstance(key, QKeySequence.StandardKey) else [QKeySequence(key)]
    return sequences


def _action(window, menu, row: Row, menus: Menus) -> None:
    action = QAction(row.text, window)
    if row.keys is not None:
        action.setShortcuts(_sequences(row.keys))
    if row.checkable:
        action.setCheckable(True)
        action.setChecked(row.checked)
        action.toggled.connect(lambda on: row.run(window, on))
    else:
        action.triggered.connect(lambda: row.run(window))
    menu.addAction(action)
    window.addAction(action)  # shortcuts work wherever the focus is in the window
    if row.keep_as:
        name, _, key = row.keep_as.partition(":")
        if key:
            getattr(menus, name)[key] = action
        else:
            setattr(menus, name, action)


def build_menus(window, docks) -> Menus:
    """The menu bar of ``window``; what the window keeps of it."""
    menus = Menus()
    for title, rows in MENUS:
        menu = window.menuBar().addMenu(title)
        for row in rows:
            if row is SEPARATOR:
                menu.addSeparator()
            elif row == "recent":
                menus.recent = menu.addMenu("Open &Recent")
            elif row == "themes":
                _theme_menu(window, menu.addMenu("&Theme"), menus.themes)
            elif row == "overlays":
                for overlay in overlay_rows():
                    _action(window, menu, _overlay(overlay), menus)
            elif row == "docks":
                for dock in docks:
                    menu.addAction(dock.toggleViewAction())
            else:
                _action(window, menu, row, menus)
    return menus


def _theme_menu(window, menu, actions: dict[str, QAction]) -> None:
    group = QActionGroup(window)
    for theme in THEMES:
        action = menu.addAction(theme.capitalize(), lambda _theme=theme: window.set_theme(_theme))
        action.setCheckable(True)
        action.setChecked(theme == saved_theme())
        group.addAction(action)
        actions[theme] = action
