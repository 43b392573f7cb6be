"""What every engine shares: identity, progress reporting, and a registry per capability.

An engine declares a name and a version (both go into the Analysis and the cache key),
and the device it runs on. Settings and the CLI pick one engine per capability by name.
"""

from __future__ import annotations

from typing import Callable, Protocol

# fraction done in [0, 1] and a short message for the user
ProgressFn = Callable[[float, str], None]


def no_progress(fraction: float, message: str = "") -> None:
    """A ProgressFn that ignores everything."""


class Engine(Protocol):
    name: str
    version: str
    device: str


class UnknownEngine(KeyError):
    pass


_REGISTRY: dict[str, dict[str, Callable[[], Engine]]] = {}
# Engines named "PREFIX:ARGUMENT" (e.g. "vlm:/models/qwen2-vl"): the loader gets ARGUMENT.
_LOADERS: dict[str, dict[str, Callable[[str], Engine]]] = {}
# Engines hold loaded model weights: made once per process and shared.
_INSTANCES: dict[tuple[str, str], Engine] = {}


def register(capability: str, name: str, factory: Callable[[], Engine]) -> None:
    _REGISTRY.setdefault(capability, {})[name] = factory


def register_loader(capability: str, prefix: str, loader: Callable[[str], Engine]) -> None:
    _LOADERS.setdefault(capability, {})[prefix] = loader


def available(capability: str) -> list[str]:
    return sorted(_REGISTRY.get(capability, {})) + [f"{p}:PATH" for p in sorted(_LOADERS.get(capability, {}))]


def create(capability: str, name: str) -> Engine:
    """The engine registered under ``name`` for ``capability``; the same instance on every call."""
    key = (capability, name)
    if key not in _INSTANCES:
        prefix, sep, argument = name.partition(":")
        loader = _LOADERS.get(capability, {}).get(prefix) if sep else None
        try:
            factory = _REGISTRY[capability][name] if loader is None else (lambda: loader(argument))
        except KeyError:
            known = ", ".join(available(capability)) or "none"
            raise UnknownEngine(f"no {capability} engine named {name!r} (available: {known})") from None
        _INSTANCES[key] = factory()
    return _INSTANCES[key]
