"""The team catalog: the library's tables on PostgreSQL with pgvector, for several
reviewers and the cluster at once (library/catalog.py is the same catalog in one SQLite
file; both answer catalogs.LibraryCatalog, which is all the rest of videoreview uses).

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
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from ...errors import LibraryError
from ...notes.changes import merge_copies
from ...records import Analysis
from ..catalog_base import CatalogBase
from ..catalog_reads import COMMON_WORD_UNITS
from .schema import MIGRATIONS, SCHEMA_VERSION
from .url import connect, display

MIN_SERVER = 140000  # PostgreSQL 14
MERGE_TRIES = 5  # a writer that keeps losing the race to others gives up after this
CHANNEL = "videoreview_library"  # NOTIFY's channel: a video's analysis was written (changes.py)
MIGRATION_LOCK = 46_0001  # pg_advisory_xact_lock key: one migration at a time
INDEX_LOCK = 46_0003  # making the vector index: one writer does it
CLAIM_LOCKS = 46_0002  # the first key of a video's claim (pg_try_advisory_lock(CLAIM_LOCKS, video id))


class TeamCatalog(CatalogBase):
    """An open team catalog at ``url`` (postgresql://...). Use as a context manager, or
    call ``close``. What it shares with the local catalog is in catalog_base.py and
    catalog_reads.py; both answer catalogs.LibraryCatalog."""

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
                cursor = self.db.execute(self._sql(sql), list(params))
                return cursor.fetchall() if cursor.description else []
        except psycopg.Error as exc:
            raise _library_error(self.path, exc) from None

    # -- dialect hooks (catalog_base.py) ------------------------------------------------
    def _sql(self, sql: str) -> str:
        return sql.replace("%", "%%").replace("?", "%s")

    def _execute_many(self, db, sql: str, rows: list[tuple]) -> None:
        with db.cursor() as cursor:  # (executemany: pipelined, one round trip for all the rows)
            cursor.executemany(self._sql(sql), rows)

    def _vector_value(self, vector: np.ndarray) -> str:
        return _vector_text(vector)

    def _write_analysis_row(self, db, video_id: int, analysis: Analysis, engines: str) -> None:
        """The row with the Analysis kept whole, its revision counted (see _write)."""
        db.execute("INSERT INTO analyses (video_id, content_hash, engines, indexed_at, analysis, revision) "
                   "VALUES (%s, %s, %s, %s, %s, 1) ON CONFLICT (video_id) DO UPDATE SET content_hash = "
                   "excluded.content_hash, engines = excluded.engines, indexed_at = excluded.indexed_at, "
                   "analysis = excluded.analysis, revision = analyses.revision + 1",
                   (video_id, analysis.content_hash, engines, time.time(), analysis.to_json()))

    def _insert_units(self, db, video_id: int, rows: list[tuple]) -> list[int]:
        """In one pipelined batch, and their words for the text search."""
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

    # -- what only this catalog does ---------------------------------------------------
    def claim(self, video_id: int) -> bool:
        """Whether this process may analyse the video now: False while another machine's
        process holds it. The claim is a session advisory lock, so a process that dies
        lets go of it with its connection."""
        return bool(self.query("SELECT pg_try_advisory_lock(?, ?)", (CLAIM_LOCKS, video_id))[0][0])

    def release(self, video_id: int) -> None:
        self.query("SELECT pg_advisory_unlock(?, ?)", (CLAIM_LOCKS, video_id))

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
        prepared = self._prepare(video_id, analysis, embed, frames)
        if prepared.vectors is not None and len(prepared.units):
            self._vector_index(prepared.vectors.shape[1])
        with self.transaction() as db:
            db.execute("SELECT 1 FROM videos WHERE id = %s FOR UPDATE", (video_id,))  # one writer of a video at a time
            now = db.execute("SELECT revision FROM analyses WHERE video_id = %s", (video_id,)).fetchone()
            if (now[0] if now else 0) != revision:
                raise _Raced()  # another wrote since it was read: merge again
            self._replace_video(db, video_id, analysis, prepared)
            self._keep_note_history(db, video_id, analysis, versions)
            db.execute("SELECT pg_notify(%s, %s)", (CHANNEL, json.dumps(
                {"video": video_id, "path": prepared.path, "content_hash": analysis.content_hash})))
        return len(prepared.units)

    def _keep_note_history(self, db, video_id: int, analysis: Analysis, versions) -> None:
        """Every version of each note in ``versions`` (the one written and the merge), and
        the deletions."""
        self._execute_many(db, "INSERT INTO note_history (video_id, note_id, changed, author, note) VALUES "
                               "(?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                           [(video_id, n.id, n.changed, n.author, json.dumps(n.to_dict()))
                            for version in versions for n in version.notes]
                           + [(video_id, d.id, d.deleted, d.author, json.dumps(d.to_dict()))
                              for d in analysis.deleted_notes])

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
                    self.set_meta(db, "embedding_dim", str(dimension))
                    db.execute(f"CREATE INDEX units_embedding ON units USING hnsw ((embedding::vector({dimension})) "
                               "vector_ip_ops)")
                known = row[0] if row is not None else str(dimension)
        if int(known) != dimension:
            raise LibraryError(self.path, f"holds text vectors of {known} dimensions, not {dimension}: "
                                          "rebuild the library with one text embedding model")

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
