"""The full-size architectures the VLM benchmarks build (random weights) have exactly the
parameter counts the catalog records for the published models, so the figures they give
are for the real shapes. Built on torch's meta device: no memory."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

PUBLISHED = {"qwen3-vl-4b": "qwen3-vl-4b-instruct", "smolvlm2-2.2b": "smolvlm2-2.2b-instruct",
             "smolvlm2-256m": "smolvlm2-256m-video-instruct", "smolvlm2-500m": "smolvlm2-500m-video-instruct",
             "qwen3.5-0.8b": "qwen3.5-0.8b"}


def unbuilt(config) -> int:
    """Parameters a published checkpoint holds that transformers does not build: Qwen3.5's
    multi-token-prediction head (one full-attention decoder layer, a projection of the
    embedding and hidden state joined, 2h x h, and three norms of h), which generation
    here never uses; nothing for the others."""
    if config.model_type != "qwen3_5":
        return 0
    from transformers.models.qwen3_5.modeling_qwen3_5 import Qwen3_5DecoderLayer

    text = config.text_config
    layer = Qwen3_5DecoderLayer(text, text.layer_types.index("full_attention"))
    return sum(p.numel() for p in layer.parameters()) + 2 * text.hidden_size ** 2 + 3 * text.hidden_size


@pytest.mark.parametrize("arch", sorted(PUBLISHED))
def test_the_benchmark_builds_the_published_shapes(arch, tmp_path, monkeypatch):
    import torch
    import transformers

    import bench_vlm_batching
    import tiny_vlm
    from videoreview.models.catalog import load_catalog

    counted = []
    monkeypatch.setattr(transformers.PreTrainedModel, "save_pretrained",
                        lambda model, *a, **k: counted.append(sum(p.numel() for p in model.parameters())
                                                              + unbuilt(model.config)))
    family, sizes = bench_vlm_batching.ARCHITECTURES[arch]
    with torch.device("meta"):
        tiny_vlm.build(family, tmp_path, sizes=sizes)
    assert counted == [load_catalog()[PUBLISHED[arch]].parameters]


def test_the_shot_benchmark_builds_siglip2_at_its_published_size():
    import torch
    import transformers

    import bench_vlm_shot
    from videoreview.models.catalog import load_catalog

    with torch.device("meta"):
        model = transformers.SiglipModel(transformers.SiglipConfig(**bench_vlm_shot.SIGLIP2_BASE_256))
    assert sum(p.numel() for p in model.parameters()) == load_catalog()["siglip2-base-patch16-256"].parameters
