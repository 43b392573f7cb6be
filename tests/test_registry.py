"""The engine registry: one table for every capability, engines made once per process,
and no model loaded until a stage really runs."""

from __future__ import annotations

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
