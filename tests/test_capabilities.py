"""Every capability has its parts (docs/ARCHITECTURE.md, "A new capability"): a row in
the registry for each key of capabilities.py, a protocol module its typed create()
returns, the stages that run it in an analysis, and in the window a timeline track and
an overlay where it has one."""

import importlib
import pkgutil
import re
import typing

from videoreview import capabilities
from videoreview.engines import registry
from videoreview.models.catalog import TASKS
from videoreview.pipeline.stages import STAGE_MAKERS


def protocols() -> dict[str, type]:
    """The engine protocols by class name, from every engines/*/protocol.py."""
    import videoreview.engines as engines

    found = {}
    for module in pkgutil.walk_packages(engines.__path__, "videoreview.engines."):
        if module.name.endswith(".protocol"):
            for name, value in vars(importlib.import_module(module.name)).items():
                if isinstance(value, type) and getattr(value, "_is_protocol", False) and name != "Protocol":
                    found[name] = value
    return found


def test_a_row_per_capability_and_the_catalog_takes_their_tasks():
    assert tuple(registry.CAPABILITIES) == capabilities.KEYS
    assert set(capabilities.KEYS) | set(capabilities.PARTS) == TASKS


def test_each_capability_has_a_typed_create_returning_its_protocol():
    known = protocols()
    returns: dict[str, set[str]] = {}
    for overload in typing.get_overloads(registry.create):
        keys = re.findall(r"['\"]([\w-]+)['\"]", overload.__annotations__["key"])
        for key in keys:
            returns[key] = set(re.findall(r"\w+", overload.__annotations__["return"])) - {"None", "Any"}
    for key in capabilities.KEYS:
        assert returns.get(key), f"create() has no overload for {key!r}"
        assert returns[key] <= set(known), f"{key}: {returns[key]} is no engines/*/protocol.py class"


def test_each_capability_an_analysis_runs_has_its_stage_maker():
    analysed = {c.key for c in registry.analysis_capabilities()}
    assert analysed == set(STAGE_MAKERS)
    assert [c.key for c in registry.analysis_capabilities()][0] == "boundaries"  # tracks never cross a cut


def test_in_the_window_each_has_a_timeline_track_and_overlays_name_real_capabilities():
    from videoreview.gui.timeline.tracks import TRACKS
    from videoreview.gui.video.overlay_table import OVERLAYS

    shown = {track.capability for track in TRACKS}
    assert {c.key for c in registry.analysis_capabilities()} <= shown
    assert {row.capability for row in OVERLAYS} - {None} <= set(capabilities.KEYS)
    assert len({row.key for row in OVERLAYS}) == len({row.name for row in OVERLAYS}) == len(OVERLAYS)
