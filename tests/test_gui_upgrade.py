"""The upgrade a user can find (gui/captions_upgrade.py), in the real window: with the builtin
captioner chosen, the offer bar says once what better captions need. With a CUDA GPU's free
memory (the device answer given to the window) it offers the largest catalog VLM that fits;
one click pulls it from the loopback hub (tests/hub_server.py: a tiny LLaVA-OneVision of
tests/tiny_vlm.py), chooses it for captions and analyses the open video again, which makes
its captions with the model (the other stages from the stage cache). Without CUDA it offers a
model server (the loopback one of tests/model_server.py); dismissed, it is not made again."""

from __future__ import annotations

import json
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from fake_engines import ENGINES  # noqa: E402
from helpers import choose_engines, main_window  # noqa: E402
from hub_server import Hub  # noqa: E402
from model_server import ModelServer  # noqa: E402
from tiny_vlm import build, colour_clip  # noqa: E402
from videoreview.gui.captions_upgrade import ANSWERED, answered  # noqa: E402
from videoreview.gui.window_settings import window_settings  # noqa: E402
from videoreview.models.servers import Server  # noqa: E402

REVISION = "0123456789abcdef0123456789abcdef01234567"
ANALYSIS_MS = 180_000
WITH_CUDA = "chosen: auto\ncuda  1.2 GB free\ncpu   30.0 GB free"  # 1.2 GB: only the tiny VLM (1 GB) fits
WITHOUT_CUDA = "chosen: auto\ncpu   30.0 GB free"


@pytest.fixture()
def upgrade_home(tmp_path, monkeypatch, stage_cache):
    """A home with the builtin captioner chosen (the fakes for the other stages) and the
    session's stage cache; its own Hugging Face cache."""
    from huggingface_hub import constants

    home = tmp_path / "home"
    (home / "models").mkdir(parents=True)
    (home / "cache").symlink_to(stage_cache, target_is_directory=True)
    monkeypatch.setenv("VIDEOREVIEW_HOME", str(home))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    choose_engines({**ENGINES, "captions": "builtin"})
    return home


def answer_devices(window, listing: str) -> list[int]:
    """The window's `models device` answered with ``listing``; the list counts the questions."""
    asked = []
    window.upgrade.ask_devices = lambda: (asked.append(1), window.upgrade.devices_found(listing))
    return asked


def analysed(qtbot, window, clip):
    with qtbot.waitSignal(window.queue.finished, timeout=ANALYSIS_MS) as done:
        window.open_paths([str(clip)])
    return done.args[1]


def test_on_a_gpu_one_click_pulls_the_vlm_that_fits_and_captions_again(qtbot, upgrade_home, tmp_path, monkeypatch):
    folder = build("llava_onevision", tmp_path / "built")
    files = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    hub = Hub("example/tiny-vlm", REVISION, files)
    size = sum(len(data) for data in files.values())
    (upgrade_home / "models" / "tiny-vlm.toml").write_text(
        f'name = "tiny-vlm"\nfamily = "llava-onevision"\ntasks = ["captions"]\nrepo = "example/tiny-vlm"\n'
        f'revision = "{REVISION}"\nlicense = "apache-2.0"\nsize_bytes = {size}\nmin_memory_gb = 1.0\n')
    monkeypatch.setenv("HF_ENDPOINT", hub.url)  # the pull's child process inherits it
    clip = colour_clip(tmp_path / "colours.mp4", seconds=1)
    try:
        with main_window(qtbot) as window:
            asked = answer_devices(window, WITH_CUDA)
            assert not window.offer_bar.isVisible()
            first = analysed(qtbot, window, clip)
            assert first.engines["captions"].startswith("builtin@")
            qtbot.waitUntil(window.offer_bar.isVisible, timeout=5_000)
            assert window.offer_bar.label.text() == (
                f"Better captions need a VLM: tiny-vlm fits this GPU (needs about 1 GB, 1.2 GB free); "
                f"{size / 1e6:.0f} MB to download.")
            assert list(window.offer_bar.buttons) == ["Download and use for captions", "No thanks"]

            with qtbot.waitSignal(window.queue.finished, timeout=ANALYSIS_MS) as again:
                window.offer_bar.buttons["Download and use for captions"].click()
            assert f"GET /example/tiny-vlm/resolve/{REVISION}/model.safetensors" in hub.requests
            assert json.loads((upgrade_home / "engines.json").read_text())["captions"] == "tiny-vlm"
            path, analysis = again.args
            assert path == str(clip) and window.current.analysis is analysis
            assert analysis.engines["captions"].startswith(f"llava_onevision:{REVISION}@")
            assert analysis.captions and analysis.engines["boundaries"] == first.engines["boundaries"]
            assert not window.offer_bar.isVisible() and answered() and asked == [1]  # once
    finally:
        hub.close()


@pytest.fixture()
def loopback():
    server = ModelServer()
    yield server
    server.close()


def test_without_cuda_a_model_server_is_offered_and_chosen(qtbot, upgrade_home, tmp_path, loopback):
    # 24 fps: a file of its own, whose captions no other test's server left in the session's cache
    clip = colour_clip(tmp_path / "colours.mp4", seconds=1, fps=24)
    with main_window(qtbot) as window:
        answer_devices(window, WITHOUT_CUDA)
        analysed(qtbot, window, clip)
        qtbot.waitUntil(window.offer_bar.isVisible, timeout=5_000)
        assert window.offer_bar.label.text() == ("Better captions need a VLM: a model server (vLLM, Ollama, "
                                                 "LM Studio), as there is no CUDA GPU here to run a VLM.")
        window.upgrade.ask_server = lambda: Server("box", loopback.url, "colours", concurrency=2)
        with qtbot.waitSignal(window.queue.finished, timeout=ANALYSIS_MS) as again:
            window.offer_bar.buttons["Add a model server…"].click()
        assert json.loads((upgrade_home / "servers.json").read_text())["box"]["url"] == loopback.url
        assert json.loads((upgrade_home / "engines.json").read_text())["captions"] == "server:box"
        analysis = again.args[1]
        assert analysis.engines["captions"] == "server:box@1-colours" and loopback.requests
        assert not window.offer_bar.isVisible() and answered()


def test_dismissed_it_is_not_offered_again(qtbot, upgrade_home, tmp_path):
    clip = colour_clip(tmp_path / "colours.mp4", seconds=1)
    with main_window(qtbot) as window:
        answer_devices(window, WITHOUT_CUDA)
        analysed(qtbot, window, clip)
        qtbot.waitUntil(window.offer_bar.isVisible, timeout=5_000)
        window.offer_bar.buttons["No thanks"].click()
        assert not window.offer_bar.isVisible() and window_settings().value(ANSWERED, type=bool)
    with main_window(qtbot) as window:  # the next session
        asked = answer_devices(window, WITHOUT_CUDA)
        analysed(qtbot, window, clip)
        assert asked == [] and not window.offer_bar.isVisible()
