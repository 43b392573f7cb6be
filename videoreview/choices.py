"""Which engine serves each capability, and on which device: the user's choices, kept in
``$VIDEOREVIEW_HOME/engines.json`` and shared by the window, the CLI and the library.

A choice is a builtin engine's name, a catalog model's name (``videoreview models
list``) or, for the capabilities models serve, a model folder's path. When a chosen
model cannot be used (not installed, not able to do the job, or needing more memory than
the device has free) the analysis falls back to the builtin engine and says so in one
line: a missing model never stops an analysis.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .engines import registry
from .errors import RecordError

FILE_NAME = "engines.json"


def path() -> Path:
    from .paths import data_dir

    return data_dir() / FILE_NAME


def load_choices() -> tuple[dict[str, str], str | None]:
    """The saved choices (capability or "device" -> name) and, when the file is damaged,
    one line saying so (the defaults are used then, and the file is left as it is)."""
    file = path()
    if not file.exists():
        return {}, None
    from .records import read_json

    try:
        data = read_json(file)
    except RecordError as exc:
        return {}, f"{exc}; using the builtin engines"
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        return {}, f"{file}: not a map of capability to engine name; using the builtin engines"
    return data, None


def save_choice(key: str, name: str) -> None:
    """Choose ``name`` for a capability (or "device"); ValueError when it cannot serve it.
    A damaged file is replaced."""
    from .records import write_atomic

    check_choice(key, name)
    choices, _problem = load_choices()
    choices[key] = name
    write_atomic(path(), (json.dumps(choices, indent=2, sort_keys=True) + "\n").encode())


def check_choice(key: str, name: str, catalog=None) -> None:
    """ValueError when ``name`` is not something that can be chosen for ``key``."""
    from .engines.device import DEVICES

    if key == "device":
        if name not in DEVICES:
            raise ValueError(f"device must be one of {', '.join(DEVICES)} (got {name!r})")
        return
    if key not in registry.CAPABILITIES:
        raise ValueError(f"no capability {key!r} (capabilities: {', '.join(registry.CAPABILITIES)}, device)")
    capability = registry.CAPABILITIES[key]
    if name in capability.builtins:
        return
    if name.startswith(registry.SERVER) and capability.servers:
        from .models.servers import servers

        if name.removeprefix(registry.SERVER) not in servers():
            raise ValueError(f"{name}: no such model server (videoreview models server list)")
        return
    if os.sep in name and capability.model is not None:  # a model folder, chosen by its path
        if not Path(name).is_dir():
            raise ValueError(f"{name}: the model folder is not there")
        return
    from .models.catalog import load_catalog

    catalog = load_catalog() if catalog is None else catalog
    if name not in catalog:
        raise ValueError(f"{name!r} is neither a builtin {key} engine ({', '.join(capability.names)}) "
                         "nor a catalog model")
    if name not in models_for(key, catalog):
        raise ValueError(f"{name} cannot serve {key} (its tasks: {', '.join(catalog[name].tasks)})")


def models_for(key: str, catalog) -> list[str]:
    """The catalog models that can be chosen for a capability."""
    return sorted(name for name, entry in catalog.items() if key in entry.tasks and not entry.builtin)


def chosen_device() -> str:
    """The device chosen for models, or the best present when that one is not here (the
    analysis says so: see ``choose``)."""
    return device_in(load_choices()[0])


def device_in(choices: dict[str, str], notice: Callable[[str], None] = lambda text: None) -> str:
    """The device ``choices`` name, or the best present when that one is not here (said to ``notice``)."""
    from .engines.device import resolve

    try:
        return resolve(choices.get("device", "auto"))
    except ValueError as exc:
        device = resolve("auto")
        notice(f"device {exc}; using {device}")
        return device


@dataclass(frozen=True)
class Chosen:
    """What to run: an engine name per capability (builtin names, or catalog model names
    for the model capabilities), the device, and the notices for the user."""

    names: dict[str, str]
    device: str
    notices: tuple[str, ...]

    def analysis_engines(self) -> dict[str, str]:
        """The pipeline's engines (see pipeline.build_stages); with the image-text model where
        one is chosen, which the captions stage names what each shot shows with."""
        engines = {c.key: self.names[c.key] for c in registry.analysis_capabilities()}
        if self.names.get("image-text", "none") != "none":
            engines["image-text"] = self.names["image-text"]
        return engines


def choose(report: Callable[[str], None] | None = None) -> Chosen:
    """The engines to use now: the saved choices, each checked (installed, fits in the
    device's free memory), with the builtin engine in place of any that cannot be used.
    ``report`` gets each notice as it is found."""
    from .engines.device import free_memory_gb
    from .models.catalog import installed_path, load_catalog

    notices: list[str] = []

    def notice(text: str) -> None:
        notices.append(text)
        if report is not None:
            report(text)

    choices, problem = load_choices()
    if problem:
        notice(problem)
    device = device_in(choices, notice)
    catalog = load_catalog()
    names: dict[str, str] = {}
    fallbacks: dict[str, list[str]] = {}  # reason -> what falls back for it (said in one line)
    free = None
    for capability in registry.CAPABILITIES.values():
        name = choices.get(capability.key, capability.default)
        fallback = capability.default
        reason = None
        try:
            check_choice(capability.key, name, catalog)
        except ValueError as exc:
            reason = str(exc)
        else:
            entry = catalog.get(name)
            if entry is not None and installed_path(entry) is None:
                reason = f"{name} is not installed (videoreview models pull {name})"
            elif entry is not None and entry.min_memory_gb:
                free = free_memory_gb(device) if free is None else free
                if free is not None and free < entry.min_memory_gb:
                    reason = f"{name} needs about {entry.min_memory_gb:g} GB and {device} has {free:.1f} GB free"
        if reason:
            fallbacks.setdefault(reason, []).append(f"{capability.label}: {'off' if fallback == 'none' else fallback}")
            name = fallback
        names[capability.key] = name
    for reason, what in fallbacks.items():
        notice(f"{reason}. Instead: {'; '.join(what)}")
    return Chosen(names, device, tuple(notices))
