"""The upgrade a user can find (gui/captions_upgrade.py), in the real window: with the builtin
captioner chosen, the offer bar says once what better captions need. With a CUDA GPU's free
memory (the device answer given to the window) it offers the largest catalog VLM that fits;
one click pulls it from the loopback hub (tests/hub_server.py: a tiny LLaVA-OneVision of
tests/tiny_vlm.py), chooses it for captions and analyses the open video again, which makes
its captions with the model (the other stages from the stage cache). Without CUDA it offers
the shipped catalog's small VLM that fits the machine's cores and memory and SigLIP 2, with
their sizes; one click pulls both in turn (tiny ones of their families served at the
catalog's repositories and revisions), chooses them and analyses again. With too little
memory it offers a model server (the loopback one of tests/model_server.py), saying why;
dismissed, it is not made again."""

from __future__ import annotations

import copy
import json
import os
import re

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from fake_engines import ENGINES  # noqa: E402
from helpers import choose_engines, main_window  # noqa: E402
from hub_server import Hub  # noqa: E402
from model_server import ModelServer  # noqa: E402
from tiny_siglip import build as build_siglip  # noqa: E402
from tiny_vlm import build, colour_clip  # noqa: E402
from videoreview.gui import captions_upgrade  # noqa: E402
from videoreview.gui.captions_upgrade import ANSWERED, answered, expected_mb  # noqa: E402
from videoreview.gui.window_settings import window_settings  # noqa: E402
from videoreview.models.advice import NAMER, download_size, pace, shot_seconds  # noqa: E402
from videoreview.models.catalog import load_catalog  # noqa: E402
from videoreview.models.servers import Server  # noqa: E402

REVISION = "0123456789abcdef0123456789abcdef01234567"
ANALYSIS_MS = 180_000
WITH_CUDA = "chosen: auto\ncuda  1.2 GB free\ncpu   30.0 GB free"  # 1.2 GB: only the tiny VLM (1 GB) fits
WITHOUT_CUDA = "chosen: auto\ncpu   30.0 GB free"
LITTLE_MEMORY = "chosen: auto\ncpu   1.1 GB free"  # less than any catalog VLM needs
TINY_FAMILY = {"smolvlm": "smolvlm", "qwen3.5": "qwen3_5"}  # catalog family -> tests/tiny_vlm.py's


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


class Hubs(Hub):
    """The loopback hub serving several repositories, each at its own revision (repo ->
    (revision, files)); one log of the requests, in the order they came."""

    def __init__(self, repos: dict[str, tuple[str, dict[str, bytes]]], rate: int | None = None) -> None:
        self.repos = repos
        first = next(iter(repos))
        super().__init__(first, *repos[first], rate=rate)

    def _serve(self, request, body: bool) -> None:
        repo = next((r for r in self.repos if f"/{r}/" in request.path), self.repo)
        one = copy.copy(self)  # this repository's view, sharing the request log
        one.repo, (one.revision, one.files) = repo, self.repos[repo]
        Hub._serve(one, request, body)


def files_of(folder) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


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
            # 1.2 GB: no room for SigLIP 2 (2 GB) beside it
            assert window.offer_bar.label.text() == (
                f"Better captions: tiny-vlm fits this GPU (needs about 1 GB, 1.2 GB free); "
                f"{size / 1e6:.0f} MB to download, licence apache-2.0.")
            assert list(window.offer_bar.buttons) == ["Download and use", "Add a model server…", "No thanks"]

            with qtbot.waitSignal(window.queue.finished, timeout=ANALYSIS_MS) as again:
                window.offer_bar.buttons["Download and use"].click()
            assert f"GET /example/tiny-vlm/resolve/{REVISION}/model.safetensors" in hub.requests
            assert json.loads((upgrade_home / "engines.json").read_text())["captions"] == "tiny-vlm"
            path, analysis = again.args
            assert path == str(clip) and window.current.analysis is analysis
            assert analysis.engines["captions"].startswith(f"llava_onevision:{REVISION}@")
            assert analysis.captions and analysis.engines["boundaries"] == first.engines["boundaries"]
            assert not window.offer_bar.isVisible() and answered() and asked == [1]  # once
    finally:
        hub.close()


def test_without_cuda_one_click_pulls_a_small_vlm_and_siglip2_in_turn(qtbot, upgrade_home, tmp_path, monkeypatch):
    monkeypatch.setattr(captions_upgrade, "usable_cores", lambda: 2)
    catalog = load_catalog()
    namer = catalog[NAMER]
    clip = colour_clip(tmp_path / "colours.mp4", seconds=1, fps=20)  # a file of its own: no captions cached
    hub = None
    try:
        with main_window(qtbot) as window:
            answer_devices(window, WITHOUT_CUDA)
            analysed(qtbot, window, clip)
            qtbot.waitUntil(window.offer_bar.isVisible, timeout=5_000)
            vlm = window.upgrade.advice.model  # which small VLM keeps up on 2 cores: the catalog's figures say
            assert vlm.name in ("smolvlm2-256m-video-instruct", "smolvlm2-500m-video-instruct", "qwen3.5-0.8b")
            seconds = shot_seconds(vlm, 2)
            slow = pace(seconds)
            assert window.offer_bar.label.text() == (
                f"Better captions: {vlm.name} captions a shot in about {seconds:.1f} s on these 2 "
                f"cores{slow} "
                f"(needs about {vlm.min_memory_gb:g} GB, 30.0 GB free); {download_size(vlm)}, licence apache-2.0; "
                f"and siglip2-base-patch16-256 names what is seen (1.50 GB to download, licence apache-2.0).")
            assert "not recorded" not in download_size(vlm)
            assert list(window.offer_bar.buttons) == ["Download and use", "Add a model server…", "No thanks"]

            # Tiny models of their families at the catalog's repositories and pinned revisions.
            family = TINY_FAMILY[vlm.family]
            hub = Hubs({vlm.repo: (vlm.revision, files_of(build(family, tmp_path / "vlm"))),
                        namer.repo: (namer.revision, files_of(build_siglip(tmp_path / "siglip2", gemma=True)))},
                       rate=200_000)  # slow enough (3 s and 1 s) for the bar to show the bytes so far
            monkeypatch.setenv("HF_ENDPOINT", hub.url)  # the pulls' child processes inherit it
            with qtbot.waitSignal(window.queue.finished, timeout=ANALYSIS_MS) as again:
                window.offer_bar.buttons["Download and use"].click()
                assert window.offer_bar.label.text() == f"Downloading {vlm.name}…"
                assert list(window.offer_bar.buttons) == ["Cancel"]
                for model in (vlm, namer):  # "Downloading NAME: 0 of about 1030 MB" (its size in the catalog)
                    progress = re.compile(rf"Downloading {re.escape(model.name)}: \d+{expected_mb(model)} MB")
                    qtbot.waitUntil(lambda: progress.fullmatch(window.offer_bar.label.text()), timeout=30_000)
            gets = [line.split(" ")[1] for line in hub.requests if line.startswith("GET ")]
            repos = [vlm.repo if f"/{vlm.repo}/" in path else namer.repo for path in gets]
            first = repos.index(namer.repo)
            assert first > 0 and set(repos[:first]) == {vlm.repo} and set(repos[first:]) == {namer.repo}  # in turn
            assert f"/{vlm.repo}/resolve/{vlm.revision}/model.safetensors" in gets
            assert f"/{namer.repo}/resolve/{namer.revision}/model.safetensors" in gets
            chosen = json.loads((upgrade_home / "engines.json").read_text())
            assert (chosen["captions"], chosen["image-text"]) == (vlm.name, NAMER)
            analysis = again.args[1]
            assert analysis.engines["captions"].startswith(f"{family}:{vlm.revision}@") and analysis.captions
            assert not window.offer_bar.isVisible() and answered()
    finally:
        if hub is not None:
            hub.close()


@pytest.fixture()
def loopback():
    server = ModelServer()
    yield server
    server.close()


def test_with_too_little_memory_a_model_server_is_offered_and_chosen(qtbot, upgrade_home, tmp_path, loopback):
    # 24 fps: a file of its own, whose captions no other test's server left in the session's cache
    clip = colour_clip(tmp_path / "colours.mp4", seconds=1, fps=24)
    with main_window(qtbot) as window:
        answer_devices(window, LITTLE_MEMORY)
        analysed(qtbot, window, clip)
        qtbot.waitUntil(window.offer_bar.isVisible, timeout=5_000)
        assert window.offer_bar.label.text() == (
            "Better captions need a VLM: a model server (vLLM, Ollama, LM Studio), as no catalog VLM fits this "
            "machine's memory (smolvlm2-256m-video-instruct needs about 2 GB, 1.1 GB free).")
        assert list(window.offer_bar.buttons) == ["Add a model server…", "No thanks"]
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
