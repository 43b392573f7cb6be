"""What better captions need on this machine, said once in the window and in
``videoreview --version``: with the builtin captioner chosen, the largest catalog VLM whose
memory estimate fits the GPU's free memory, or, with no CUDA GPU (or none that fits), a
model server. Pure functions: the callers find the free memory (``engines.device`` in
``--version``; ``videoreview models device`` in a child process in the window)."""

from __future__ import annotations

from dataclasses import dataclass

from .catalog import ModelEntry

BUILTIN = "builtin"  # the builtin captioner's name (the captions default in engines/registry.py)
SERVERS = "vLLM, Ollama, LM Studio"


@dataclass(frozen=True)
class Advice:
    model: ModelEntry | None  # the VLM to pull and choose for captions; None: add a model server
    free_gb: float | None  # the GPU's free memory; None: no CUDA GPU in use

    def text(self) -> str:
        """What better captions need, in one line."""
        if self.model is not None:
            return (f"{self.model.name} fits this GPU (needs about {self.model.min_memory_gb:g} GB, "
                    f"{self.free_gb:.1f} GB free); {download_size(self.model)}")
        if self.free_gb is None:
            return f"a model server ({SERVERS}), as there is no CUDA GPU here to run a VLM"
        return f"a model server ({SERVERS}), as no catalog VLM fits this GPU's {self.free_gb:.1f} GB free"

    def command(self) -> str:
        """How to take it from the command line."""
        if self.model is not None:
            return f"videoreview models pull {self.model.name} && videoreview models use {self.model.name} " \
                   f"--for captions"
        return "videoreview models server add NAME URL --model M"


def download_size(entry: ModelEntry) -> str:
    size = entry.size_bytes
    if not size:
        return "download size not recorded"
    return f"{size / 1e9:.2f} GB to download" if size >= 1e9 else f"{size / 1e6:.0f} MB to download"


def largest_fitting(catalog: dict[str, ModelEntry], free_gb: float) -> ModelEntry | None:
    """The catalog's largest captions model (by memory estimate, then parameters) whose
    memory estimate fits ``free_gb``; None when none does. Models without an estimate
    are left out: nothing says they fit."""
    fitting = [e for e in catalog.values() if "captions" in e.tasks and not e.builtin
               and e.min_memory_gb is not None and e.min_memory_gb <= free_gb]
    return max(fitting, key=lambda e: (e.min_memory_gb, e.parameters or 0, e.size_bytes or 0, e.name), default=None)


def advise(captions: str, cuda_free_gb: float | None, catalog: dict[str, ModelEntry]) -> Advice | None:
    """The advice for the captions choice ``captions`` and the CUDA GPU's free memory
    (None: no CUDA GPU in use); None when captions already come from a model or a server."""
    if captions != BUILTIN:
        return None
    model = largest_fitting(catalog, cuda_free_gb) if cuda_free_gb is not None else None
    return Advice(model, cuda_free_gb)


def free_memory(device_listing: str) -> dict[str, float]:
    """Device -> GB free, from what ``videoreview models device`` prints ("cuda  23.5 GB
    free" per device present); a device whose free memory is unknown ("?") is left out."""
    free = {}
    for line in device_listing.splitlines():
        words = line.split()
        if line.endswith(" GB free"):
            try:
                free[words[0]] = float(words[1])
            except ValueError:  # "?": unknown
                pass
    return free


def cuda_free_gb(device_listing: str) -> float | None:
    """The CUDA GPU's free memory from what ``videoreview models device`` printed ("chosen:
    auto", then a line per device present); None when CUDA is absent, its free memory
    unknown, or another device chosen."""
    lines = device_listing.splitlines()
    chosen = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("chosen:")), "auto")
    return free_memory(device_listing).get("cuda") if chosen in ("auto", "cuda") else None
