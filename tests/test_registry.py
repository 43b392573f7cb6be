"""The engine registry: one table for every capability, engines made once per process,
and no model loaded until a stage really runs."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from videoreview.engines import registry
from videoreview.errors import ModelError
from videoreview.pipeline import StageCache, analyze, build_stages


def test_builtins_that_are_no_engine_and_unknown_names():
    assert registry.create("summaries", "builtin") is None  # the builder writes the text itself
    assert registry.create("image-text", "none") is None  # frame search off
    assert registry.is_builtin("scoring", "builtin") and not registry.is_builtin("scoring", "/models/qwen")
    with pytest.raises(registry.UnknownEngine, match="no boundaries engine named 'nope'"):
        registry.create("boundaries", "nope")
    with pytest.raises(registry.UnknownEngine, match="no capability 'smell'"):
        registry.create("smell", "builtin")


def test_a_model_name_is_a_folder_checked_at_once(tmp_path):
    missing = tmp_path / "no model"
    for capability, name in (("captions", f"vlm:{missing}"), ("scoring", str(missing)), ("summaries", str(missing))):
        with pytest.raises(ModelError, match="no model"):
            registry.create(capability, name)


@pytest.mark.models
def test_engines_are_shared_and_load_their_models_only_to_compute(cuts_video, tmp_path):
    engines = {"boundaries": "builtin", "faces": "dlib-hog", "captions": "builtin"}
    cache = StageCache(tmp_path / "cache")
    analyze(cuts_video.path, engines, cache=cache)  # fills the cache (other tests' engines may be loaded)
    registry._INSTANCES.clear()  # as in a new process
    stages = build_stages(engines)
    assert [s.engine for s in stages] == [registry.create(c, n) for c, n in engines.items()]  # the same instances
    again = analyze(cuts_video.path, stages=stages, cache=cache)
    assert again.boundaries and again.captions
    boundaries, faces, captions = (s.engine for s in stages)
    assert boundaries._transnet is None and faces._landmarks is None and captions._extract is None


def test_the_table_gives_the_stages_their_order_and_defaults_and_takes_new_engines():
    from fake_engines import ENGINES
    from videoreview.pipeline.stages import DEFAULT_ENGINES

    order = [c.key for c in registry.analysis_capabilities()]
    assert order == ["boundaries", "faces", "expressions", "objects", "poses", "speech", "screen-text", "captions"]
    assert DEFAULT_ENGINES == {"boundaries": "builtin", "faces": "blazeface", "expressions": "none",
                               "objects": "nanodet", "poses": "movenet", "speech": "whisper-base",
                               "screen-text": "pp-ocrv6", "captions": "builtin"}
    # A capability left out or turned off has no stage; speakers come with speech and faces.
    assert [s.name for s in build_stages(ENGINES)] == ["boundaries", "faces", "expressions", "objects", "poses",
                                                       "speech", "speakers", "screen-text", "captions"]
    assert [s.name for s in build_stages({**ENGINES, "speech": "none", "objects": "none"})] == [
        "boundaries", "faces", "expressions", "poses", "screen-text", "captions"]
    assert [s.name for s in build_stages({"captions": "fake", "speech": "fake"})] == ["speech", "captions"]

    class Engine:
        name, version, device, device_note = "mine", "1", "cpu", None

        def release(self) -> None:
            pass

    registry.register("screen-text", "mine", lambda device: Engine())
    try:
        assert registry.is_builtin("screen-text", "mine") and isinstance(registry.create("screen-text", "mine"), Engine)
    finally:
        del registry.CAPABILITIES["screen-text"].builtins["mine"]


def test_every_stage_of_an_analysis_has_a_fake_engine():
    """Every capability an analysis runs has a ``fake`` engine, and fake_engines.ENGINES
    chooses it: the wiring tests (the pipeline, the window, the library, the command line)
    load none of the capabilities' models. A new capability fails here until it has one."""
    from fake_engines import ENGINES, FAKE

    for row in registry.analysis_capabilities():
        assert registry.is_builtin(row.key, FAKE), f"fake_engines.py registers no fake {row.key} engine"
        assert ENGINES.get(row.key) == FAKE, f"fake_engines.ENGINES does not choose the fake {row.key} engine"


def test_an_engine_module_that_cannot_be_imported_is_named():
    env = {**os.environ, registry.ENGINE_MODULES: "no_such_module"}
    proc = subprocess.run([sys.executable, "-c", "import videoreview.engines.registry"], capture_output=True,
                          text=True, env=env)
    assert proc.returncode == 1
    assert "VIDEOREVIEW_ENGINE_MODULES names 'no_such_module', which cannot be imported" in proc.stderr
