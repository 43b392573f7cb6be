"""The library's two catalogs as the rest of videoreview sees them: what a catalog answers
(``LibraryCatalog``, a Protocol) and which one is opened (``open_catalog``).

There are two: the local one in one SQLite file (catalog.py, ``Catalog``) and the team
one on PostgreSQL with pgvector (team/catalog.py, ``TeamCatalog``). What they do the same
way is written once (catalog_reads.py, catalog_base.py); each brings its own schema, its
text and vector search, and the small dialect hooks of catalog_base.py. The window, the
command line, the indexer, search and the cluster use only the methods below, so either
serves them. tests/test_library_protocol.py checks that both classes have every method
here with the same parameters.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, Self, runtime_checkable

import numpy as np

from ..paths import team_library_url
from ..records import Analysis
from .catalog import Catalog
from .catalog_reads import Video
from .units import Unit

if TYPE_CHECKING:
    from .vectors import VectorIndex


@runtime_checkable
class LibraryCatalog(Protocol):
    """An open catalog (a Catalog or a TeamCatalog)."""

    path: Path | str  # what messages name: the SQLite file, or the URL without its password
    readonly: bool
    vector_index: VectorIndex | None  # the FAISS index beside a local catalog; None where the server indexes

    # -- opening and the database ----------------------------------------------------------
    def __enter__(self) -> Self: ...
    def __exit__(self, *exc) -> None: ...
    def close(self) -> None: ...

    def query(self, sql: str, params: Sequence = ()) -> list[tuple]:
        """Rows of one read in the shared SQL (``?`` placeholders)."""

    def transaction(self) -> Iterator:
        """A context manager: one write transaction, its connection."""

    def get_meta(self, key: str) -> str | None: ...

    def set_meta(self, db, key: str, value: str) -> None:
        """Set ``key`` inside the transaction ``db``."""

    def generation(self) -> int:
        """Counts changes to the units: a search's caches record the one they were made at."""

    # -- videos ----------------------------------------------------------------------------
    def add_video(self, path: str | os.PathLike, content_hash: str | None = None) -> tuple[int, str]:
        """(id, "added" | "known" | "moved")."""

    def claim(self, video_id: int) -> bool:
        """Whether this process may analyse the video now."""

    def release(self, video_id: int) -> None: ...
    def set_status(self, video_id: int, status: str, error: str | None = None) -> None: ...
    def mark_missing(self) -> list[int]: ...
    def remove(self, video_id: int) -> bool: ...
    def needs_analysis(self, video_id: int) -> bool: ...
    def videos(self) -> list[Video]: ...
    def video(self, video_id: int) -> Video | None: ...
    def find(self, path: str | os.PathLike) -> Video | None: ...
    def indexed(self) -> list[tuple[int, str, str, float]]: ...

    # -- analyses and units ----------------------------------------------------------------
    def index_analysis(self, video_id: int, analysis: Analysis, embed=None, frames=None) -> int:
        """Replace what is indexed of the video with ``analysis``'s units; their number."""

    def analysis(self, video_id: int) -> Analysis | None: ...
    def keep_analysis(self, analysis: Analysis) -> None: ...
    def units(self, video_id: int) -> list[Unit]: ...
    def embedding_count(self) -> int: ...

    # -- search ----------------------------------------------------------------------------
    def units_with_word(self, word: str, cap: int) -> int: ...

    def text_ranks(self, words: list[str], limit: int, where: str, params: Sequence, common: list[str] = ()
                   ) -> list[int]: ...

    def vector_ranks(self, vector: np.ndarray, limit: int, allowed: set[int] | None) -> list[tuple[int, float]]: ...

    def frame_embeddings(self, model: str, where: str = "", params: Sequence = ()) -> tuple[np.ndarray, np.ndarray]:
        ...


def open_catalog(readonly: bool = False) -> LibraryCatalog:
    """The chosen library's catalog, open: the team library's on PostgreSQL when a
    postgresql:// URL is chosen (``--library``, ``VIDEOREVIEW_LIBRARY``, Settings >
    Library), else the local SQLite one."""
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
