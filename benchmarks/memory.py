"""Peak memory of the running benchmark process, the one way all benchmarks report it."""

from __future__ import annotations

import resource
import sys


def peak_rss_mb() -> float:
    """This process's peak RSS in MiB since it started: VmHWM on Linux (ru_maxrss would
    include the parent's peak at fork time), ru_maxrss elsewhere."""
    try:
        with open("/proc/self/status") as status:
            return int(status.read().split("VmHWM:")[1].split()[0]) / 1024
    except OSError:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / 2**20 if sys.platform == "darwin" else peak / 1024  # macOS: bytes, Linux: KiB
