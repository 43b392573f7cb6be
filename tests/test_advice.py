"""What better captions need (models/advice.py): the largest captions model that fits the
GPU's free memory, a model server without one, nothing once a model or server is chosen;
and the free memory read from what `videoreview models device` prints."""

from __future__ import annotations

from videoreview.engines.registry import CAPABILITIES
from videoreview.models.advice import BUILTIN, advise, cuda_free_gb, largest_fitting
from videoreview.models.catalog import ModelEntry, load_catalog


def model(name: str, gb: float | None, tasks=("captions",), parameters=None, size=None, builtin=False) -> ModelEntry:
    return ModelEntry(name, "qwen3-vl", tuple(tasks), "apache-2.0", builtin, min_memory_gb=gb,
                      parameters=parameters, size_bytes=size)


CATALOG = {m.name: m for m in (
    model("small", 3.0, size=1_800_000_000), model("medium", 11.0, size=8_875_719_344),
    model("twin-a", 6.0, parameters=2_100_000_000), model("twin-b", 6.0, parameters=2_200_000_000),
    model("no-estimate", None), model("search", 2.0, tasks=("image-text",)), model("huge", 20.0),
    model("builtin-one", 1.0, builtin=True))}


def test_the_largest_captions_model_that_fits():
    assert largest_fitting(CATALOG, 23.5).name == "huge"
    assert largest_fitting(CATALOG, 12.0).name == "medium"
    assert largest_fitting(CATALOG, 8.0).name == "twin-b"  # the same estimate: more parameters
    assert largest_fitting(CATALOG, 3.0).name == "small"  # fits exactly
    assert largest_fitting(CATALOG, 2.9) is None  # image-text models, builtins and no estimate never count


def test_advice_for_a_gpu_no_gpu_and_a_choice_made():
    advice = advise(BUILTIN, 12.0, CATALOG)
    assert advice.model.name == "medium"
    assert advice.text() == "medium fits this GPU (needs about 11 GB, 12.0 GB free); 8.88 GB to download"
    assert advice.command() == "videoreview models pull medium && videoreview models use medium --for captions"
    assert "download size not recorded" in advise(BUILTIN, 25.0, CATALOG).text()
    without = advise(BUILTIN, None, CATALOG)
    assert without.model is None and without.text().startswith("a model server (vLLM, Ollama, LM Studio)")
    assert "no CUDA GPU" in without.text() and without.command().startswith("videoreview models server add")
    assert "no catalog VLM fits this GPU's 1.0 GB free" in advise(BUILTIN, 1.0, CATALOG).text()
    for chosen in ("medium", "server:box", "/models/mine"):
        assert advise(chosen, 24.0, CATALOG) is None
    assert BUILTIN == CAPABILITIES["captions"].default


def test_the_shipped_catalog_offers_a_vlm_on_a_big_gpu():
    advice = advise(BUILTIN, 79.0, load_catalog())
    assert advice.model is not None and "captions" in advice.model.tasks and advice.model.min_memory_gb <= 79


def test_the_free_memory_from_models_device():
    listing = "chosen: auto\ncuda  23.5 GB free\ncpu   30.1 GB free\nruns on: boundaries cuda"
    assert cuda_free_gb(listing) == 23.5
    assert cuda_free_gb(listing.replace("auto", "cuda")) == 23.5
    assert cuda_free_gb(listing.replace("auto", "cpu")) is None  # the CPU chosen on a GPU machine
    assert cuda_free_gb("chosen: auto\ncpu   30.1 GB free") is None
    assert cuda_free_gb("chosen: auto\ncuda  ? GB free") is None
    assert cuda_free_gb("") is None


def test_the_listing_is_what_models_device_prints(home):
    from helpers import run
    from videoreview.engines.device import present

    listing = run("models", "device").stdout
    assert (cuda_free_gb(listing) is None) == ("cuda" not in present())
