"""Engine choices per capability (choices.py, `videoreview models use | device`): the
fallback to the builtin engines, with one notice, when a chosen model is not installed,
would not fit in memory, or the choices file is damaged; and the CLI that sets them."""

from __future__ import annotations

import json

import pytest

from helpers import run
from videoreview import choices
from videoreview.pipeline import DEFAULT_ENGINES

REVISION = "ab" * 20


def entry(name: str, tasks: str, memory: float) -> str:
    return (f'name = "{name}"\nfamily = "llava-onevision"\ntasks = [{tasks}]\nrepo = "example/{name}"\n'
            f'revision = "{REVISION}"\nlicense = "apache-2.0"\nmin_memory_gb = {memory}\n')


@pytest.fixture()
def catalog_home(tmp_path, monkeypatch):
    """A VIDEOREVIEW_HOME with three user catalog models: 'small' installed (a snapshot
    in the Hugging Face cache), 'huge' installed but needing 100 TB, 'absent' not pulled."""
    from huggingface_hub import constants

    catalog = tmp_path / "home" / "models"
    catalog.mkdir(parents=True)
    both = '"captions", "scoring"'
    for name, memory in (("small", 0.001), ("huge", 100_000), ("absent", 1)):
        (catalog / f"{name}.toml").write_text(entry(name, both, memory))
    for name in ("small", "huge"):
        snapshot = tmp_path / "hub" / f"models--example--{name}" / "snapshots" / REVISION
        snapshot.mkdir(parents=True)
        (snapshot / "config.json").write_text("{}")
        (snapshot / "model.safetensors").write_bytes(b"")
    monkeypatch.setenv("VIDEOREVIEW_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    return tmp_path / "home"


def choose_engines(catalog_home, **values) -> None:
    (catalog_home / "engines.json").write_text(json.dumps(values))


def test_no_choices_means_the_builtin_engines(catalog_home):
    chosen = choices.choose()
    assert chosen.analysis_engines() == DEFAULT_ENGINES and chosen.notices == ()
    assert chosen.names["image-text"] == "none" and chosen.device == "cpu"


def test_an_installed_model_that_fits_is_used(catalog_home):
    choose_engines(catalog_home, captions="small", scoring="small")
    chosen = choices.choose()
    assert chosen.notices == () and chosen.analysis_engines()["captions"] == "small"
    assert chosen.names["scoring"] == "small"


def test_a_missing_or_too_big_model_falls_back_with_one_notice_each(catalog_home):
    choose_engines(catalog_home, captions="absent", scoring="absent", summaries="huge")
    seen = []
    chosen = choices.choose(seen.append)
    assert chosen.analysis_engines() == DEFAULT_ENGINES and chosen.names["scoring"] == "builtin"
    assert chosen.names["summaries"] == "builtin"  # 'huge' does not serve summaries: refused too
    assert list(chosen.notices) == seen and len(seen) == 2
    assert seen[0] == ("absent is not installed (videoreview models pull absent). Instead: "
                       "Frame and boundary captions: builtin; ViSIL scorer: builtin")
    assert seen[1].startswith("huge cannot serve summaries")
    choose_engines(catalog_home, captions="huge")
    (notice,) = choices.choose().notices
    assert notice.startswith("huge needs about 100000 GB and cpu has ") and notice.endswith(
        "GB free. Instead: Frame and boundary captions: builtin")


def test_a_damaged_choices_file_is_said_and_left_as_it_was(catalog_home):
    damaged = b"{not json"
    (catalog_home / "engines.json").write_bytes(damaged)
    chosen = choices.choose()
    assert chosen.analysis_engines() == DEFAULT_ENGINES
    (notice,) = chosen.notices
    assert str(catalog_home / "engines.json") in notice and "not valid JSON" in notice
    assert (catalog_home / "engines.json").read_bytes() == damaged
    (catalog_home / "engines.json").write_text('{"captions": 3}')
    assert "not a map of capability to engine name" in choices.choose().notices[0]


def test_a_device_that_is_not_here_falls_back_to_the_cpu(catalog_home):
    choose_engines(catalog_home, device="cuda")
    chosen = choices.choose()
    assert chosen.device == "cpu"
    assert chosen.notices == ("device cuda is not available here (present: cpu); using cpu",)


def models(catalog_home, *args):
    return run("models", *args, home=catalog_home)


def test_models_use_and_device(catalog_home):
    used = models(catalog_home, "use", "small")
    assert used.returncode == 0 and used.stdout.strip() == "captions, scoring: small", used.stderr
    assert models(catalog_home, "use", "absent", "--for", "captions").stdout.strip() == \
        "captions: absent (not installed yet: videoreview models pull absent)"
    assert models(catalog_home, "use", "builtin", "--for", "scoring").returncode == 0
    assert json.loads((catalog_home / "engines.json").read_text()) == {"captions": "absent", "scoring": "builtin"}
    listed = {row["name"]: row for row in json.loads(models(catalog_home, "list", "--json").stdout)}
    assert listed["absent"]["chosen_for"] == ["captions"] and listed["small"]["chosen_for"] == []
    for args, problem in ((["use", "builtin"], "name the capability with --for"),
                          (["use", "small", "--for", "faces"], "small cannot serve faces"),
                          (["use", "nothing", "--for", "captions"], "'nothing' is neither a builtin captions")):
        refused = models(catalog_home, *args)
        assert refused.returncode == 1 and problem in refused.stderr, refused.stderr
    assert json.loads((catalog_home / "engines.json").read_text()) == {"captions": "absent", "scoring": "builtin"}
    device = models(catalog_home, "device", "cpu")
    assert device.returncode == 0 and device.stdout.startswith("chosen: cpu\ncpu "), device.stderr
    assert json.loads((catalog_home / "engines.json").read_text())["device"] == "cpu"
    assert models(catalog_home, "device", "tpu").returncode == 2  # argparse: not a choice


def test_a_model_folder_can_be_chosen_where_models_serve(catalog_home, tmp_path):
    """The Summaries panel's writer and scorer are chosen by folder too: one choices file for
    the window and the command line."""
    folder = tmp_path / "my model"
    folder.mkdir()
    choices.save_choice("scoring", str(folder))
    choices.save_choice("summaries", str(folder))
    chosen = choices.choose()
    assert chosen.names["scoring"] == chosen.names["summaries"] == str(folder) and chosen.notices == ()
    with pytest.raises(ValueError, match="neither a builtin faces engine"):
        choices.save_choice("faces", str(folder))  # no model serves faces
    with pytest.raises(ValueError, match="the model folder is not there"):
        choices.save_choice("scoring", str(tmp_path / "gone"))
    folder.rmdir()
    chosen = choices.choose()  # a chosen folder that has gone: the builtin, and one line
    assert chosen.names["scoring"] == chosen.names["summaries"] == "builtin"
    assert len(chosen.notices) == 1 and "the model folder is not there" in chosen.notices[0]
