"""What better captions need on this machine, said once in the window and in
``videoreview --version``, with the builtin captioner chosen:

- on a CUDA GPU, the largest catalog VLM whose memory estimate fits the GPU's free memory;
- on a CPU, the largest catalog VLM whose measured cost per shot (``cpu_shot_seconds``,
  scaled to this machine's cores) keeps the analysis within the video's length, and whose
  memory estimate fits the memory available; where none keeps up, the fastest that fits
  the memory; where none fits the memory, a model server, saying what the smallest needs;
- beside the VLM, SigLIP 2 (``NAMER``) to name what is seen, where no image-text model is
  chosen and both fit the free memory together; and a model server as the other choice.

Pure functions: the callers find the free memory and the cores (``engines.device`` and
``usable_cores`` in ``--version``; ``videoreview models device`` in a child process in the
window, which never imports torch)."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from .catalog import ModelEntry

BUILTIN = "builtin"  # the builtin captioner's name (the captions default in engines/registry.py)
NO_IMAGE_TEXT = "none"  # the image-text default: frame search and naming off
NAMER = "siglip2-base-patch16-256"  # the image-text model offered beside a VLM: it names what is seen
SERVERS = "vLLM, Ollama, LM Studio"
SERVER_COMMAND = "videoreview models server add NAME URL --model M"

# ``cpu_shot_seconds`` is measured on 2 cores (benchmarks/bench_vlm_shot.py); a machine's
# cost is scaled by its cores, as the VLM's matrix products spread over them.
REFERENCE_CORES = 2
# The real-footage corpus (benchmarks/corpus/: 61 clips, 1563.5 s in 291 shots by the
# hand-written cuts; the command is in docs/models.md) has a shot every 5.4 s on average:
# a 3-minute clip of such shots has about 33.
MEAN_SHOT_SECONDS = 5.4
# Without a VLM the whole analysis of the corpus's 180.2 s animation takes 90.1 s on 2 cores,
# model loading and all (benchmarks/bench_vlm_clip.py): a VLM may take half a clip's length
# and the whole analysis still takes about the clip's (SmolVLM2 256M: 167.5 s, its requests
# 85.8 s, as stages overlap). The per-shot plan spends this share (pipeline/caption_plan.py).
VLM_SHARE = 0.5
SHOT_BUDGET_SECONDS = MEAN_SHOT_SECONDS * VLM_SHARE  # 2.7 s a shot on average


@dataclass(frozen=True)
class Machine:
    """What a CPU's choice is weighed against."""
    cores: int
    free_gb: float | None  # memory available; None: it could not be read here


@dataclass(frozen=True)
class Advice:
    model: ModelEntry | None  # the VLM to pull and choose for captions; None: add a model server
    free_gb: float | None  # the free memory it was weighed against (the GPU's, or the machine's on a CPU)
    namer: ModelEntry | None = None  # the image-text model to pull and choose beside it
    cores: int | None = None  # on a CPU: the cores the cost per shot was scaled to; None: a CUDA GPU or none known
    smallest: ModelEntry | None = None  # on a CPU where no VLM fits the memory: the one that needs least

    def choices(self) -> list[tuple[ModelEntry, str]]:
        """(model, capability) in the order they are pulled and chosen."""
        return [(m, key) for m, key in ((self.model, "captions"), (self.namer, "image-text")) if m is not None]

    def text(self) -> str:
        """What better captions need, in one line (a model server, the other choice beside
        a model, is the window's second button and the end of ``line``)."""
        if self.model is None:
            return self._server_only()
        model = self.model
        if self.cores is None:
            text = f"{model.name} fits this GPU (needs about {model.min_memory_gb:g} GB, {self.free_gb:.1f} GB free)"
        else:
            seconds = shot_seconds(model, self.cores)
            slow = pace(seconds)
            free = (f"{self.free_gb:.1f} GB free" if self.free_gb is not None
                    else "the free memory could not be read here")
            text = (f"{model.name} captions a shot in about {seconds:.1f} s on these {self.cores} cores{slow} "
                    f"(needs about {model.min_memory_gb:g} GB, {free})")
        text += f"; {download_size(model)}, licence {model.license}"
        if self.namer is not None:
            text += (f"; and {self.namer.name} names what is seen ({download_size(self.namer)}, "
                     f"licence {self.namer.license})")
        return text

    def _server_only(self) -> str:
        server = f"a model server ({SERVERS})"
        if self.cores is not None:
            if self.smallest is None:
                return f"{server}, as no catalog VLM has a measured cost per shot on a CPU"
            return (f"{server}, as no catalog VLM fits this machine's memory ({self.smallest.name} needs about "
                    f"{self.smallest.min_memory_gb:g} GB, {self.free_gb:.1f} GB free)")
        if self.free_gb is None:
            return f"{server}, as there is no CUDA GPU here to run a VLM"
        return f"{server}, as no catalog VLM fits this GPU's {self.free_gb:.1f} GB free"

    def command(self) -> str:
        """How to take it from the command line."""
        if self.model is None:
            return SERVER_COMMAND
        pulls = [f"videoreview models pull {m.name}" for m, _key in self.choices()]
        uses = [f"videoreview models use {m.name} --for {key}" for m, key in self.choices()]
        return " && ".join(pulls + uses)

    def line(self) -> str:
        """The advice with its commands, a model server the other choice: ``--version``'s row."""
        if self.model is None:
            return f"{self.text()}: {self.command()}"
        return f"{self.text()}. Take {'them' if self.namer else 'it'}: {self.command()}. " \
               f"Or a model server ({SERVERS}): {SERVER_COMMAND}"


def download_size(entry: ModelEntry) -> str:
    if entry.size_bytes:
        size = entry.size_bytes
        return f"{size / 1e9:.2f} GB to download" if size >= 1e9 else f"{size / 1e6:.0f} MB to download"
    if entry.approx_size_gb:
        return f"about {entry.approx_size_gb:.1f} GB to download"
    return "download size not recorded"


def pace(shot_seconds: float) -> str:
    """What a model slower than SHOT_BUDGET_SECONDS a shot still gives: the per-shot plan
    keeps it to its share of the video's length, so it captions fewer shots ("" where it
    keeps up with every shot)."""
    if shot_seconds <= SHOT_BUDGET_SECONDS:
        return ""
    return (f"; in the {VLM_SHARE:.0%} of a video's length it is given, six frames of about one shot in "
            f"{math.ceil(shot_seconds / SHOT_BUDGET_SECONDS)}, the others keeping the builtin captions")


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the system says, as in a
    container or under taskset; else all of them)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def shot_seconds(entry: ModelEntry, cores: int) -> float:
    """Seconds one shot's caption window takes with ``cores`` cores, from the catalog's figure for 2."""
    return entry.cpu_shot_seconds * REFERENCE_CORES / max(1, cores)


def _size(entry: ModelEntry) -> tuple:
    return entry.min_memory_gb, entry.parameters or 0, entry.size_bytes or 0, entry.name


def _vlms(catalog: dict[str, ModelEntry]) -> list[ModelEntry]:
    """The catalog's captions models with a memory estimate (models without one are left
    out: nothing says they fit)."""
    return [e for e in catalog.values() if "captions" in e.tasks and not e.builtin and e.min_memory_gb is not None]


def largest_fitting(catalog: dict[str, ModelEntry], free_gb: float) -> ModelEntry | None:
    """The catalog's largest captions model (by memory estimate, then parameters) whose
    memory estimate fits ``free_gb``; None when none does."""
    return max((e for e in _vlms(catalog) if e.min_memory_gb <= free_gb), key=_size, default=None)


def fitting_on_cpu(catalog: dict[str, ModelEntry], cores: int, free_gb: float | None) -> ModelEntry | None:
    """On a CPU: among the captions models with a measured cost per shot whose memory
    estimate fits ``free_gb`` (None: not known, so not weighed), the largest whose cost
    on ``cores`` cores is within SHOT_BUDGET_SECONDS; where none is, the fastest of them;
    None when none fits the memory."""
    fitting = [e for e in _vlms(catalog) if e.cpu_shot_seconds is not None
               and (free_gb is None or e.min_memory_gb <= free_gb)]
    keeping_up = [e for e in fitting if shot_seconds(e, cores) <= SHOT_BUDGET_SECONDS]
    if keeping_up:
        return max(keeping_up, key=_size)
    return min(fitting, key=lambda e: (e.cpu_shot_seconds, _size(e)), default=None)


def advise(captions: str, cuda_free_gb: float | None, catalog: dict[str, ModelEntry],
           machine: Machine | None = None, image_text: str = NO_IMAGE_TEXT) -> Advice | None:
    """The advice for the captions choice ``captions``, the CUDA GPU's free memory (None:
    no CUDA GPU in use), else the ``machine`` a CPU's choice is weighed against (None:
    not known, a model server is advised), and the image-text choice; None when captions
    already come from a model or a server."""
    if captions != BUILTIN:
        return None
    if cuda_free_gb is not None:
        model, free, cores, smallest = largest_fitting(catalog, cuda_free_gb), cuda_free_gb, None, None
    elif machine is not None:
        model, free, cores = fitting_on_cpu(catalog, machine.cores, machine.free_gb), machine.free_gb, machine.cores
        smallest = min((e for e in _vlms(catalog) if e.cpu_shot_seconds is not None),
                       key=lambda e: e.min_memory_gb, default=None)
    else:
        return Advice(None, None)
    namer = catalog.get(NAMER) if image_text == NO_IMAGE_TEXT and model is not None else None
    if namer is not None and free is not None and model.min_memory_gb + (namer.min_memory_gb or 0) > free:
        namer = None  # the stages may hold both models at once: the VLM comes first
    return Advice(model, free, namer, cores, smallest if model is None else None)


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


def cpu_free_gb(device_listing: str) -> float | None:
    """The memory available to a model on the CPU from what ``videoreview models device``
    printed; None when it could not be read there ("?")."""
    return free_memory(device_listing).get("cpu")
