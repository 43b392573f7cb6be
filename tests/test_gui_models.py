"""Analysis > Models…: the real dialog running `videoreview models ...` in child processes
against the loopback hub (tests/hub_server.py): a download with progress, a cancelled
one, a removal, a refusal in one line, and the engine and device choices saved."""

from __future__ import annotations

import json
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from safetensors.numpy import save  # noqa: E402

from hub_server import Hub  # noqa: E402
from videoreview.gui.dialogs.models_dialog import ModelsDialog  # noqa: E402

REVISION = "0123456789abcdef0123456789abcdef01234567"


def weights(megabytes: float) -> bytes:
    values = np.random.default_rng(0).standard_normal(int(megabytes * (1 << 20)) // 4).astype(np.float32)
    return save({"embeddings.weight": values})


def entry(name: str, size: int, revision: str = REVISION) -> str:
    return (f'name = "{name}"\nfamily = "llava-onevision"\ntasks = ["captions"]\nrepo = "example/{name}"\n'
            f'revision = "{revision}"\nlicense = "apache-2.0"\nsize_bytes = {size}\nmin_memory_gb = 0.5\n')


@pytest.fixture()
def hubs(tmp_path, monkeypatch):
    """Two models on two loopback hubs: 'quick' (2 MB at 2 MB/s) and 'slow' (24 MB at 4 MB/s:
    huggingface_hub writes its partial file 10 MB at a time, so progress shows after 2.5 s)."""
    from huggingface_hub import constants

    servers = {}
    for name, size, rate in (("quick", 2, 2 << 20), ("slow", 24, 4 << 20)):
        files = {"config.json": b'{"model_type": "llava_onevision"}', "model.safetensors": weights(size)}
        servers[name] = Hub(f"example/{name}", REVISION, files, rate=rate)
    home = tmp_path / "home"
    (home / "models").mkdir(parents=True)
    for name, server in servers.items():
        (home / "models" / f"{name}.toml").write_text(entry(name, len(server.files["model.safetensors"])))
    (home / "models" / "gone.toml").write_text(entry("gone", 1000, "f" * 40))
    monkeypatch.setenv("VIDEOREVIEW_HOME", str(home))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    yield home, servers
    for server in servers.values():
        server.close()


def cell(dialog: ModelsDialog, name: str, column: int) -> str:
    for row in range(dialog.table.rowCount()):
        if dialog.table.item(row, 0).text() == name:
            return dialog.table.item(row, column).text()
    raise KeyError(name)


def run(qtbot, dialog: ModelsDialog, button, endpoint: str, timeout: int = 60_000) -> None:
    os.environ["HF_ENDPOINT"] = endpoint  # the child process inherits it
    button.click()
    qtbot.waitUntil(lambda: dialog._command is None, timeout=timeout)


def test_download_cancel_remove_and_choices(qtbot, hubs):
    home, servers = hubs
    dialog = ModelsDialog()
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: not dialog.engines.finding_devices(), timeout=30_000)
    assert dialog.table.rowCount() == len(dialog.catalog)
    assert cell(dialog, "quick", 4) == "not installed" and cell(dialog, "quick", 2) == "apache-2.0"
    assert cell(dialog, "transnetv2", 3) == "builtin" and cell(dialog, "transnetv2", 4).endswith(" GB")
    assert dialog.memory.text().startswith("cpu: ") and "GB free" in dialog.memory.text()
    assert dialog.engines.runs_on.text().splitlines()[0] == "boundaries: cpu"  # where each stage runs

    dialog.select("quick")
    assert "licence apache-2.0" in dialog.status.text() and dialog.download_button.isEnabled()
    run(qtbot, dialog, dialog.download_button, servers["quick"].url)
    assert dialog.status.text() == "quick is installed.", dialog.status.text()
    assert cell(dialog, "quick", 4) == "0.00 GB"
    assert dialog.choices["captions"].findData("quick") >= 0
    assert dialog.choices["captions"].itemText(dialog.choices["captions"].findData("slow")) == "slow (not installed)"

    dialog.select("slow")
    os.environ["HF_ENDPOINT"] = servers["slow"].url
    dialog.download_button.click()
    qtbot.waitUntil(lambda: dialog.progress.value() > 5, timeout=30_000)
    assert dialog.progress.format() == "10 of 25 MB" and dialog._command is not None
    dialog.cancel_button.click()
    qtbot.waitUntil(lambda: dialog._command is None, timeout=10_000)
    assert dialog.status.text() == "Download of slow cancelled." and cell(dialog, "slow", 4) == "not installed"

    dialog.select("gone")  # a revision the hub does not have: one line
    run(qtbot, dialog, dialog.download_button, servers["quick"].url)
    assert "gone" in dialog.status.text() and "\n" not in dialog.status.text()

    captions = dialog.choices["captions"]
    captions.setCurrentIndex(captions.findData("quick"))
    captions.activated.emit(captions.currentIndex())
    dialog.device.setCurrentText("cpu")
    dialog.device.activated.emit(dialog.device.currentIndex())
    assert json.loads((home / "engines.json").read_text()) == {"captions": "quick", "device": "cpu"}
    assert "quick needs about 0.5 GB" in dialog.memory.text()

    dialog.select("quick")
    run(qtbot, dialog, dialog.remove_button, servers["quick"].url)
    assert dialog.status.text().startswith("removed quick") and cell(dialog, "quick", 4) == "not installed"
