"""The upgrade a user can find: with the builtin captioner chosen, once an analysis has shown
its captions, the offer bar says what better captions need here (models/advice.py): on a
CUDA GPU the largest catalog VLM that fits its free memory; on a CPU the catalog VLM whose
cost per shot fits this machine's cores and memory; each with SigLIP 2 beside it to name
what is seen (where no image-text model is chosen and both fit), with download sizes and
licences; a model server the other choice. One click (Download and use) pulls the models
one after the other in the background (`videoreview models pull NAME` in a child process,
as the Models dialog runs it; the bar shows the bytes so far and Cancel), chooses the VLM
for captions and SigLIP 2 for image-text, and analyses the open video again, which makes
its captions again (the other stages come from the stage cache). Add a model server… asks
for one (the dialog of Settings' Model servers) and chooses it. Where no VLM fits, only the
server is offered. Answered (taken or dismissed), the offer is not made again:
``offers/better-captions`` in the window settings. The free memory comes from `videoreview
models device`, so that the window never imports torch."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QDialog

from ..choices import load_choices, save_choice
from ..engines.registry import SERVER
from ..errors import VideoReviewError
from ..models.advice import BUILTIN, NO_IMAGE_TEXT, Advice, Machine, advise, cpu_free_gb, cuda_free_gb, usable_cores
from ..models.catalog import ModelEntry, load_catalog
from ..models.servers import Server, add_server
from .dialogs.models_dialog import downloaded_bytes
from .dialogs.servers_box import ServerDialog
from .video.notice_bar import OfferBar
from .window_settings import window_settings
from .work.background import CommandTask

ANSWERED = "offers/better-captions"
POLL_MS = 1000
TAKE = "Download and use"
SERVER_OFFER = "Add a model server…"
NO = "No thanks"


def answered() -> bool:
    return window_settings().value(ANSWERED, False, type=bool)


def remember_answer() -> None:
    window_settings().setValue(ANSWERED, True)


class CaptionsUpgrade(QObject):
    def __init__(self, window, bar: OfferBar) -> None:
        super().__init__(window)
        self.window = window
        self.bar = bar
        self.advice: Advice | None = None
        self._asked = False  # this session: the devices asked for once
        self._command: CommandTask | None = None  # `models device`, then each `models pull`
        self._pulls: list[ModelEntry] = []  # the models still to download, the one downloading first
        self._poll = QTimer(self, interval=POLL_MS, timeout=self._show_progress)
        window.queue.finished.connect(lambda _path, _analysis: self.check())

    @staticmethod
    def captions_choice() -> str:
        return load_choices()[0].get("captions", BUILTIN)

    def check(self) -> None:
        """After an analysis (its captions on show, no tour over them): find the devices'
        free memory, once a session, while the offer is still to make."""
        if self._asked or self.window.current is None or self.window.tours.tour is not None or answered():
            return
        if self.captions_choice() != BUILTIN:
            return
        self._asked = True
        self.ask_devices()

    def ask_devices(self) -> None:
        """`videoreview models device` in a child process; tests replace this. When it fails
        nothing is offered this session."""
        self._command = CommandTask("models", "device", parent=self)
        self._command.finished.connect(self.devices_found)
        self._command.start()

    def devices_found(self, listing: str) -> None:
        try:
            catalog = load_catalog()
        except VideoReviewError:  # a damaged entry: `models list` and the Models dialog say which
            return
        choices = load_choices()[0]
        machine = Machine(usable_cores(), cpu_free_gb(listing))
        self.advice = advise(choices.get("captions", BUILTIN), cuda_free_gb(listing), catalog, machine,
                             choices.get("image-text", NO_IMAGE_TEXT))
        if self.advice is None:
            return
        if self.advice.model is not None:
            self.bar.offer(f"Better captions: {self.advice.text()}.",
                           {TAKE: self.pull, SERVER_OFFER: self.add_server, NO: self.dismiss})
        else:
            self.bar.offer(f"Better captions need a VLM: {self.advice.text()}.",
                           {SERVER_OFFER: self.add_server, NO: self.dismiss})

    def dismiss(self) -> None:
        remember_answer()
        self.bar.hide()

    # -- the models: pulled one after the other, chosen, captions made again ------------------
    def pull(self) -> None:
        self._pulls = [model for model, _key in self.advice.choices()]
        self._pull_next()

    def _pull_next(self) -> None:
        name = self._pulls[0].name
        self._command = command = CommandTask("models", "pull", name, parent=self)
        command.finished.connect(self._pulled)
        command.failed.connect(lambda line: self._pull_ended(f"{name} could not be downloaded: {line}"))
        command.cancelled.connect(lambda: self._pull_ended(f"Download of {name} cancelled.", answer=True))
        command.start()
        self._poll.start()
        self.bar.offer(f"Downloading {name}…", {"Cancel": command.cancel})

    def _show_progress(self) -> None:
        entry = self._pulls[0]
        self.bar.label.setText(f"Downloading {entry.name}: {downloaded_bytes(entry) / 1e6:.0f}{expected_mb(entry)} MB")

    def _pull_ended(self, message: str, answer: bool = False) -> None:
        """A failed download is offered again next session; a cancelled one is an answer.
        Either way nothing is chosen (a model pulled before stays in the cache)."""
        self._poll.stop()
        self._command = None
        self._pulls = []
        self.bar.hide()
        if answer:
            remember_answer()
            self.window.statusBar().showMessage(message, 10000)
        else:
            self.window.notice(message)

    def _pulled(self, _out: str) -> None:
        self._pulls.pop(0)
        if self._pulls:
            self._pull_next()
            return
        self._poll.stop()
        self._command = None
        chosen = [(model.name, key) for model, key in self.advice.choices()]
        done = " and ".join(f"{name} for {key}" for name, key in chosen)
        self._choose(chosen, f"Installed and chosen: {done}")

    # -- a server: asked for, chosen, captions made again -----------------------------------
    def ask_server(self) -> Server | None:
        """The server typed in Settings' server dialog, or None (cancelled); tests replace this."""
        dialog = ServerDialog(self.window)
        return dialog.entry() if dialog.exec() == QDialog.Accepted else None

    def add_server(self) -> None:
        entry = self.ask_server()
        if entry is None:  # the offer stays
            return
        try:
            add_server(entry)
        except VideoReviewError as exc:
            self.window.notice(str(exc))
            return
        self._choose([(f"{SERVER}{entry.name}", "captions")], f"The model server {entry.name} is chosen for captions")

    def _choose(self, chosen: list[tuple[str, str]], done: str) -> None:
        """Choose each (name, capability) (as `models use NAME --for CAPABILITY`) and make
        the open video's captions again."""
        self.bar.hide()
        try:
            for name, key in chosen:
                save_choice(key, name)
        except ValueError as exc:
            self.window.notice(str(exc))
            return
        remember_answer()
        document = self.window.current
        if document is not None and not document.busy:
            self.window.reanalyse_current()
            done += "; the open video's captions are being made again"
        else:
            done += "; it captions the next analysis (Analysis > Re-analyse for one analysed before)"
        self.window.statusBar().showMessage(done, 15000)

    def shutdown(self) -> None:
        """At quit: a download stops (the next pull resumes it; the offer stays to make)."""
        if self._command is not None:
            self._command.blockSignals(True)
            self._command.cancel()
            self._command.wait(3000)


def expected_mb(entry: ModelEntry) -> str:
    """" of 1501" (its download size in MB), " of about 1030" (rounded), or "" (not recorded)."""
    if entry.size_bytes:
        return f" of {entry.size_bytes / 1e6:.0f}"
    if entry.approx_size_gb:
        return f" of about {entry.approx_size_gb * 1e3:.0f}"
    return ""
