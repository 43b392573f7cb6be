"""Torch networks exported once to ONNX and run with ONNX Runtime.

ONNX Runtime fuses each convolution with its activation and plans memory once:
EfficientNet-Lite0 runs 1.3-2.8x faster than in torch's eager mode on these CPUs (224x224
to 398x224); TransNetV2 about as fast. Either way analysis then needs no torch (~1 s to
import). An export lies in ``$VIDEOREVIEW_HOME/onnx/<key>/``, written to a temporary folder and
renamed into place, so it is made once per key and a crash mid-export leaves nothing
half written.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path

from .placement import onnx_placement, onnx_providers


def exported(key: str, export: Callable[[Path], None]) -> Path:
    """The folder of ONNX files for ``key``, filled by ``export(folder)`` the first time
    it is asked for. The folder appears whole or not at all (renamed into place)."""
    from ..paths import data_dir

    out = data_dir() / "onnx" / key
    if out.is_dir():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".export-", dir=out.parent))
    try:
        export(staging)
        try:
            os.replace(staging, out)
        except OSError:  # another process exported it meanwhile
            if not out.is_dir():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out


def torch_to_onnx(module, example, path: Path, inputs: list[str], outputs: list[str],
                  dynamic_axes: dict) -> None:
    """``torch.onnx.export`` with the TorchScript exporter: the torch.export one needs
    onnxscript as well; at the pinned torch this one is complete and exact (see the tests)."""
    import torch

    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore", torch.jit.TracerWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", UserWarning)
        torch.onnx.export(module.eval(), example, path, dynamo=False, opset_version=17,
                          input_names=inputs, output_names=outputs, dynamic_axes=dynamic_axes)


def session(path: Path, device: str = "cpu", arena: bool = True):
    """An ONNX Runtime session on ``device`` ("cuda" takes the CUDA provider where it
    starts here, else the CPU: see placement.onnx_placement; ``session.get_providers()``
    says which), using as many threads as this process may run on, which do not spin
    while waiting (other stages share the cores).
    ``arena`` False: intermediate tensors are freed after each run instead of kept in
    ONNX Runtime's CPU arena (which never shrinks)."""
    import onnxruntime as ort

    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    options = ort.SessionOptions()
    options.intra_op_num_threads = cores
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.enable_cpu_mem_arena = arena
    return ort.InferenceSession(str(path), options, providers=onnx_providers(onnx_placement(device)))
