"""Every capability is declared once (capabilities.py, docs/ARCHITECTURE.md "A new
capability"): the registry, the stages, the coarse look and the catalog read its row; its
engines and the tests' fake keep the protocol it names; its stages fill the Analysis
fields it names, and no other capability's; in the window it has a timeline track and an
overlay where it has one."""

import dataclasses
import importlib
import typing

import pytest

from videoreview import capabilities
from videoreview.capabilities import CAPABILITIES, resolve
from videoreview.engines import registry
from videoreview.models.catalog import TASKS
from videoreview.pipeline.stages import stage_class
from videoreview.pipeline.stages.base import Stage
from videoreview.records import Analysis

# Analysis fields no capability fills: the file's own, and the reviewer's.
NOT_A_CAPABILITYS = {"video", "content_hash", "engines", "devices", "schema_version", "plan", "caption_plan",
                     "identity_edits", "track_edits", "removed_boundaries", "notes", "deleted_notes"}


def members(protocol: type) -> set[str]:
    """What a Protocol class asks of an engine: its methods and annotated attributes, its bases' too."""
    return {name for base in protocol.__mro__ if base is not typing.Protocol and base is not object
            and getattr(base, "_is_protocol", False)
            for name in (*vars(base).get("__annotations__", {}), *vars(base))
            if not name.startswith("_")}


def test_the_catalog_takes_the_capabilities_as_tasks():
    assert tuple(registry.CAPABILITIES) == capabilities.KEYS
    assert set(capabilities.KEYS) | set(capabilities.PARTS) == TASKS


@pytest.mark.parametrize("key", capabilities.KEYS)
def test_each_names_a_protocol_its_engines_and_its_fake_keep(key):
    import fake_engines  # noqa: F401  registers the fakes

    row = CAPABILITIES[key]
    for named in filter(None, (row.protocol, row.model_protocol)):
        assert getattr(resolve(named), "_is_protocol", False), f"{key}: {named} is no typing.Protocol"
    protocol = resolve(row.protocol)
    for name in row.names:
        engine = registry.create(key, name, "cpu")  # made, not loaded: models load on first use
        # on the class or the instance's own attributes: a property asked would load the model
        missing = {m for m in members(protocol)
                   if engine is not None and not (hasattr(type(engine), m) or m in vars(engine))}
        assert not missing, f"{key} engine {name!r} lacks {sorted(missing)} of {protocol.__name__}"


def test_each_analysis_capability_has_a_stage_class_and_its_fields():
    fields = {f.name for f in dataclasses.fields(Analysis)}
    owned: dict[str, str] = {}
    for row in registry.analysis_capabilities():
        assert issubclass(stage_class(row), Stage), f"{row.key}: {row.stage} is no Stage"
        for name in row.fields:
            assert name in fields, f"{row.key} names {name!r}, no field of Analysis"
            assert name not in owned, f"{name!r} is both {owned[name]}'s and {row.key}'s"
            owned[name] = row.key
    owned |= {name: row.key for row in CAPABILITIES.values() for name in row.fields}
    assert fields - NOT_A_CAPABILITYS == set(owned), "every Analysis field is one capability's or the reviewer's"
    assert [c.key for c in registry.analysis_capabilities()][0] == "boundaries"  # tracks never cross a cut


def test_in_the_window_each_has_its_view_with_a_timeline_track_and_overlays_name_real_capabilities():
    from videoreview.gui.capabilities import module_name, views
    from videoreview.gui.timeline.tracks import FIXED, TRACKS
    from videoreview.gui.video.overlay_table import OVERLAYS

    found = views()
    assert [view.key for view in found] == [key for key in capabilities.KEYS if key in {v.key for v in found}]
    for view in found:  # each in its own module, named by its key, and its tracks say so
        assert importlib.import_module(module_name(view.key)).VIEW is view
        assert all(track.capability == view.key for track in view.tracks), view.key
    assert {c.key for c in registry.analysis_capabilities()} <= {view.key for view in found if view.tracks}
    assert {track.capability for track in TRACKS} - {None} == {view.key for view in found if view.tracks}
    assert len(TRACKS) == len(FIXED) + sum(len(view.tracks) for view in found)
    assert {row.capability for row in OVERLAYS} - {None} <= set(capabilities.KEYS)
    assert all(row.name == row.capability for row in OVERLAYS if row.capability)
    assert len({row.key for row in OVERLAYS}) == len({row.name for row in OVERLAYS}) == len(OVERLAYS)
