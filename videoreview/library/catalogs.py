"""Which catalog the library commands and the window open: the team library's on
PostgreSQL when a postgresql:// URL is chosen (``--library``, ``VIDEOREVIEW_LIBRARY``,
Settings > Library), else the local SQLite one. The two answer the same methods."""

from __future__ import annotations

from ..paths import team_library_url
from .catalog import Catalog


def open_catalog(readonly: bool = False):
    """The chosen library's catalog, open (a Catalog or a team.catalog.TeamCatalog)."""
    url = team_library_url()
    if url is None:
        return Catalog(readonly=readonly)
    from .team.catalog import TeamCatalog

    return TeamCatalog(url, readonly=readonly)


def describe() -> str:
    """The library in use, as ``library location`` prints it."""
    url = team_library_url()
    if url is None:
        from ..paths import library_location

        return str(library_location()[0])
    from .team.url import display

    return f"{display(url)} (a team library on PostgreSQL)"
