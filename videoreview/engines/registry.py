"""The engines of every capability (capabilities.py declares them): made by name, once per
process and device, and shared. The engine choices (choices.py), the pipeline's stages,
the CLI and the window ask here.

A name is a builtin engine's (no download) or, where models serve the capability, a
catalog model's name or a model folder (``vlm:`` in front is accepted too, as
``--engines captions=vlm:FOLDER`` has always been written). A builtin may make no engine
(None): ``none`` turns the capability off, the builtin summary writer is the builder's.
The device is passed in by whoever read the user's choice (choices.choose); engines never
read the choices file.

Engines holding a model load it on first use and free it with ``release()`` (engines/base.py).

More engines: ``register(capability, name, make)``; modules named (comma-separated) in
the environment variable VIDEOREVIEW_ENGINE_MODULES are imported first, so that engines
they register reach child processes too (the tests' fake engines come this way).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any

from ..capabilities import CAPABILITIES, OFF, Builtin, Capability, resolve

Factory = Callable[..., Any]  # (device=device) -> engine, or None for a builtin that is no engine
SERVER = "server:"  # the engine name of a model server: server:NAME (models/servers.py)
ENGINE_MODULES = "VIDEOREVIEW_ENGINE_MODULES"
__all__ = ["CAPABILITIES", "OFF", "SERVER", "Builtin", "Capability", "UnknownEngine", "capability", "create",
           "register", "runs_on"]


class UnknownEngine(KeyError):
    pass


# -- the model factories the captions, summaries and scoring rows name ---------------------

def vlm(spec: str, device: str):
    if spec.startswith(SERVER):  # a model on a server the user added (models/servers.py)
        from .captions.server import ServerEngine

        return ServerEngine(spec.removeprefix(SERVER), device)
    from .captions.vlm import VLMEngine  # transformers loads only when a VLM is chosen

    return VLMEngine(spec, device)


def vlm_scoring(spec: str, device: str):
    if spec.startswith(SERVER):  # scores where the server gives prompt log-probabilities (vLLM)
        from .scoring.server import ServerScoring

        return ServerScoring(vlm(spec, device))
    from .scoring.vlm import VLMScoring

    return VLMScoring(vlm(spec, device))


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


def create(key: str, name: str, device: str = "auto") -> Any:
    """The engine ``name`` for capability ``key`` on ``device``; the same instance on every
    call. None for a builtin that is no engine (``none``, the builtin summary writer).
    UnknownEngine for a name that is neither a builtin nor (where models serve the
    capability) a model; a model folder that will not load raises ModelError. "auto" is
    the best device present (engines/device.py), so engines are made for a real device."""
    if device == "auto":
        from .device import resolve as best_device

        device = best_device(device)
    row = capability(key)
    instance_key = (key, name, device)
    if instance_key not in _INSTANCES:
        if name in row.builtins:
            engine = _made(row.builtins[name], device)
        elif row.model is not None:
            engine = resolve(row.model)(name.removeprefix("vlm:"), device=device)
        else:
            raise UnknownEngine(f"no {key} engine named {name!r} (available: {', '.join(row.names)})")
        _INSTANCES[instance_key] = engine
    return _INSTANCES[instance_key]


def _made(builtin: Builtin, device: str) -> Any:
    make = resolve(builtin.make) if isinstance(builtin.make, str) else builtin.make
    return make(*builtin.args, device=device)


def _import_engine_modules() -> None:
    for module in filter(None, (m.strip() for m in os.environ.get(ENGINE_MODULES, "").split(","))):
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise ImportError(f"{ENGINE_MODULES} names {module!r}, which cannot be imported ({exc})") from exc


_import_engine_modules()

