"""Where model engines run: CUDA when present (bf16 where the GPU supports it), Apple MPS
where present, else the CPU; and how much memory the chosen device has free, so that a
model that would not fit is refused before it is loaded."""

from __future__ import annotations

import os
import sys

DEVICES = ("auto", "cuda", "mps", "cpu")


def _no_gpu_here() -> bool:
    """True where no GPU can be present, known without importing torch (~1 s): Linux with
    neither NVIDIA's driver device nor WSL's GPU device."""
    linux = sys.platform.startswith("linux")
    return linux and not any(os.path.exists(d) for d in ("/dev/nvidiactl", "/dev/dxg", "/dev/kfd"))


def present() -> list[str]:
    """The devices this machine has, best first ("cpu" always)."""
    if _no_gpu_here():
        return ["cpu"]
    import torch

    found = []
    if torch.cuda.is_available():
        found.append("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        found.append("mps")
    return found + ["cpu"]


def resolve(requested: str | None) -> str:
    """The device to use for a request ("auto" or None: the best present). A requested
    device that is not present raises ValueError saying so."""
    if requested in (None, "", "auto"):
        return present()[0]
    if requested.split(":")[0] not in present():
        raise ValueError(f"{requested} is not available here (present: {', '.join(present())})")
    return requested


def pick_device(requested: str | None = None):
    """(device, dtype): CUDA with bf16 (fp16 where bf16 is unsupported), MPS with fp16,
    the CPU with fp32. ``requested`` None or "auto": the best present. The user's choice
    is read by the caller (choices.choose), never here."""
    import torch

    requested = resolve(requested)
    if requested.startswith("cuda"):
        return requested, torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    if requested == "mps":
        return requested, torch.float16
    return requested, torch.float32


def free_memory_gb(device: str) -> float | None:
    """Memory free for a model on ``device`` in GB (1e9 bytes); None when unknown."""
    if device.startswith("cuda"):
        import torch

        free, _total = torch.cuda.mem_get_info(torch.device(device))
        return free / 1e9
    try:  # the CPU, and MPS (which shares the system's memory)
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024 / 1e9
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 1e9
    except (ValueError, OSError, AttributeError):
        return None
