"""Both catalogs answer the one protocol the rest of videoreview uses (library/catalogs.py):
every method with the same parameters, so a change to one that the other lacks fails
here, not in a team member's window; and open_catalog opens the one chosen."""

from __future__ import annotations

import inspect

import pytest

from videoreview.library.catalog import Catalog
from videoreview.library.catalogs import LibraryCatalog, describe, open_catalog
from videoreview.library.team.catalog import TeamCatalog

CATALOGS = (Catalog, TeamCatalog)


def protocol_methods() -> dict[str, inspect.Signature]:
    names = [name for name, value in vars(LibraryCatalog).items()
             if callable(value) and (not name.startswith("_") or name in ("__enter__", "__exit__"))]
    return {name: inspect.signature(getattr(LibraryCatalog, name)) for name in names}


def test_the_protocol_lists_what_the_rest_of_videoreview_calls():
    methods = protocol_methods()
    for name in ("add_video", "index_analysis", "query", "set_meta", "text_ranks", "vector_ranks", "claim",
                 "analysis", "keep_analysis", "frame_embeddings", "close"):
        assert name in methods
    assert {"path", "readonly", "vector_index"} <= set(LibraryCatalog.__annotations__)


@pytest.mark.parametrize("catalog_class", CATALOGS, ids=lambda c: c.__name__)
def test_each_catalog_has_every_method_of_the_protocol_with_the_same_parameters(catalog_class):
    for name, wanted in protocol_methods().items():
        method = getattr(catalog_class, name, None)
        assert callable(method), f"{catalog_class.__name__} has no {name}"
        got = inspect.signature(method)
        assert list(got.parameters.values()) == list(wanted.parameters.values()), (
            f"{catalog_class.__name__}.{name}{got} is not the protocol's {name}{wanted}")
        assert got.return_annotation == wanted.return_annotation, f"{catalog_class.__name__}.{name} returns otherwise"
    assert hasattr(catalog_class, "vector_index")


def test_the_shared_behaviour_is_written_once():
    for name in ("set_meta", "add_video", "set_status", "mark_missing", "remove", "_frame_vectors", "_bump"):
        assert name not in vars(Catalog) and name not in vars(TeamCatalog), f"{name} is written twice"
    assert not hasattr(TeamCatalog, "_set_meta")


def test_open_catalog_opens_the_local_catalog_unless_a_team_url_is_chosen(fresh_home, monkeypatch, team_url):
    monkeypatch.delenv("VIDEOREVIEW_LIBRARY", raising=False)
    with open_catalog() as catalog:
        assert isinstance(catalog, Catalog) and isinstance(catalog, LibraryCatalog)
        assert describe() == str(catalog.path.parent)
    monkeypatch.setenv("VIDEOREVIEW_LIBRARY", team_url)
    with open_catalog(readonly=True) as catalog:
        assert isinstance(catalog, TeamCatalog) and isinstance(catalog, LibraryCatalog)
        assert catalog.readonly and catalog.vector_index is None
        assert describe().endswith("(a team library on PostgreSQL)")
