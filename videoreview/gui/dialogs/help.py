"""Help > Keyboard shortcuts and Help > About: small boxes that leave the window running."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, qVersion
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QMessageBox, QWidget

from ... import __version__
from ...about import versions


def show_shortcuts(window: QWidget) -> None:
    """Every shortcut of the window's actions (their menu text, without accelerators)."""
    rows = [(a.text().replace("&", ""), a.shortcut().toString(QKeySequence.NativeText))
            for a in window.actions() if not a.shortcut().isEmpty()]
    text = "<table>" + "".join(f"<tr><td><b>{k}</b>&nbsp;&nbsp;</td><td>{t}</td></tr>" for t, k in rows) + "</table>"
    message(window, "Keyboard shortcuts", text)


def show_about(window: QWidget, engines_given: dict[str, str] | None) -> None:
    """The versions of the app, Qt (the one running), torch and the chosen engines."""
    # No CUDA context in the window's process: the offer bar gives the GPU's advice (captions_upgrade.py).
    rows = [(what, qVersion() if what == "Qt" else value) for what, value in versions(gpu_memory=False)]
    if engines_given:  # engines given on the command line win over the choices
        rows.append(("Engines given", ", ".join(f"{k}={v}" for k, v in engines_given.items())))
    table = "".join(f"<tr><td>{escape(w)}&nbsp;&nbsp;</td><td>{escape(v)}</td></tr>" for w, v in rows)
    message(window, "About videoreview", f"<b>videoreview {__version__}</b><br>Review video with local models."
                                         f"<table>{table}</table>")


def message(parent: QWidget, title: str, html: str) -> None:
    box = QMessageBox(parent)
    box.setWindowTitle(title)
    box.setText(html)
    box.setAttribute(Qt.WA_DeleteOnClose)
    box.open()  # not exec(): the window keeps running
