"""The team catalog: the library's tables on PostgreSQL with pgvector, for several
reviewers and the cluster at once (library/catalog.py is the same catalog in one SQLite
file; both answer the same methods, which is all the rest of the library uses).

Where SQLite has FTS5, PostgreSQL has a generated ``tsvector`` column with a GIN index
(English stemming, ranked by ``ts_rank``); where the local library keeps a FAISS index
beside its file, the units' text vectors are a pgvector column with an HNSW index (made
when the first vectors arrive, as their dimension is known then). Each video's Analysis is
kept whole (JSONB), so any member's machine can open it. The schema is versioned in
``schema_version`` and brought up to date by the migrations below in one transaction,
under an advisory lock, so two machines starting at once migrate once; a database from a
newer videoreview is refused, never changed. The server must be PostgreSQL 14 or newer
with the ``vector`` extension.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from ...errors import LibraryError
from ...notes.changes import merge_copies
from ...records import Analysis
from ..catalog import STATUSES
from ..catalog_reads import COMMON_WORD_UNITS, CatalogReads, file_stat
from ..units import units_of
from .schema import MIGRATIONS, SCHEMA_VERSION
from .url import connect, display

MIN_SERVER = 140000  # PostgreSQL 14
MERGE_TRIES = 5  # a writer that keeps losing the race to others gives up after this
CHANNEL = "videoreview_library"  # NOTIFY's channel: a video's analysis was written (changes.py)
MIGRATION_LOCK = 46_0001  # pg_advisory_xact_lock key: one migration at a time
INDEX_LOCK = 46_0003  # making the vector index: one writer does it
CLAIM_LOCKS = 46_0002  # the first key of a video's claim (pg_try_advisory_lock(CLAIM_LOCKS, video id))


class TeamCatalog(CatalogReads):
    """An open team catalog at ``url`` (postgresql://...). Use as a context manager, or
    call ``close``."""

    vector_index = None  # (the vectors are indexed on the server)

    def __init__(self, url: str, readonly: bool = False):
        self.url, self.readonly = url, readonly
        self.path = display(url)  # what messages name: the URL without its password
        self.db = connect(url)
        try:
            self._check_server()
            self._migrate()
            if readonly:  # a search or a listing: the server refuses any write on this connection
                self.db.execute("SET default_transaction_read_only = on")
        except BaseException:
            self.db.close()
            raise

    def __enter__(self) -> TeamCatalog:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    # -- schema ----------------------------------------------------------------------
    def _check_server(self) -> None:
        version = self.db.info.server_version
        if version < MIN_SERVER:
            raise LibraryError(self.path, f"is PostgreSQL {version // 10000}; the team library needs 14 or newer")
        if not self.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"):
            raise LibraryError(self.path, "has no pgvector extension (the 'vector' extension); install pgvector "
                                          "on the server, or use scripts/postgres")

    def _version(self, db) -> int | None:
        if db.execute("SELECT to_regclass('schema_version')").fetchone()[0] is None:
            return None
        row = db.execute("SELECT version FROM schema_version").fetchone()
        return row[0] if row else None

    def _migrate(self) -> None:
        with self.transaction() as db:  # up to date: nothing to create (a reviewer's role may not create)
            if self._version(db) == SCHEMA_VERSION:
                return
        with self.transaction() as db:
            db.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            db.execute("CREATE EXTENSION IF NOT EXISTS vector")
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)")
            row = db.execute("SELECT version FROM schema_version").fetchone()
            version = row[0] if row else 0
            if version > SCHEMA_VERSION:
                raise LibraryError(self.path, f"was written by a newer videoreview (library schema {version}; this "
                                              f"version knows up to {SCHEMA_VERSION}); it is left as it is")
            for script in MIGRATIONS[version:]:
                db.execute(script)
            if row is None:
                db.execute("INSERT INTO schema_version (version) VALUES (%s)", (SCHEMA_VERSION,))
            elif version < SCHEMA_VERSION:
                db.execute("UPDATE schema_version SET version = %s", (SCHEMA_VERSION,))

    @contextmanager
    def transaction(self) -> Iterator:
        """One transaction; rolled back on any error, which is reported as a LibraryError."""
        import psycopg

        try:
            with self.db.transaction():
                yield self.db
        except psycopg.Error as exc:
            raise _library_error(self.path, exc) from None

    def query(self, sql: str, params: Sequence = ()) -> list[tuple]:
        """A read in the catalogs' shared SQL (``?`` placeholders, as SQLite's)."""
        import psycopg

        try:
            with self.db.transaction():
                cursor = self.db.execute(sql.replace("%", "%%").replace("?", "%s"), list(params))
                return cursor.fetchall() if cursor.description else []
        except psycopg.Error as exc:
            raise _library_error(self.path, exc) from None

    # -- meta ------------------------------------------------------------------------
    def _set_meta(self, db, key: str, value: str) -> None:
        db.execute("INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = "
                   "excluded.value", (key, value))

    def _bump(self, db) -> None:
        db.execute("INSERT INTO meta (key, value) VALUES ('generation', '1') ON CONFLICT (key) DO UPDATE SET "
                   "value = (meta.value::bigint + 1)::text")

    # -- videos ----------------------------------------------------------------------
    def add_video(self, path: str | os.PathLike, content_hash: str | None = None) -> tuple[int, str]:
        """As Catalog.add_video: (id, "added" | "known" | "moved"). Two machines adding the
        same path at once get one row."""
        real = os.path.realpath(path)
        stat = os.stat(real)
        with self.transaction() as db:
            row = db.execute("INSERT INTO videos (path, content_hash, size_bytes, mtime_ns, added_at) "
                             "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (path) DO NOTHING RETURNING id",
                             (real, content_hash, stat.st_size, stat.st_mtime_ns, time.time())).fetchone()
            if row is None:
                known = db.execute("UPDATE videos SET status = CASE WHEN status = 'missing' THEN 'new' ELSE status "
                                   "END WHERE path = %s RETURNING id", (real,)).fetchone()
                return known[0], "known"
            if content_hash is not None:
                gone = [r for r in db.execute("SELECT id, path FROM videos WHERE content_hash = %s AND id != %s "
                                              "ORDER BY id", (content_hash, row[0])).fetchall()
                        if not os.path.exists(r[1])]
                if gone:  # the file moved: its row follows it (the one just made goes)
                    db.execute("DELETE FROM videos WHERE id = %s", (row[0],))
                    db.execute("UPDATE videos SET path = %s, mtime_ns = %s, status = CASE WHEN status = 'missing' "
                               "THEN (CASE WHEN analysed_at IS NULL THEN 'new' ELSE 'done' END) ELSE status END "
                               "WHERE id = %s", (real, stat.st_mtime_ns, gone[0][0]))
                    return gone[0][0], "moved"
            return row[0], "added"

    def claim(self, video_id: int) -> bool:
        """Whether this process may analyse the video now: False while another machine's
        process holds it. The claim is a session advisory lock, so a process that dies
        lets go of it with its connection."""
        return bool(self.query("SELECT pg_try_advisory_lock(?, ?)", (CLAIM_LOCKS, video_id))[0][0])

    def release(self, video_id: int) -> None:
        self.query("SELECT pg_advisory_unlock(?, ?)", (CLAIM_LOCKS, video_id))

    def set_status(self, video_id: int, status: str, error: str | None = None) -> None:
        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
        with self.transaction() as db:
            db.execute("UPDATE videos SET status = %s, error = %s WHERE id = %s", (status, error, video_id))

    def mark_missing(self) -> list[int]:
        rows = self.query("SELECT id, path FROM videos WHERE status != 'missing'")
        gone = [vid for vid, path in rows if not os.path.exists(path)]
        if gone:
            with self.transaction() as db:
                db.execute("UPDATE videos SET status = 'missing' WHERE id = ANY(%s)", (gone,))
        return gone

    def remove(self, video_id: int) -> bool:
        with self.transaction() as db:
            gone = db.execute("DELETE FROM videos WHERE id = %s", (video_id,)).rowcount
            if gone:
                self._bump(db)
        return bool(gone)

    # -- analyses and units ------------------------------------------------------------
    def index_analysis(self, video_id: int, analysis: Analysis, embed=None, frames=None) -> int:
        """As Catalog.index_analysis, and the Analysis kept whole for any member to open.
        The notes another reviewer wrote meanwhile are merged in, not lost (of two edits of
        one note the later is kept, and note_history keeps both; a note deleted by either
        stays deleted); a writer that raced another merges again. Members listening
        (changes.py) hear of it at the commit."""
        analysis = without_nul(analysis)
        for _ in range(MERGE_TRIES):
            stored, revision = self._stored(video_id)
            merged = merge_copies(analysis, stored) if stored is not None else analysis
            try:
                return self._write(video_id, merged, revision, (analysis, merged), embed, frames)
            except _Raced:
                continue
        raise LibraryError(self.path, f"video {video_id} was changed by others {MERGE_TRIES} times while this "
                                      "was indexed; try again")

    def _stored(self, video_id: int) -> tuple[Analysis | None, int]:
        rows = self.query("SELECT analysis, revision FROM analyses WHERE video_id = ?", (video_id,))
        if not rows:
            return None, 0
        return (Analysis.from_dict(rows[0][0]) if rows[0][0] is not None else None), rows[0][1]

    def _write(self, video_id: int, analysis: Analysis, revision: int, versions, embed, frames) -> int:
        units = units_of(analysis)
        vectors = embed([u.text for u in units]) if embed is not None and units else None
        frame_vectors = self._frame_vectors(video_id, analysis, units, frames) if frames is not None else {}
        frame_model = frames.model if frames is not None else None
        info = analysis.video
        path = self._video_path(video_id)
        size, mtime = file_stat(path)
        if vectors is not None and len(units):
            self._vector_index(vectors.shape[1])
        with self.transaction() as db:
            db.execute("SELECT 1 FROM videos WHERE id = %s FOR UPDATE", (video_id,))  # one writer of a video at a time
            now = db.execute("SELECT revision FROM analyses WHERE video_id = %s", (video_id,)).fetchone()
            if (now[0] if now else 0) != revision:
                raise _Raced()  # another wrote since it was read: merge again
            db.execute("DELETE FROM units WHERE video_id = %s", (video_id,))
            db.execute("DELETE FROM identities WHERE video_id = %s", (video_id,))
            db.execute("UPDATE videos SET content_hash = %s, duration = %s, fps = %s, width = %s, height = %s, "
                       "size_bytes = COALESCE(%s, size_bytes), mtime_ns = COALESCE(%s, mtime_ns), status = 'done', "
                       "error = NULL, analysed_at = %s WHERE id = %s",
                       (analysis.content_hash, info.duration, info.fps, info.width, info.height, size, mtime,
                        time.time(), video_id))
            db.execute("INSERT INTO analyses (video_id, content_hash, engines, indexed_at, analysis, revision) "
                       "VALUES (%s, %s, %s, %s, %s, 1) ON CONFLICT (video_id) DO UPDATE SET content_hash = "
                       "excluded.content_hash, engines = excluded.engines, indexed_at = excluded.indexed_at, "
                       "analysis = excluded.analysis, revision = analyses.revision + 1",
                       (video_id, analysis.content_hash, json.dumps(analysis.engines), time.time(),
                        analysis.to_json()))
            with db.cursor() as cursor:
                cursor.executemany("INSERT INTO identities (video_id, pid, name) VALUES (%s, %s, %s)",
                                   [(video_id, i.id, i.name) for i in analysis.identities])
                cursor.executemany("INSERT INTO note_history (video_id, note_id, changed, author, note) VALUES "
                                   "(%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                                   [(video_id, n.id, n.changed, n.author, json.dumps(n.to_dict()))
                                    for version in versions for n in version.notes]
                                   + [(video_id, d.id, d.deleted, d.author, json.dumps(d.to_dict()))
                                      for d in analysis.deleted_notes])
            unit_ids = self._insert_units(db, video_id, units, vectors, frame_vectors, frame_model)
            with db.cursor() as cursor:  # (executemany: pipelined, one round trip for all the rows)
                cursor.executemany("INSERT INTO unit_people (unit_id, video_id, pid) VALUES (%s, %s, %s)",
                                   [(uid, video_id, pid) for uid, unit in zip(unit_ids, units) for pid in unit.people])
                cursor.executemany("INSERT INTO unit_notes (unit_id, note_id, frame, last_frame, tag, status, author) "
                                   "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                                   [(uid, u.note.id, u.note.frame, u.note.last_frame, u.note.tag, u.note.status,
                                     u.note.author) for uid, u in zip(unit_ids, units) if u.note is not None])
            self._bump(db)
            db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, json.dumps(
                {"video": video_id, "path": path, "content_hash": analysis.content_hash})))
        return len(units)

    @staticmethod
    def _insert_units(db, video_id: int, units, vectors, frame_vectors, frame_model) -> list[int]:
        """The units' rows, in one pipelined batch; their ids in the units' order."""
        rows = []
        for n, unit in enumerate(units):
            frame = frame_vectors.get(n)
            rows.append((video_id, unit.kind, unit.start, unit.end, unit.text, " ".join(unit.people),
                         _vector_text(vectors[n]) if vectors is not None else None, frame,
                         frame_model if frame is not None else None))
        ids = []
        with db.cursor() as cursor:
            cursor.executemany('INSERT INTO units (video_id, kind, start, "end", text, people, embedding, '
                               "frame_embedding, frame_model) VALUES (%s, %s, %s, %s, %s, %s, %s::vector, %s, %s) "
                               "RETURNING id", rows, returning=True)
            while rows:
                ids.append(cursor.fetchone()[0])
                if not cursor.nextset():
                    break
        db.execute("INSERT INTO unit_words (unit_id, words) SELECT id, to_tsvector('english', text) FROM units "
                   "WHERE video_id = %s", (video_id,))  # (its units were all replaced just now)
        return ids

    def note_history(self, video_id: int, note_id: str) -> list[dict]:
        """Every version of a note written to the library, oldest change first; its
        deletion, if it was deleted, is the last (``{"id", "deleted", "author"}``)."""
        return [row[0] for row in self.query("SELECT note FROM note_history WHERE video_id = ? AND note_id = ? "
                                             "ORDER BY changed, author", (video_id, note_id))]

    def _vector_index(self, dimension: int) -> None:
        """The HNSW index over the text vectors, made once their dimension is known, in a
        transaction of its own under a lock (made inside a writer's transaction, two
        writers' first vectors deadlocked: each held the units the other's index waited
        for)."""
        known = self.get_meta("embedding_dim")
        if known is None:
            with self.transaction() as db:
                db.execute("SELECT pg_advisory_xact_lock(%s)", (INDEX_LOCK,))
                row = db.execute("SELECT value FROM meta WHERE key = 'embedding_dim'").fetchone()
                if row is None:
                    self._set_meta(db, "embedding_dim", str(dimension))
                    db.execute(f"CREATE INDEX units_embedding ON units USING hnsw ((embedding::vector({dimension})) "
                               "vector_ip_ops)")
                known = row[0] if row is not None else str(dimension)
        if int(known) != dimension:
            raise LibraryError(self.path, f"holds text vectors of {known} dimensions, not {dimension}: "
                                          "rebuild the library with one text embedding model")

    def _frame_vectors(self, video_id: int, analysis: Analysis, units, frames) -> dict[int, bytes]:
        old = {round(t, 3): bytes(v) for t, v in self.query(
            "SELECT start, frame_embedding FROM units WHERE video_id = ? AND kind = 'caption' AND frame_model = ?",
            (video_id, frames.model))}
        wanted = {n: round(u.start, 3) for n, u in enumerate(units) if u.kind == "caption"}
        new = sorted({t for t in wanted.values() if t not in old})
        if new:
            made = frames.embed_frames(analysis, new)
            if made is not None:
                old.update((t, v.astype(np.float32).tobytes()) for t, v in zip(new, made))
        return {n: old[t] for n, t in wanted.items() if t in old}

    def analysis(self, video_id: int) -> Analysis | None:
        """The Analysis indexed for a video, as kept in the catalog."""
        rows = self.query("SELECT analysis FROM analyses WHERE video_id = ?", (video_id,))
        return Analysis.from_dict(rows[0][0]) if rows and rows[0][0] is not None else None

    def keep_analysis(self, analysis: Analysis) -> None:
        """(index_analysis keeps the Analysis in the catalog: nothing more to save)"""

    # -- the two rankings of a search --------------------------------------------------
    def units_with_word(self, word: str, cap: int) -> int:
        """About how many units have ``word`` (stemmed), no more than ``cap``: the server's
        estimate from its statistics (kept by ANALYZE). Counting visited a row per unit:
        60 ms a query at 1M units, where the estimate takes 0.4 ms a word and put 293 of
        300 words on the same side of COMMON_WORD_UNITS as the count (the 7 others within
        15 %)."""
        if not _lexeme(word):
            return 0
        plan = self.query("EXPLAIN (FORMAT JSON) SELECT FROM unit_words WHERE words @@ to_tsquery('english', ?)",
                          (_lexeme(word),))[0][0]
        return min(cap, int(plan[0]["Plan"]["Plan Rows"]))

    def text_ranks(self, words: list[str], limit: int, where: str, params: Sequence, common: list[str] = ()
                   ) -> list[int]:
        """Unit ids whose text has any of ``words`` (stemmed), best first by ``ts_rank``
        over ``words`` and the ``common`` ones; without ``words``, those with every common
        word, of which the newest COMMON_WORD_UNITS are ranked. ``where``: SQL over units
        ``u`` (the search's filters)."""
        match = (" | " if words else " & ").join(filter(None, map(_lexeme, words or common)))
        ranked = " | ".join(filter(None, map(_lexeme, [*words, *common])))
        if not match:
            return []
        join = " JOIN units u ON u.id = w.unit_id" if where else ""  # (a join per match: only for a filter)
        # (each tsquery in FROM: made once, not once a row)
        sql = (f"SELECT w.unit_id AS id, w.words FROM unit_words w{join}, to_tsquery('english', ?) m "
               f"WHERE w.words @@ m{' AND ' + where if where else ''}")
        if not words:
            sql += f" ORDER BY w.unit_id DESC LIMIT {COMMON_WORD_UNITS}"
        rows = self.query(f"SELECT s.id FROM ({sql}) s, to_tsquery('english', ?) r ORDER BY ts_rank(s.words, r) DESC, "
                          "s.id LIMIT ?", [match, *params, ranked, limit])
        return [r[0] for r in rows]

    def vector_ranks(self, vector: np.ndarray, limit: int, allowed: set[int] | None) -> list[tuple[int, float]]:
        """(unit id, inner product) of the units nearest to ``vector``: by the HNSW index,
        or exactly among ``allowed``."""
        dimension = self.get_meta("embedding_dim")
        if dimension is None or len(vector) != int(dimension):
            return []
        cast = f"vector({int(dimension)})"
        target = _vector_text(vector)
        if allowed is None:
            rows = self.query(f"SELECT id, -(embedding::{cast} <#> ?::{cast}) FROM units WHERE embedding IS NOT NULL "
                              f"ORDER BY embedding::{cast} <#> ?::{cast} LIMIT ?", [target, target, limit])
        else:
            rows = self.query(f"SELECT id, -(embedding::{cast} <#> ?::{cast}) AS score FROM units WHERE "
                              f"embedding IS NOT NULL AND id = ANY(?) ORDER BY score DESC LIMIT ?",
                              [target, sorted(allowed), limit])
        return [(int(i), float(s)) for i, s in rows]


def without_nul(analysis: Analysis) -> Analysis:
    """``analysis`` with every U+0000 in its texts made U+FFFD: PostgreSQL's text and
    JSONB cannot hold that character (SQLite can), and a note pasted with one would
    otherwise not be kept at all."""
    if "\\u0000" not in analysis.to_json():
        return analysis

    def clean(value):
        if isinstance(value, str):
            return value.replace("\x00", "\ufffd")
        if isinstance(value, list | tuple):
            return [clean(v) for v in value]
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        return value

    return Analysis.from_dict(clean(analysis.to_dict()))


class _Raced(Exception):
    """Another writer changed the video's analysis between the read and the write."""


def _vector_text(vector: np.ndarray) -> str:
    """pgvector's text form of a vector ('[0.1,0.2,...]'), as the driver sends it."""
    return "[" + ",".join(f"{float(x):.7g}" for x in vector) + "]"


def _lexeme(word: str) -> str:
    """A query word as a to_tsquery operand: letters and digits only, so no word is syntax."""
    return "".join(ch for ch in word if ch.isalnum())


def _library_error(where: str, exc) -> LibraryError:
    """The server's refusal or failure as one line a user can act on."""
    import psycopg

    if isinstance(exc, psycopg.errors.InsufficientPrivilege):
        return LibraryError(where, f"refused: your role may not do this ({exc.diag.message_primary})")
    if isinstance(exc, psycopg.OperationalError) and (exc.sqlstate is None or exc.sqlstate.startswith("08")):
        return LibraryError(where, f"cannot be reached ({str(exc).strip().splitlines()[0]})")  # no connection
    return LibraryError(where, f"PostgreSQL error: {str(exc).strip().splitlines()[0]}")
