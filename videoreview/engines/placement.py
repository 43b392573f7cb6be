"""Where an engine's networks really run, and why not where they were asked to.

CUDA asked for is a wish: the installed onnxruntime may be the CPU build, torch may be
a CPU build, CUDA's libraries may be missing, the GPU may run out of memory mid-run.
Then the engine runs on the CPU, with the CPU's settings, and says why in one line
(``Placement.note``; the pipeline passes it on once per stage). Nothing here fails:
every check that cannot start CUDA answers "cpu" with the reason.

    place = torch_placement("cuda")     # Placement("cuda") or Placement("cpu", "torch ... (a CPU build)")
    place = onnx_placement("cuda")      # the same for an ONNX Runtime session
    run = OnDevice(gpu_call, make_cpu_call, place)   # moves to the CPU for good if the GPU fails
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

CUDA_PROVIDER = "CUDAExecutionProvider"
CPU_PROVIDER = "CPUExecutionProvider"
GPU_INSTALL = "scripts/setup --gpu installs the GPU build"


@dataclass(frozen=True)
class Placement:
    device: str  # where it runs: "cuda", "cuda:1" or "cpu"
    note: str | None = None  # why it runs on the CPU although CUDA was asked for

    @property
    def cuda(self) -> bool:
        return self.device.startswith("cuda")

    def after(self, exc: BaseException) -> Placement | None:
        """The CPU, saying why, where ``exc`` was this GPU failing mid-run (is_device_error);
        None where it was not: the error is the caller's to raise."""
        if not self.cuda or not is_device_error(exc):
            return None
        return Placement("cpu", f"{self.device} failed mid-run ({short(exc)})")


def wants_cuda(device: str | None) -> bool:
    return bool(device) and device.startswith("cuda")


def cpu_only(device: str, why: str) -> Placement:
    """For an engine that has no CUDA path: the CPU, with ``why`` noted when CUDA was asked for."""
    return Placement("cpu", why if wants_cuda(device) else None)


def short(exc: BaseException) -> str:
    """An exception in one short line, for a notice."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text[:160]}" if text else type(exc).__name__


def is_device_error(exc: BaseException) -> bool:
    """Whether ``exc`` came from the GPU (out of memory, a driver or library error) rather
    than from the input: only those move a model to the CPU."""
    text = f"{type(exc).__name__} {exc}".lower()
    return any(word in text for word in ("cuda", "cudnn", "cublas", "out of memory", "outofmemory", "nvrtc"))


@functools.cache
def torch_placement(device: str) -> Placement:
    """Where torch runs a model asked for on ``device``: the device when torch can put a
    tensor there and compute with it, else the CPU with the reason."""
    if not wants_cuda(device):
        return Placement("cpu")
    import torch

    if not torch.cuda.is_available():
        build = "a CPU build" if torch.version.cuda is None else f"built for CUDA {torch.version.cuda}, no GPU seen"
        return Placement("cpu", f"torch {torch.__version__} cannot use CUDA here ({build})")
    try:
        (torch.ones(8, device=device) * 2).sum().item()
    except Exception as exc:  # a driver that does not match, a busy or broken device
        return Placement("cpu", f"torch failed on {device} ({short(exc)})")
    return Placement(device)


def onnx_placement(device: str, providers: Sequence[str] | None = None) -> Placement:
    """Where an ONNX Runtime session asked for on ``device`` runs. ``providers``: the
    providers to assume this onnxruntime has (default: its own list; the tests give one
    without CUDA). CUDA only when a session with the CUDA provider really starts on it."""
    if not wants_cuda(device):
        return Placement("cpu")
    problem = _onnx_cuda_problem(device, None if providers is None else tuple(providers))
    return Placement("cpu", problem) if problem else Placement(device)


def onnx_providers(place: Placement) -> list:
    """The provider list for a session at ``place``."""
    if not place.cuda:
        return [CPU_PROVIDER]
    index = int(place.device.partition(":")[2] or 0)
    return [(CUDA_PROVIDER, {"device_id": index}), CPU_PROVIDER]


@functools.cache
def _onnx_cuda_problem(device: str, providers: tuple[str, ...] | None) -> str | None:
    import onnxruntime as ort

    available = providers if providers is not None else tuple(ort.get_available_providers())
    if CUDA_PROVIDER not in available:
        return f"onnxruntime {ort.__version__} has no CUDA provider ({GPU_INSTALL})"
    preload = getattr(ort, "preload_dlls", None)  # CUDA and cuDNN from NVIDIA's pip packages
    if preload is not None:
        try:
            preload()
        except Exception:  # noqa: BLE001 - the session below says what is missing
            pass
    options = ort.SessionOptions()
    options.log_severity_level = 4
    ort.set_default_logger_severity(4)  # its own error lines would repeat ours
    try:
        session = ort.InferenceSession(_tiny_model(), options, providers=onnx_providers(Placement(device)))
        if CUDA_PROVIDER not in session.get_providers():
            return "ONNX Runtime's CUDA provider did not start (CUDA or cuDNN libraries missing, or no GPU)"
        import numpy as np

        session.run(None, {"x": np.ones((1, 4), np.float32)})
    except Exception as exc:
        return f"ONNX Runtime's CUDA provider failed ({short(exc)})"
    finally:
        ort.set_default_logger_severity(2)  # its default: warnings and worse
    return None


def _tiny_model() -> bytes:
    """An ONNX graph of one addition: enough to see whether a provider starts and runs."""
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    graph = helper.make_graph([helper.make_node("Add", ["x", "x"], ["y"])], "probe", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8).SerializeToString()


class Placed:
    """For an engine that learns where it runs when its model loads: ``asked`` is the
    device it was made for, ``place`` the Placement once known."""

    asked: str = "cpu"
    place: Placement | None = None

    @property
    def device(self) -> str:
        return self.place.device if self.place is not None else self.asked

    @property
    def device_note(self) -> str | None:
        return self.place.note if self.place is not None else None

    def moved_to_cpu(self, exc: BaseException) -> bool:
        """Whether ``exc`` was the GPU failing (Placement.after); then ``place`` is the CPU."""
        moved = self.place.after(exc) if self.place is not None else None
        if moved is not None:
            self.place = moved
        return moved is not None


class OnDevice:
    """A model call at ``place`` that moves to the CPU for good when the GPU fails with a
    device error (out of memory, a library that will not load): ``make_cpu()`` gives the
    CPU call, made once, and the failed call is run again there. Other errors pass."""

    def __init__(self, call: Callable, make_cpu: Callable[[], Callable], place: Placement) -> None:
        self.call, self._make_cpu, self.place = call, make_cpu, place

    def __call__(self, *args, **kwargs):
        try:
            return self.call(*args, **kwargs)
        except Exception as exc:
            moved = self.place.after(exc)
            if moved is None:
                raise
            self.call, self.place = self._make_cpu(), moved
            return self.call(*args, **kwargs)


def preload_cuda12() -> None:
    """Load cuBLAS 12 and cuDNN 9 from NVIDIA's pip packages (the ``gpu`` extra) by their full
    paths. CTranslate2 opens them by name, and pip puts them where the loader does not look;
    once loaded, the name finds them. Nothing happens where the packages are not installed."""
    import ctypes
    import importlib.util
    from pathlib import Path

    paths = []
    for package, pattern in (("nvidia.cublas", "libcublas*.so.12"), ("nvidia.cudnn", "libcudnn*.so.9")):
        try:
            spec = importlib.util.find_spec(package)
        except ImportError:
            continue
        for folder in (spec.submodule_search_locations or []) if spec else []:
            paths += sorted((Path(folder) / "lib").glob(pattern))
    # cuDNN's parts need each other: load what can be loaded until nothing more can.
    while paths:
        left = []
        for path in paths:
            try:
                ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)
            except OSError:
                left.append(path)
        if len(left) == len(paths):
            return
        paths = left


def ctranslate2_placement(device: str) -> Placement:
    """Where CTranslate2 runs a model asked for on ``device``."""
    if not wants_cuda(device):
        return Placement("cpu")
    import ctranslate2

    preload_cuda12()
    try:
        count = ctranslate2.get_cuda_device_count()
    except Exception as exc:
        return Placement("cpu", f"CTranslate2 cannot use CUDA here ({short(exc)})")
    if count == 0:
        return Placement("cpu", f"CTranslate2 {ctranslate2.__version__} sees no CUDA device")
    return Placement(device)
