"""Every engine capability and how its engines are made: the one table that the pipeline,
the summaries, the library, the window and the CLI all go through.

A name is a builtin engine's (no download), or, where models serve the capability, a
model: a catalog name or a folder (``vlm:`` in front is accepted too, as
``--engines captions=vlm:FOLDER`` has always been written). The device is passed in by
whoever read the user's choice (choices.choose); engines never read the choices file.

    capability   protocol                   builtin                          a model
    boundaries   boundaries/protocol.py     builtin (TransNetV2 + events)    -
    faces        faces/protocol.py          blazeface, dlib-hog, dlib-cnn    -
    captions     captions/protocol.py       builtin (measured captions)      a VLM
    scoring      scoring/protocol.py        builtin (MiniLM evidence)        a VLM
    summaries    scoring/protocol.py        builtin: None, the builder's     a VLM
                                            own text from the analysis
    image-text   embeddings/protocol.py     none: None, frame search off     SigLIP (ONNX)
    speech       speech/protocol.py         whisper-base, whisper-tiny.en;   a Whisper (CTranslate2)
                                            none: None, speech off
    screen-text  text/protocol.py           pp-ocrv6; none: None, off        -

An engine is made once per process and device, and shared; engines holding a model
load it on first use and free it with ``release()``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Factory = Callable[[str], Any]  # device -> engine


class UnknownEngine(KeyError):
    pass


def _boundaries(device: str):
    from .boundaries.builtin import BuiltinBoundaryEngine

    return BuiltinBoundaryEngine()  # on the CPU: TransNetV2 at half rate is sized for it


def _dlib(detector: str) -> Factory:
    def make(device: str):
        from .faces.dlib_faces import DlibFaceEngine  # dlib loads only when an engine is made

        return DlibFaceEngine(detector=detector)

    return make


SERVER = "server:"  # the engine name of a model server: server:NAME


def _captions(device: str):
    from .captions.builtin import BuiltinCaptionEngine

    return BuiltinCaptionEngine()


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


def _builtin_whisper(name: str) -> Factory:
    return lambda device: _whisper(name, device)


def _pp_ocr(device: str):
    from .text.rapid import RapidTextEngine

    return RapidTextEngine(device)


def _off(device: str) -> None:
    return None


@dataclass(frozen=True)
class Capability:
    builtins: dict[str, Factory]  # name -> factory (of None: a builtin that is no engine); the first is the default
    model: Callable[[str, str], Any] | None = None  # (model name or folder, device) -> engine

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.builtins)


CAPABILITIES: dict[str, Capability] = {
    "boundaries": Capability({"builtin": _boundaries}),
    "faces": Capability({"blazeface": _dlib("blazeface"), "dlib-hog": _dlib("hog"), "dlib-cnn": _dlib("cnn")}),
    "captions": Capability({"builtin": _captions}, _vlm),
    "scoring": Capability({"builtin": _builtin_scoring}, _vlm_scoring),
    "summaries": Capability({"builtin": _off}, _vlm),
    "image-text": Capability({"none": _off}, _image_text),
    "speech": Capability({"whisper-base": _builtin_whisper("whisper-base"),
                          "whisper-tiny.en": _builtin_whisper("whisper-tiny.en"), "none": _off}, _whisper),
    "screen-text": Capability({"pp-ocrv6": _pp_ocr, "none": _off}),
}

_INSTANCES: dict[tuple[str, str, str], Any] = {}


def is_builtin(capability: str, name: str) -> bool:
    return name in CAPABILITIES[capability].builtins


def create(capability: str, name: str, device: str = "auto") -> Any:
    """The engine ``name`` for ``capability`` on ``device``; the same instance on every
    call. None for a builtin that is no engine (the builtin summary writer, frame search
    off). UnknownEngine for a name that is neither a builtin nor (where models serve the
    capability) a model; a model folder that will not load raises ModelError."""
    if capability not in CAPABILITIES:
        raise UnknownEngine(f"no capability {capability!r} (capabilities: {', '.join(CAPABILITIES)})")
    kind = CAPABILITIES[capability]
    key = (capability, name, device)
    if key not in _INSTANCES:
        if name in kind.builtins:
            engine = kind.builtins[name](device)
        elif kind.model is not None:
            engine = kind.model(name.removeprefix("vlm:"), device)
        else:
            raise UnknownEngine(f"no {capability} engine named {name!r} (available: {', '.join(kind.names)})")
        _INSTANCES[key] = engine
    return _INSTANCES[key]
