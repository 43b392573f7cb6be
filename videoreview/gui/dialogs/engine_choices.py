"""The engine chosen per capability and the device, saved as they are picked (see
choices.py), with the device's free memory against what the chosen models need. Shown
in the Models dialog and in Settings.

The free memory comes from `videoreview models device` in a child process (work/background.py's
CommandTask), so that the window never imports torch."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QLabel

from ...choices import load_choices, models_for, save_choice
from ...engines.device import DEVICES
from ...engines.registry import CAPABILITIES
from ...errors import VideoReviewError
from ...models.advice import free_memory
from ...models.catalog import installed_path, load_catalog
from ...models.servers import servers
from ..work.background import CommandTask


class EngineChoices(QGroupBox):
    changed = Signal()  # a choice saved
    message = Signal(str)  # one line for the user: a refusal, a model chosen but not installed

    def __init__(self, parent=None) -> None:
        super().__init__("Engines for the next analysis", parent)
        self.catalog = load_catalog()
        self.free_gb: dict[str, float] = {}  # device -> GB free
        self.choices: dict[str, QComboBox] = {}
        form = QFormLayout(self)
        for capability in CAPABILITIES.values():
            combo = QComboBox()
            combo.activated.connect(lambda _index, key=capability.key: self._choose(key))
            self.choices[capability.key] = combo
            form.addRow(capability.label, combo)
        self.device = QComboBox()
        self.device.addItems(DEVICES)
        self.device.activated.connect(lambda _index: self._choose("device"))
        form.addRow("Device", self.device)
        self.memory = QLabel(wordWrap=True)
        form.addRow("Memory", self.memory)
        self.runs_on = QLabel(wordWrap=True)  # where each stage runs, and why not on the GPU
        form.addRow("Runs on", self.runs_on)
        self.fill()
        self.query = CommandTask("models", "device", parent=self)
        self.query.finished.connect(self._devices_found)
        self.query.failed.connect(lambda _line: self._devices_found(""))  # memory unknown, as before it ran
        self.query.start()

    def fill(self, catalog=None) -> None:
        """The combo boxes from the saved choices (``catalog``: a newer catalog)."""
        if catalog is not None:
            self.catalog = catalog
        saved, problem = load_choices()
        if problem:
            self.message.emit(problem)
        for capability in CAPABILITIES.values():
            combo = self.choices[capability.key]
            combo.clear()
            for name in capability.builtins:
                combo.addItem(name, name)
            for name in models_for(capability.key, self.catalog):
                installed = installed_path(self.catalog[name]) is not None
                combo.addItem(name if installed else f"{name} (not installed)", name)
            if capability.key in ("captions", "summaries", "scoring"):  # a server captions, writes, scores (vLLM)
                for entry in self._servers():
                    combo.addItem(f"server:{entry.name} ({entry.model})", f"server:{entry.name}")
            combo.setCurrentIndex(max(0, combo.findData(saved.get(capability.key, capability.default))))
        self.device.setCurrentText(saved.get("device", "auto"))
        self.show_memory()

    def _servers(self):
        try:
            return list(servers().values())
        except VideoReviewError as exc:
            self.message.emit(str(exc))
            return []

    def finding_devices(self) -> bool:
        return self.query.running

    def _devices_found(self, out: str) -> None:
        self.free_gb = free_memory(out)
        stages = [line.removeprefix("runs on: ").partition(" ") for line in out.splitlines()
                  if line.startswith("runs on: ")]
        self.runs_on.setText("\n".join(f"{stage}: {where}" for stage, _, where in stages))
        self.show_memory()

    def show_memory(self) -> None:
        """The chosen device's free memory against what the chosen models need."""
        device = self.device.currentText()
        if device == "auto":
            device = next((d for d in ("cuda", "mps", "cpu") if d in self.free_gb), "cpu")
        needs = {}
        for combo in self.choices.values():
            entry = self.catalog.get(combo.currentData() or "")
            if entry is not None and entry.min_memory_gb:
                needs[entry.name] = entry.min_memory_gb
        free = self.free_gb.get(device)
        if not self.free_gb:
            text = "finding the devices…"
        elif device not in self.free_gb:
            text = f"{device} is not available here: the analysis will use {next(iter(self.free_gb))}"
        else:
            text = f"{device}: {free:.1f} GB free"
        for name, gb in needs.items():
            fits = free is None or gb <= free
            text += f"; {name} needs about {gb:g} GB" + ("" if fits else " (will not fit: the builtin engine is used)")
        self.memory.setText(text)

    def _choose(self, key: str) -> None:
        name = self.device.currentText() if key == "device" else self.choices[key].currentData()
        try:
            save_choice(key, name)
        except ValueError as exc:
            self.message.emit(str(exc))
            return
        entry = self.catalog.get(name)
        if entry is not None and installed_path(entry) is None:
            self.message.emit(f"{name} is chosen for {key} but not installed yet: download it, or the "
                              f"builtin engine is used.")
        if not self.query.running:  # where the stages run now
            self.query.start()
        self.show_memory()
        self.changed.emit()

    def stop(self) -> None:
        self.query.cancel()
        self.query.wait(3000)
