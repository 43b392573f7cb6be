"""What the local catalog (catalog.py, SQLite) and the team one (team/catalog.py,
PostgreSQL) do the same way: open and close, the meta table, adding, marking and removing
videos, and indexing an Analysis (its units with their people, notes and frame vectors).
The statements are written once, in ``?`` placeholders; what the two databases do
differently sits behind the small dialect hooks at the end of ``CatalogBase``, which
each catalog fills in (with ``query`` and ``transaction``, and its own schema)."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from typing import Self

import numpy as np

from ..records import Analysis
from .catalog_reads import CatalogReads, file_stat
from .units import Unit, units_of

STATUSES = ("new", "analysing", "done", "failed", "missing")


@dataclass(frozen=True)
class Prepared:
    """What an index_analysis writes, made before its transaction opens (the embedding
    and the frame decoding take long; no lock is held meanwhile)."""

    units: list[Unit]
    vectors: np.ndarray | None  # (units, d) text vectors, or None without an embedder
    frame_vectors: dict[int, bytes]  # unit position -> frame vector blob (caption units)
    frame_model: str | None
    path: str
    size: int | None
    mtime: int | None


class CatalogBase(CatalogReads):
    """The behaviour both catalogs share. A subclass opens ``self.db`` and brings
    ``query``, ``transaction`` and the dialect hooks."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    # -- meta ------------------------------------------------------------------------
    def set_meta(self, db, key: str, value: str) -> None:
        """Set ``key`` in the meta table, inside the transaction ``db``."""
        self._execute(db, "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET "
                          "value = excluded.value", (key, value))

    def _bump(self, db) -> None:
        """Count one more change to the units (generation), in one statement: two writers
        at once each count theirs."""
        self._execute(db, "INSERT INTO meta (key, value) VALUES ('generation', '1') ON CONFLICT (key) DO UPDATE "
                          "SET value = CAST(CAST(meta.value AS BIGINT) + 1 AS TEXT)")

    # -- videos ----------------------------------------------------------------------
    def add_video(self, path: str | os.PathLike, content_hash: str | None = None) -> tuple[int, str]:
        """Catalogue ``path`` (a file); returns (id, what happened): "added", "known"
        (same path), "moved" (a known content hash at a new path: the row follows it).
        Two processes adding the same path at once get one row."""
        real = os.path.realpath(path)
        stat = os.stat(real)
        with self.transaction() as db:
            added = self._execute(db, "INSERT INTO videos (path, content_hash, size_bytes, mtime_ns, added_at) "
                                      "VALUES (?, ?, ?, ?, ?) ON CONFLICT (path) DO NOTHING",
                                  (real, content_hash, stat.st_size, stat.st_mtime_ns, time.time())).rowcount
            video_id = self._execute(db, "SELECT id FROM videos WHERE path = ?", (real,)).fetchone()[0]
            if not added:
                self._execute(db, "UPDATE videos SET status = CASE WHEN status = 'missing' THEN 'new' ELSE status "
                                  "END WHERE id = ?", (video_id,))
                return video_id, "known"
            moved = self._follow_move(db, video_id, real, stat.st_mtime_ns, content_hash)
            return (moved, "moved") if moved is not None else (video_id, "added")

    def _follow_move(self, db, video_id: int, real: str, mtime: int, content_hash: str | None) -> int | None:
        """Where a video of the same content hash is no longer at its path, the file moved:
        its row follows it (the one just made for ``real`` goes). That row's id, or None."""
        if content_hash is None:
            return None
        rows = self._execute(db, "SELECT id, path FROM videos WHERE content_hash = ? AND id != ? ORDER BY id",
                             (content_hash, video_id)).fetchall()
        gone = [row[0] for row in rows if not os.path.exists(row[1])]
        if not gone:
            return None
        self._execute(db, "DELETE FROM videos WHERE id = ?", (video_id,))
        self._execute(db, "UPDATE videos SET path = ?, mtime_ns = ?, status = CASE WHEN status = 'missing' THEN "
                          "(CASE WHEN analysed_at IS NULL THEN 'new' ELSE 'done' END) ELSE status END WHERE id = ?",
                      (real, mtime, gone[0]))
        return gone[0]

    def set_status(self, video_id: int, status: str, error: str | None = None) -> None:
        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
        with self.transaction() as db:
            self._execute(db, "UPDATE videos SET status = ?, error = ? WHERE id = ?", (status, error, video_id))

    def mark_missing(self) -> list[int]:
        """Mark videos whose file has gone as missing (their units stay searchable)."""
        rows = self.query("SELECT id, path FROM videos WHERE status != 'missing'")
        gone = [vid for vid, path in rows if not os.path.exists(path)]
        if gone:
            with self.transaction() as db:
                self._execute_many(db, "UPDATE videos SET status = 'missing' WHERE id = ?", [(v,) for v in gone])
        return gone

    def remove(self, video_id: int) -> bool:
        """Forget a video and everything indexed of it (not the file). False if unknown."""
        with self.transaction() as db:
            gone = self._execute(db, "DELETE FROM videos WHERE id = ?", (video_id,)).rowcount
            if gone:
                self._bump(db)
        return bool(gone)

    # -- analyses and units ------------------------------------------------------------
    def index_analysis(self, video_id: int, analysis: Analysis, embed=None, frames=None) -> int:
        """Replace what is indexed of the video with ``analysis``'s units, in one
        transaction; ``embed(texts) -> (n, d) float32`` gives their vectors, and
        ``frames`` (a library.frames.FrameEmbedder) the caption units' frame vectors.
        Returns the number of units."""
        prepared = self._prepare(video_id, analysis, embed, frames)
        with self.transaction() as db:
            self._replace_video(db, video_id, analysis, prepared)
        return len(prepared.units)

    def _prepare(self, video_id: int, analysis: Analysis, embed, frames) -> Prepared:
        units = units_of(analysis)
        vectors = embed([u.text for u in units]) if embed is not None and units else None
        frame_vectors = self._frame_vectors(video_id, analysis, units, frames) if frames is not None else {}
        path = self._video_path(video_id)
        return Prepared(units, vectors, frame_vectors, frames.model if frames is not None else None, path,
                        *file_stat(path))

    def _frame_vectors(self, video_id: int, analysis: Analysis, units, frames) -> dict[int, bytes]:
        """Frame vectors (as blobs) by unit position for the caption units: those already
        made by the same model at the same time are kept (an edited caption's frame has not
        changed), the rest decoded and embedded."""
        old = {round(t, 3): bytes(v) for t, v in self.query(
            "SELECT start, frame_embedding FROM units WHERE video_id = ? AND kind = 'caption' AND frame_model = ?",
            (video_id, frames.model))}
        wanted = {n: round(u.start, 3) for n, u in enumerate(units) if u.kind == "caption"}
        new = sorted({t for t in wanted.values() if t not in old})
        if new:
            made = frames.embed_frames(analysis, new)
            if made is not None:
                old.update((t, vector_blob(v)) for t, v in zip(new, made))
        return {n: old[t] for n, t in wanted.items() if t in old}

    def _replace_video(self, db, video_id: int, analysis: Analysis, prepared: Prepared) -> None:
        """The video's row, analysis, identities and units as ``analysis`` has them, inside
        the transaction ``db``."""
        info = analysis.video
        self._execute(db, "DELETE FROM units WHERE video_id = ?", (video_id,))
        self._execute(db, "DELETE FROM identities WHERE video_id = ?", (video_id,))
        self._execute(db, "UPDATE videos SET content_hash = ?, duration = ?, fps = ?, width = ?, height = ?, "
                          "size_bytes = COALESCE(?, size_bytes), mtime_ns = COALESCE(?, mtime_ns), status = 'done', "
                          "error = NULL, analysed_at = ? WHERE id = ?",
                      (analysis.content_hash, info.duration, info.fps, info.width, info.height, prepared.size,
                       prepared.mtime, time.time(), video_id))
        self._write_analysis_row(db, video_id, analysis, json.dumps(analysis.engines))
        self._execute_many(db, "INSERT INTO identities (video_id, pid, name) VALUES (?, ?, ?)",
                           [(video_id, i.id, i.name) for i in analysis.identities])
        self._write_units(db, video_id, prepared)
        self._bump(db)

    def _write_units(self, db, video_id: int, prepared: Prepared) -> None:
        units, vectors = prepared.units, prepared.vectors
        rows = []
        for n, unit in enumerate(units):
            frame = prepared.frame_vectors.get(n)
            rows.append((video_id, unit.kind, unit.start, unit.end, unit.text, " ".join(unit.people),
                         self._vector_value(vectors[n]) if vectors is not None else None, frame,
                         prepared.frame_model if frame is not None else None))
        ids = self._insert_units(db, video_id, rows)
        self._execute_many(db, "INSERT INTO unit_people (unit_id, video_id, pid) VALUES (?, ?, ?)",
                           [(uid, video_id, pid) for uid, unit in zip(ids, units) for pid in unit.people])
        self._execute_many(db, "INSERT INTO unit_notes (unit_id, note_id, frame, last_frame, tag, status, author) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?)",
                           [(uid, u.note.id, u.note.frame, u.note.last_frame, u.note.tag, u.note.status,
                             u.note.author) for uid, u in zip(ids, units) if u.note is not None])

    # -- dialect hooks: what each database does its own way -----------------------------
    def _sql(self, sql: str) -> str:
        """``sql`` (``?`` placeholders) in the driver's placeholders."""
        raise NotImplementedError

    def _execute(self, db, sql: str, params=()):
        """One statement inside the transaction ``db``; its cursor."""
        return db.execute(self._sql(sql), params)

    def _execute_many(self, db, sql: str, rows: list[tuple]) -> None:
        """One statement for each of ``rows``, inside the transaction ``db``."""
        raise NotImplementedError

    def _vector_value(self, vector: np.ndarray):
        """A unit's text vector as its column holds it."""
        raise NotImplementedError

    def _write_analysis_row(self, db, video_id: int, analysis: Analysis, engines: str) -> None:
        """The video's row in ``analyses`` (made or replaced)."""
        raise NotImplementedError

    def _insert_units(self, db, video_id: int, rows: list[tuple]) -> list[int]:
        """Insert the unit rows (video_id, kind, start, end, text, people, embedding,
        frame_embedding, frame_model); their ids, in the rows' order."""
        raise NotImplementedError


def vector_blob(vector: np.ndarray) -> bytes:
    """A vector as the float32 bytes a catalog stores (``stacked`` reads them back)."""
    return vector.astype(np.float32).tobytes()
