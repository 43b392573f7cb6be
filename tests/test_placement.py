"""CUDA asked for where it cannot be had: every stage runs on the CPU with the CPU's
settings, says why once, and the Analysis records where each stage ran. This machine has
no GPU, a CPU build of torch and onnxruntime without the CUDA provider: the real checks
fail here as they do on a user's machine without the GPU install. A GPU that fails in the
middle of a run is a call that raises CUDA's out-of-memory error (wiring only: the
stage's models are real)."""

from __future__ import annotations

import numpy as np
import pytest

from videoreview.engines import registry
from videoreview.engines.boundaries.builtin import GPU_WINDOW, BuiltinBoundaryEngine
from videoreview.engines.boundaries.transnet import OnnxTransNet
from videoreview.engines.placement import (
    OnDevice,
    Placed,
    Placement,
    is_device_error,
    onnx_placement,
    torch_placement,
)
from videoreview.pipeline import StageCache, analyze, runner
from videoreview.pipeline.stages import build_stages
from videoreview.pipeline.stages.boundaries import BoundaryStage


@pytest.fixture
def nothing_said(monkeypatch):
    """A process in which no stage has said yet why it left the GPU (it says so once)."""
    monkeypatch.setattr(runner, "_SAID", set())


def test_an_onnxruntime_without_the_cuda_provider_runs_on_the_cpu_and_says_how_to_get_it():
    place = onnx_placement("cuda", providers=["AzureExecutionProvider", "CPUExecutionProvider"])
    assert place == Placement("cpu", place.note)
    assert "has no CUDA provider" in place.note and "scripts/setup --gpu" in place.note
    assert onnx_placement("cpu") == Placement("cpu")  # nothing to say when the CPU was asked for


def test_a_torch_that_cannot_use_cuda_runs_on_the_cpu_and_says_why():
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine's torch has a GPU")
    place = torch_placement("cuda")
    assert place.device == "cpu" and place.note.startswith(f"torch {torch.__version__} cannot use CUDA here")
    assert torch_placement("cpu") == Placement("cpu")


def test_a_gpu_call_that_runs_out_of_memory_moves_to_the_cpu_for_good():
    calls = []

    def gpu(x):
        calls.append("gpu")
        raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")

    def cpu(x):
        calls.append("cpu")
        return x * 2

    run = OnDevice(gpu, lambda: cpu, Placement("cuda"))
    assert run(3) == 6 and run(4) == 8
    assert calls == ["gpu", "cpu", "cpu"]  # the GPU is not asked again
    assert run.place.device == "cpu" and "cuda failed mid-run (RuntimeError: CUDA out of memory" in run.place.note
    # An error of the input is not the GPU's: it is raised, and nothing moves.
    bad = OnDevice(lambda x: 1 / 0, lambda: cpu, Placement("cuda"))
    with pytest.raises(ZeroDivisionError):
        bad(1)
    assert bad.place.device == "cuda" and not is_device_error(ZeroDivisionError("division by zero"))


def test_an_engine_that_learns_its_place_moves_to_the_cpu_only_for_the_gpus_errors():
    engine = Placed()  # as Whisper and PP-OCR are, once their model loaded on CUDA
    engine.asked, engine.place = "cuda", Placement("cuda")
    assert not engine.moved_to_cpu(ValueError("a bad frame")) and engine.device == "cuda"
    assert engine.moved_to_cpu(RuntimeError("CUDA error: out of memory")) and engine.device == "cpu"
    assert engine.device_note == "cuda failed mid-run (RuntimeError: CUDA error: out of memory)"
    assert not engine.moved_to_cpu(RuntimeError("CUDA error: out of memory"))  # on the CPU already


def test_where_each_stage_would_run_is_known_without_loading_a_model():
    from videoreview.about import where

    assert where("boundaries", "builtin", "cuda").startswith("cpu (torch ")  # a CPU build of torch here
    # onnxruntime without the CUDA provider; or the GPU build (scripts/setup --gpu) on a machine without a GPU
    assert "no CUDA provider" in where("screen-text", "pp-ocrv6", "cuda") or \
        "CUDA provider did not start" in where("screen-text", "pp-ocrv6", "cuda")
    assert where("speech", "whisper-base", "cuda").startswith("cpu (CTranslate2 ")
    assert where("faces", "blazeface", "cuda") == "cpu (it has a CPU build only)"
    assert where("captions", "server:lab", "cuda") == "server"
    assert where("boundaries", "builtin", "cpu") == "cpu"  # nothing to say when the CPU was asked for


def test_models_device_says_where_each_stage_runs(home):
    from helpers import run

    out = run("models", "device").stdout.splitlines()
    assert [line for line in out if line.startswith("runs on: ")] == [
        "runs on: boundaries cpu", "runs on: faces cpu", "runs on: objects cpu", "runs on: poses cpu",
        "runs on: speech cpu", "runs on: screen-text cpu", "runs on: captions cpu"]


@pytest.mark.models
def test_every_stage_asked_for_cuda_runs_on_the_cpu_with_one_notice_each(cuts_video, home, tmp_path, nothing_said):
    engines = {"boundaries": "builtin", "captions": "builtin", "screen-text": "pp-ocrv6"}
    notices: list[str] = []
    on_cuda = analyze(cuts_video.path, stages=build_stages(engines, "cuda"), cache=StageCache(tmp_path / "a"),
                      notice=notices.append)
    assert on_cuda.devices == {"boundaries": "cpu", "screen-text": "cpu", "captions": "cpu", "decode": "cpu"}
    assert sorted(n.split(":")[0] for n in notices) == ["boundaries runs on the CPU", "captions runs on the CPU",
                                                          "decoding runs on the CPU", "screen-text runs on the CPU"]
    why = ("cannot use CUDA here", "has no CUDA provider", "CUDA provider did not start",
           "cuda decoding would not start")
    assert all(any(w in n for w in why) for n in notices), notices
    # With the CPU's settings: the same boundaries and captions as a run asked for the CPU.
    on_cpu = analyze(cuts_video.path, stages=build_stages(engines, "cpu"), cache=StageCache(tmp_path / "b"))
    assert on_cpu.boundaries == on_cuda.boundaries and on_cpu.captions == on_cuda.captions
    assert on_cpu.devices == {"boundaries": "cpu", "screen-text": "cpu", "captions": "cpu"}  # nothing to decode on
    # Said once: the next video in this process runs the same way without a word.
    again: list[str] = []
    analyze(cuts_video.path, stages=build_stages(engines, "cuda"), cache=StageCache(tmp_path / "c"),
            notice=again.append)
    assert again == []


@pytest.mark.models
def test_whisper_asked_for_cuda_loads_on_the_cpu_and_says_why(home):
    engine = registry.create("speech", "whisper-tiny.en", "cuda")
    transcript = engine.transcribe(np.zeros(16_000, np.float32), lambda *a: None, _NeverCancelled())
    assert transcript.segments == ()
    assert engine.device == "cpu" and "sees no CUDA device" in engine.device_note


@pytest.mark.models
def test_a_gpu_that_fails_mid_run_finishes_the_boundaries_on_the_cpu(cuts_video, home, tmp_path, nothing_said):
    engine = BuiltinBoundaryEngine("cpu")
    engine._models()

    def out_of_memory(windows):
        raise RuntimeError("CUDA out of memory. Tried to allocate 520.00 MiB")

    # What _models makes on CUDA, with a GPU that fails at its first window.
    engine._transnet = OnDevice(out_of_memory, lambda: OnnxTransNet("cpu", GPU_WINDOW), Placement("cuda"))
    notices: list[str] = []
    analysis = analyze(cuts_video.path, stages=[BoundaryStage(engine)], cache=StageCache(tmp_path),
                       notice=notices.append, decode="cpu")
    cuts = [b.frame for b in analysis.boundaries if b.kind == "cut"]
    assert cuts == list(cuts_video.cut_frames)
    assert analysis.devices == {"boundaries": "cpu"}
    assert notices == ["boundaries runs on the CPU: cuda failed mid-run "
                       "(RuntimeError: CUDA out of memory. Tried to allocate 520.00 MiB)"]


class _NeverCancelled:
    def check(self) -> None:
        pass
