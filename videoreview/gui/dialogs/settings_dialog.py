"""Edit > Settings…: where the library lives and the Ray cluster its analysis may go to,
the analysis cache (its size, and a button to clear it), the name your notes are signed
with, the engines and device, the theme, and how the overlays look. Every change applies
at once and is saved; there is nothing to confirm."""

from __future__ import annotations

import shutil
from dataclasses import replace

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ...cluster.connect import parse_address
from ...errors import VideoReviewError
from ...notes.author import reviewer_name, set_reviewer_name
from ...paths import cache_dir, folder_size, library_location, team_library_url
from ..theme import THEMES, save_overlay_style, saved_theme
from ..video.video_overlays import OverlayStyle
from ..window_settings import cluster_address, set_cluster_address
from .engine_choices import EngineChoices
from .servers_box import ServersBox


class SettingsDialog(QDialog):
    def __init__(self, window) -> None:
        super().__init__(window)
        self.window_ = window
        self.setWindowTitle("Settings")
        self.resize(640, 460)
        self.status = QLabel(wordWrap=True)
        self.status.setTextInteractionFlags(Qt.TextSelectableByMouse)
        tabs = QTabWidget()
        tabs.addTab(self._general(), "General")
        self.engines = EngineChoices()
        self.engines.message.connect(self.status.setText)
        engines_page = QWidget()
        engines_layout = QVBoxLayout(engines_page)
        engines_layout.addWidget(self.engines)
        self.servers = ServersBox()
        self.servers.message.connect(self.status.setText)
        self.servers.changed.connect(self.engines.fill)
        engines_layout.addWidget(self.servers)
        models = QPushButton("Models… (download, remove)")
        models.clicked.connect(window.show_models)
        engines_layout.addWidget(models, 0, Qt.AlignLeft)
        engines_layout.addStretch()
        tabs.addTab(engines_page, "Engines")
        tabs.addTab(self._overlays(), "Overlays")
        layout = QVBoxLayout(self)
        layout.addWidget(tabs, 1)
        layout.addWidget(self.status)
        layout.addWidget(QDialogButtonBox(QDialogButtonBox.Close, rejected=self.reject))
        self.show_library()
        self.show_cache()
        self._busy_timer = QTimer(self, interval=1000, timeout=self._enable_clear)
        self._busy_timer.start()

    # -- General ---------------------------------------------------------------------------
    def _general(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.library = QLineEdit(placeholderText="a folder, or a team library's postgresql://USER@HOST/DATABASE")
        self.library.returnPressed.connect(lambda: self.change_library(self.library.text().strip()))
        change = QPushButton("Change…")
        change.clicked.connect(self.ask_library)
        row = QHBoxLayout()
        row.addWidget(self.library, 1)
        row.addWidget(change)
        form.addRow("Library location", row)
        form.addRow("", QLabel("The catalog of analysed videos and their analyses, with your corrections: a "
                               "folder, or a team library's URL (type it and press Enter; its password goes in "
                               "~/.pgpass, never here).", wordWrap=True))
        self.cluster = QLineEdit(cluster_address(), placeholderText="empty: analyse here (or ray://HOST:10001, "
                                                                    "HOST:6379, auto)")
        self.cluster.editingFinished.connect(self.apply_cluster)
        form.addRow("Cluster", self.cluster)
        form.addRow("", QLabel("Videos added to the library are analysed on this Ray cluster. Videos must be "
                               "readable at the same path on every worker: see docs/cluster.md", wordWrap=True))
        self.cache = QLabel()
        self.clear_button = QPushButton("Clear cache")
        self.clear_button.clicked.connect(self.clear_cache)
        row = QHBoxLayout()
        row.addWidget(self.cache, 1)
        row.addWidget(self.clear_button)
        form.addRow("Analysis cache", row)
        self.author = QLineEdit(reviewer_name(), placeholderText="your login name")
        self.author.editingFinished.connect(lambda: set_reviewer_name(self.author.text()))
        form.addRow("Your name", self.author)
        form.addRow("", QLabel("Signs the notes you write (exports and imports carry it).", wordWrap=True))
        self.theme = QComboBox()
        self.theme.addItems([t.capitalize() for t in THEMES])
        self.theme.setCurrentIndex(THEMES.index(saved_theme()))
        self.theme.activated.connect(lambda index: self.window_.set_theme(THEMES[index]))
        form.addRow("Theme", self.theme)
        return page

    def show_library(self) -> None:
        from ...library.team.url import display

        folder, problem = library_location()
        url = team_library_url()
        self.library.setText(display(url) if url else str(folder))
        if problem:
            self.status.setText(problem)

    def ask_library(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Library location", self.library.text())
        if folder:
            self.change_library(folder)

    def change_library(self, folder: str) -> None:
        """Use the library in ``folder`` (the current one is copied there when it has
        none), or the team library at a postgresql:// URL (once it has been reached)."""
        from ...errors import LibraryError
        from ...library.location import change_location

        try:
            self.status.setText(change_location(folder))
        except LibraryError as exc:
            self.status.setText(str(exc))
        else:
            self.window_.library.restart()  # the library process opens the catalog where it now is
            self.window_.library_panel.refresh()
            self.window_.listen_to_library()  # a team library's changes reach the open videos
        self.show_library()

    def apply_cluster(self) -> None:
        """Save the cluster address once it parses (a bad one is said and not saved)."""
        text = self.cluster.text().strip()
        if text == cluster_address():
            return
        if text:
            try:
                parse_address(text)
            except VideoReviewError as exc:
                self.status.setText(f"Cluster: {str(exc).removeprefix('--cluster ')}; not saved.")
                return
        set_cluster_address(text)
        self.status.setText(f"Videos added to the library are now analysed on the cluster at {text}." if text
                            else "Videos added to the library are now analysed on this machine.")

    def show_cache(self) -> None:
        folder = cache_dir()
        self.cache.setText(f"{folder_size(folder) / 1e6:.1f} MB in {folder}")
        self._enable_clear()

    def _cache_in_use(self) -> bool:
        return not self.window_.queue.is_idle() or self.window_.library.busy()

    def _enable_clear(self) -> None:
        """The cache is cleared only while nothing uses it (checked again every second)."""
        busy = self._cache_in_use()
        self.clear_button.setEnabled(not busy)
        self.clear_button.setToolTip("Wait for the analyses to finish" if busy else
                                     "Finished analysis stages, kept so that analysing a video again is quick. "
                                     "Saved analyses and corrections are not in it.")

    def clear_cache(self) -> None:
        if self._cache_in_use():
            self.status.setText("The cache is in use: clear it when the analyses have finished.")
        else:
            folder = cache_dir()
            freed = folder_size(folder)
            shutil.rmtree(folder, ignore_errors=True)
            cache_dir()  # made again, empty
            self.status.setText(f"Cleared {freed / 1e6:.1f} MB from {folder}.")
        self.show_cache()

    # -- Overlays --------------------------------------------------------------------------
    def _overlays(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        style = self.window_.view.style()
        self.caption_size = QSpinBox(minimum=60, maximum=200, singleStep=10, suffix=" %",
                                     value=round(style.caption_size * 100))
        self.caption_size.valueChanged.connect(lambda v: self._restyle(caption_size=v / 100))
        form.addRow("Caption text size", self.caption_size)
        self.caption_position = QComboBox()
        self.caption_position.addItems([p.capitalize() for p in OverlayStyle.POSITIONS])
        self.caption_position.setCurrentIndex(OverlayStyle.POSITIONS.index(style.caption_position))
        self.caption_position.activated.connect(
            lambda index: self._restyle(caption_position=OverlayStyle.POSITIONS[index]))
        form.addRow("Caption position", self.caption_position)
        self.caption_background = QSpinBox(minimum=0, maximum=100, singleStep=5, suffix=" % opaque",
                                           value=round(style.caption_background * 100))
        self.caption_background.valueChanged.connect(lambda v: self._restyle(caption_background=v / 100))
        form.addRow("Caption background", self.caption_background)
        self.box_width = QDoubleSpinBox(minimum=1.0, maximum=8.0, singleStep=0.5, suffix=" px",
                                        value=style.box_width)
        self.box_width.valueChanged.connect(lambda v: self._restyle(box_width=v))
        form.addRow("Face box line", self.box_width)
        return page

    def _restyle(self, **change) -> None:
        style = replace(self.window_.view.style(), **change)
        self.window_.view.set_style(style)
        save_overlay_style(style)

    def done(self, result: int) -> None:
        self.apply_cluster()  # an address typed and the dialog closed without leaving the field
        self.engines.stop()
        super().done(result)
