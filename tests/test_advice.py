"""What better captions need (models/advice.py): on a GPU the largest captions model that
fits its free memory; on a CPU the largest whose cost per shot, scaled to the cores, keeps
the analysis within the video's length and whose memory fits (the fastest where none keeps
up; a model server, saying why, where none fits the memory); SigLIP 2 beside it where both
fit; nothing once a model or server is chosen; and the free memory read from what
`videoreview models device` prints."""

from __future__ import annotations

import os

from videoreview.engines.registry import CAPABILITIES
from videoreview.models.advice import (
    BUILTIN,
    MEAN_SHOT_SECONDS,
    NAMER,
    SHOT_BUDGET_SECONDS,
    VLM_SHARE,
    Machine,
    advise,
    cpu_free_gb,
    cuda_free_gb,
    download_size,
    fitting_on_cpu,
    largest_fitting,
    usable_cores,
)
from videoreview.models.catalog import ModelEntry, load_catalog


def model(name: str, gb: float | None, tasks=("captions",), parameters=None, size=None, builtin=False,
          shot=None, approx=None) -> ModelEntry:
    return ModelEntry(name, "qwen3-vl", tuple(tasks), "apache-2.0", builtin, min_memory_gb=gb,
                      parameters=parameters, size_bytes=size, cpu_shot_seconds=shot, approx_size_gb=approx)


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
    assert advice.text() == ("medium fits this GPU (needs about 11 GB, 12.0 GB free); 8.88 GB to download, "
                             "licence apache-2.0")
    assert advice.command() == "videoreview models pull medium && videoreview models use medium --for captions"
    assert advice.line() == (f"{advice.text()}. Take it: {advice.command()}. Or a model server (vLLM, Ollama, "
                             f"LM Studio): videoreview models server add NAME URL --model M")
    assert "download size not recorded" in advise(BUILTIN, 25.0, CATALOG).text()
    without = advise(BUILTIN, None, CATALOG)  # no GPU, and the machine not known
    assert without.model is None and without.text().startswith("a model server (vLLM, Ollama, LM Studio)")
    assert "no CUDA GPU" in without.text() and without.command().startswith("videoreview models server add")
    assert "no catalog VLM fits this GPU's 1.0 GB free" in advise(BUILTIN, 1.0, CATALOG).text()
    for chosen in ("medium", "server:box", "/models/mine"):
        assert advise(chosen, 24.0, CATALOG) is None
    assert BUILTIN == CAPABILITIES["captions"].default


# A CPU's catalog: seconds a shot on 2 cores, memory in GB; SigLIP 2 beside them.
SIGLIP2 = model(NAMER, 2.0, tasks=("image-text",), size=1_500_985_224)
CPU_CATALOG = {m.name: m for m in (
    model("tiny", 1.5, shot=2.5, approx=1.03), model("mid", 2.5, shot=5.0, size=2_030_000_000),
    model("big", 3.0, shot=10.0, size=1_746_942_600), model("unmeasured", 1.0),  # no cost per shot: never on a CPU
    model("gpu-only", 20.0), SIGLIP2)}


def test_on_a_cpu_the_cores_and_the_memory_decide():
    assert SHOT_BUDGET_SECONDS == MEAN_SHOT_SECONDS * VLM_SHARE
    assert fitting_on_cpu(CPU_CATALOG, 2, 30.0).name == "tiny"  # 2.5 s: within the budget (2.7 s)
    assert fitting_on_cpu(CPU_CATALOG, 4, 30.0).name == "mid"  # 5.0 s on 2 cores is 2.5 s on 4; big 5.0 s
    assert fitting_on_cpu(CPU_CATALOG, 8, 30.0).name == "big"  # 2.5 s on 8 cores
    assert fitting_on_cpu(CPU_CATALOG, 8, 2.9).name == "mid"  # big's 3 GB does not fit
    assert fitting_on_cpu(CPU_CATALOG, 8, None).name == "big"  # memory unknown: not weighed
    assert fitting_on_cpu(CPU_CATALOG, 1, 30.0).name == "tiny"  # none keeps up on 1 core: the fastest
    assert fitting_on_cpu(CPU_CATALOG, 2, 1.4) is None
    at_the_budget = {"edge": model("edge", 2.0, shot=SHOT_BUDGET_SECONDS)}
    assert fitting_on_cpu({**CPU_CATALOG, **at_the_budget}, 2, 30.0).name == "edge"  # exactly the budget fits


def test_the_cpu_advice_names_the_vlm_and_siglip2_with_sizes_and_licences():
    advice = advise(BUILTIN, None, CPU_CATALOG, Machine(2, 30.0))
    assert advice.model.name == "tiny" and advice.namer is SIGLIP2
    assert advice.text() == ("tiny captions a shot in about 2.5 s on these 2 cores (needs about 1.5 GB, 30.0 GB "
                             "free); about 1.0 GB to download, licence apache-2.0; and siglip2-base-patch16-256 "
                             "names what is seen (1.50 GB to download, licence apache-2.0)")
    assert advice.command() == ("videoreview models pull tiny && videoreview models pull siglip2-base-patch16-256 && "
                                "videoreview models use tiny --for captions && "
                                "videoreview models use siglip2-base-patch16-256 --for image-text")
    assert advice.line().endswith("Or a model server (vLLM, Ollama, LM Studio): "
                                  "videoreview models server add NAME URL --model M")
    assert [(m.name, key) for m, key in advice.choices()] == [("tiny", "captions"), (NAMER, "image-text")]
    slow = advise(BUILTIN, None, CPU_CATALOG, Machine(1, 30.0))
    assert slow.model.name == "tiny" and ("about 5.0 s on these 1 cores; in the 50% of a video's length it is "
                                          "given, six frames of about one shot in 2, the others keeping the "
                                          "builtin captions" in slow.text())
    unknown = advise(BUILTIN, None, CPU_CATALOG, Machine(8, None))
    assert unknown.model.name == "big" and unknown.namer is SIGLIP2
    assert "(needs about 3 GB, the free memory could not be read here)" in unknown.text()


def test_siglip2_only_where_both_fit_and_no_image_text_model_is_chosen():
    assert advise(BUILTIN, None, CPU_CATALOG, Machine(2, 3.5)).namer is SIGLIP2  # 1.5 + 2.0 GB
    tight = advise(BUILTIN, None, CPU_CATALOG, Machine(2, 3.4))
    assert tight.model.name == "tiny" and tight.namer is None and "siglip" not in tight.text() + tight.command()
    chosen = advise(BUILTIN, None, CPU_CATALOG, Machine(2, 30.0), image_text="siglip-base-patch16-224")
    assert chosen.namer is None and [key for _m, key in chosen.choices()] == ["captions"]
    on_a_gpu = {**CATALOG, NAMER: SIGLIP2}
    assert advise(BUILTIN, 22.0, on_a_gpu).namer is SIGLIP2  # huge (20 GB) and SigLIP 2 (2 GB)
    assert advise(BUILTIN, 21.0, on_a_gpu).model.name == "huge" and advise(BUILTIN, 21.0, on_a_gpu).namer is None
    assert advise(BUILTIN, 1.0, on_a_gpu).namer is None  # no VLM: a server, nothing beside it


def test_too_little_memory_says_so_and_why():
    advice = advise(BUILTIN, None, CPU_CATALOG, Machine(4, 1.1))
    assert advice.model is None and advice.namer is None
    assert advice.text() == ("a model server (vLLM, Ollama, LM Studio), as no catalog VLM fits this machine's "
                             "memory (tiny needs about 1.5 GB, 1.1 GB free)")
    assert advice.line() == f"{advice.text()}: videoreview models server add NAME URL --model M"
    unmeasured = advise(BUILTIN, None, {"u": model("u", 1.0)}, Machine(2, 30.0))
    assert unmeasured.model is None and "no catalog VLM has a measured cost per shot on a CPU" in unmeasured.text()


def test_download_sizes_exact_rounded_or_not_recorded():
    assert download_size(SIGLIP2) == "1.50 GB to download"
    assert download_size(model("m", 1.0, size=52_000_000)) == "52 MB to download"
    assert download_size(CPU_CATALOG["tiny"]) == "about 1.0 GB to download"
    assert download_size(model("m", 1.0)) == "download size not recorded"


def test_the_cores_are_those_this_process_may_use():
    cores = usable_cores()
    assert 1 <= cores <= os.cpu_count()
    if hasattr(os, "sched_getaffinity"):
        assert cores == len(os.sched_getaffinity(0))


def test_the_shipped_catalog_offers_a_small_vlm_and_siglip2_on_a_cpu():
    catalog = load_catalog()
    measured = {e.name for e in catalog.values() if e.cpu_shot_seconds is not None}
    assert {"smolvlm2-256m-video-instruct", "smolvlm2-500m-video-instruct", "qwen3.5-0.8b"} <= measured
    for cores in (1, 2, 4, 16):
        advice = advise(BUILTIN, None, catalog, Machine(cores, 30.0))
        assert advice.model.name in measured and advice.namer.name == NAMER
        assert "to download" in advice.text() and "not recorded" not in advice.text()
    assert advise(BUILTIN, None, catalog, Machine(2, 0.5)).model is None


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
    assert cpu_free_gb(listing) == 30.1 and cpu_free_gb("chosen: auto\ncpu   ? GB free") is None


def test_the_listing_is_what_models_device_prints(home):
    from helpers import run
    from videoreview.engines.device import present

    listing = run("models", "device").stdout
    assert (cuda_free_gb(listing) is None) == ("cuda" not in present())
