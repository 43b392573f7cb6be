"""Who writes the summaries and who scores them: a list of builtin, the installed catalog
models for the capability, the model servers added (models/servers.py), model folders
chosen before, and "Model folder…" to pick one.
The choice is the engine choices file's (choices.py), so the CLI's ``summarize`` and
``visil`` use what was chosen here, and the Models dialog shows it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QFileDialog

from ...choices import load_choices, models_for, save_choice
from ...engines.registry import CAPABILITIES
from ...errors import VideoReviewError
from ...models.catalog import installed_path, load_catalog
from ...models.servers import servers


class ModelChoice(QComboBox):
    chosen = Signal(str)  # "builtin", a catalog model's name or a folder

    def __init__(self, builtin_label: str, folder_title: str, capability: str) -> None:
        super().__init__()
        self.capability, self.folder_title = capability, folder_title
        self.builtin = CAPABILITIES[capability].default
        self.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(14)
        self.addItem(builtin_label, self.builtin)
        catalog = load_catalog()
        installed = [name for name in models_for(capability, catalog) if installed_path(catalog[name]) is not None]
        for name in installed:
            self.addItem(name, name)
        added = []
        for entry in _servers():
            added.append(f"server:{entry.name}")
            self.addItem(f"{added[-1]} ({entry.model})", added[-1])
        self.addItem("Model folder…", None)
        self.activated.connect(self._on_activated)
        spec = self.saved()
        if spec in installed or spec in added or (spec != self.builtin and Path(spec).is_dir()):
            self.choose(spec, remember=False)

    def saved(self) -> str:
        return load_choices()[0].get(self.capability, self.builtin)

    def spec(self) -> str:
        return self.currentData() or self.builtin

    def is_builtin(self) -> bool:
        return self.spec() == self.builtin

    def choose(self, spec: str, remember: bool = True) -> None:
        index = self.findData(spec)
        if index < 0:
            index = self.count() - 1  # before "Model folder…"
            self.insertItem(index, Path(spec).name or spec, spec)
            self.setItemData(index, spec, Qt.ToolTipRole)
        self.setCurrentIndex(index)
        if remember:
            save_choice(self.capability, spec)
        self.chosen.emit(spec)

    def ask_model_folder(self) -> str:
        return QFileDialog.getExistingDirectory(self, self.folder_title)

    def _on_activated(self, index: int) -> None:
        if self.itemData(index) is not None:
            self.choose(self.itemData(index))
            return
        folder = self.ask_model_folder()
        if folder:
            self.choose(folder)
        else:  # back to the one chosen before
            self.setCurrentIndex(max(0, self.findData(self.saved())))


def _servers():
    try:
        return list(servers().values())
    except VideoReviewError:  # an unreadable servers.json: Settings says so; here, no servers
        return []
