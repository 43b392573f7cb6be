"""What the local catalog (catalog.py, SQLite) and the team one (team/catalog.py,
PostgreSQL) read the same way: their videos, metadata and units, in the SQL both speak
(``?`` placeholders; "end" quoted). Each catalog brings ``query``; what both write the
same way is in catalog_base.py."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import LibraryError
from .units import Unit

# A word that this many units or more have is common: ranking every unit with it took
# most of a search (up to 1.5 s at 1M units, benchmarks/bench_team_library.py). As in
# Lucene's CommonTermsQuery, the text ranking then leaves common words out where the query
# has rarer ones, and a query of common words alone finds the units with all of them,
# ranked among the newest this many. (The vector ranking reads the whole query either way.)
COMMON_WORD_UNITS = 5000


@dataclass(frozen=True)
class Video:
    id: int
    path: str
    content_hash: str | None
    status: str
    duration: float | None
    error: str | None
    identities: tuple[tuple[str, str | None], ...] = ()  # (id, name)


class CatalogReads:
    """The reads shared by both catalogs; a subclass provides ``query(sql, params)``."""

    def get_meta(self, key: str) -> str | None:
        rows = self.query("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def generation(self) -> int:
        """Counts changes to the units: a search's caches record the one they were made at."""
        return int(self.get_meta("generation") or 0)

    def needs_analysis(self, video_id: int) -> bool:
        """Whether the file changed (size or mtime) since it was indexed, or never was."""
        row = self.query("SELECT path, size_bytes, mtime_ns, analysed_at, status FROM videos WHERE id = ?",
                         (video_id,))
        if not row:
            return False
        path, size, mtime, analysed, status = row[0]
        if analysed is None or status in ("new", "analysing", "failed"):
            return True
        try:
            stat = os.stat(path)
        except OSError:
            return False
        return (stat.st_size, stat.st_mtime_ns) != (size, mtime)

    def videos(self) -> list[Video]:
        return self._videos("", ())

    def video(self, video_id: int) -> Video | None:
        return next(iter(self._videos("WHERE id = ?", (video_id,))), None)

    def find(self, path: str | os.PathLike) -> Video | None:
        """The video catalogued at ``path`` (symbolic links resolved), if any."""
        return next(iter(self._videos("WHERE path = ?", (os.path.realpath(path),))), None)

    def _videos(self, where: str, params: Sequence) -> list[Video]:
        rows = self.query(f"SELECT id, path, content_hash, status, duration, error FROM videos {where} ORDER BY id",
                          params)
        people: dict[int, list[tuple[str, str | None]]] = {}
        for vid, pid, name in self.query(f"SELECT video_id, pid, name FROM identities WHERE video_id IN "
                                         f"(SELECT id FROM videos {where}) ORDER BY video_id, pid", params):
            people.setdefault(vid, []).append((pid, name))
        return [Video(*row, identities=tuple(people.get(row[0], ()))) for row in rows]

    def indexed(self) -> list[tuple[int, str, str, float]]:
        """(video id, path, content hash, when indexed) of each video with an analysis indexed."""
        return self.query("SELECT v.id, v.path, a.content_hash, a.indexed_at FROM videos v "
                          "JOIN analyses a ON a.video_id = v.id WHERE v.status = 'done' ORDER BY v.id")

    def units(self, video_id: int) -> list[Unit]:
        rows = self.query('SELECT kind, start, "end", text, people FROM units WHERE video_id = ? ORDER BY start, id',
                          (video_id,))
        return [Unit(kind, start, end, text, tuple(people.split())) for kind, start, end, text, people in rows]

    def embedding_count(self) -> int:
        return self.query("SELECT count(*) FROM units WHERE embedding IS NOT NULL")[0][0]

    def frame_embeddings(self, model: str, where: str = "", params: Sequence = ()) -> tuple[np.ndarray, np.ndarray]:
        """(unit ids, frame vectors) of the units with a frame vector from ``model``;
        ``where``: more SQL over units ``u`` (search filters)."""
        return stacked(self.query(f"SELECT u.id, u.frame_embedding FROM units u WHERE u.frame_model = ?"
                                  f"{' AND ' + where if where else ''} ORDER BY u.id", [model, *params]))

    def _video_path(self, video_id: int) -> str:
        rows = self.query("SELECT path FROM videos WHERE id = ?", (video_id,))
        if not rows:
            raise LibraryError(self.path, f"no video with id {video_id}")
        return rows[0][0]


def stacked(rows: Sequence[tuple[int, bytes]]) -> tuple[np.ndarray, np.ndarray]:
    """(unit id, embedding blob) rows as (ids, (n, d) float32 vectors)."""
    if not rows:
        return np.zeros(0, np.int64), np.zeros((0, 0), np.float32)
    return np.array([r[0] for r in rows], np.int64), np.stack([np.frombuffer(r[1], np.float32) for r in rows])


def file_stat(path: str) -> tuple[int | None, int | None]:
    """A video file's size and mtime, as a catalog records them (None, None where it is gone)."""
    try:
        stat = os.stat(path)
    except OSError:
        return None, None
    return stat.st_size, stat.st_mtime_ns

