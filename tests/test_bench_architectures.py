"""The full-size architectures the VLM batching benchmark builds (random weights) have
exactly the parameter counts the catalog records for the published models, so the GPU
figures it gives are for the real shapes. Built on torch's meta device: no memory."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

PUBLISHED = {"qwen3-vl-4b": "qwen3-vl-4b-instruct", "smolvlm2-2.2b": "smolvlm2-2.2b-instruct"}


@pytest.mark.parametrize("arch", sorted(PUBLISHED))
def test_the_benchmark_builds_the_published_shapes(arch, tmp_path, monkeypatch):
    import torch
    import transformers

    import bench_vlm_batching
    import tiny_vlm
    from videoreview.models.catalog import load_catalog

    counted = []
    monkeypatch.setattr(transformers.PreTrainedModel, "save_pretrained",
                        lambda model, *a, **k: counted.append(sum(p.numel() for p in model.parameters())))
    family, sizes = bench_vlm_batching.ARCHITECTURES[arch]
    with torch.device("meta"):
        tiny_vlm.build(family, tmp_path, sizes=sizes)
    assert counted == [load_catalog()[PUBLISHED[arch]].parameters]
