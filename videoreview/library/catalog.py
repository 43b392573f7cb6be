"""The catalog: one SQLite file in the user data directory (``library.sqlite3``).

Videos (path, content hash, probe, status), their analyses, identities with the names
reviewers gave, and the searchable units (see units.py) with an FTS5 index over their
text and their text embeddings (the FAISS index in vectors.py is built from these, so it
can always be rebuilt), and the tag, status and author of the notes among them. WAL
mode, foreign keys on, the schema versioned in ``PRAGMA user_version`` and brought up to
date by the migrations below; a file from a newer videoreview is refused, never changed.
Every change is one transaction: a crash leaves the catalog as it was before it or after it.

A file added again from another place is recognised by its content hash (the row's path
moves); a file that has gone is marked ``missing``, not deleted.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path

import numpy as np

from ..errors import LibraryError
from ..paths import library_dir
from ..records import Analysis
from .catalog_base import CatalogBase, vector_blob
from .catalog_reads import COMMON_WORD_UNITS, stacked

DB_NAME = "library.sqlite3"
BUSY_SECONDS = 5.0  # how long to wait for another process's write before calling it locked

# One script per schema version; MIGRATIONS[n] takes a catalog from version n to n + 1.
MIGRATIONS = (
    """
    CREATE TABLE videos (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        content_hash TEXT,
        size_bytes INTEGER,
        mtime_ns INTEGER,
        duration REAL,
        fps REAL,
        width INTEGER,
        height INTEGER,
        status TEXT NOT NULL DEFAULT 'new'
            CHECK (status IN ('new', 'analysing', 'done', 'failed', 'missing')),
        error TEXT,
        added_at REAL NOT NULL,
        analysed_at REAL
    );
    CREATE INDEX videos_hash ON videos (content_hash);
    CREATE TABLE analyses (
        video_id INTEGER PRIMARY KEY REFERENCES videos (id) ON DELETE CASCADE,
        content_hash TEXT NOT NULL,
        engines TEXT NOT NULL,
        indexed_at REAL NOT NULL
    );
    CREATE TABLE identities (
        video_id INTEGER NOT NULL REFERENCES videos (id) ON DELETE CASCADE,
        pid TEXT NOT NULL,
        name TEXT,
        PRIMARY KEY (video_id, pid)
    );
    CREATE TABLE units (
        id INTEGER PRIMARY KEY,
        video_id INTEGER NOT NULL REFERENCES videos (id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        start REAL NOT NULL,
        end REAL NOT NULL,
        text TEXT NOT NULL,
        people TEXT NOT NULL DEFAULT '',
        embedding BLOB
    );
    CREATE INDEX units_video ON units (video_id);
    CREATE TABLE unit_people (
        unit_id INTEGER NOT NULL REFERENCES units (id) ON DELETE CASCADE,
        video_id INTEGER NOT NULL,
        pid TEXT NOT NULL,
        PRIMARY KEY (unit_id, pid)
    );
    CREATE INDEX unit_people_pid ON unit_people (video_id, pid);
    CREATE VIRTUAL TABLE units_fts USING fts5 (
        text, content = 'units', content_rowid = 'id', tokenize = 'porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER units_ai AFTER INSERT ON units BEGIN
        INSERT INTO units_fts (rowid, text) VALUES (new.id, new.text);
    END;
    CREATE TRIGGER units_ad AFTER DELETE ON units BEGIN
        INSERT INTO units_fts (units_fts, rowid, text) VALUES ('delete', old.id, old.text);
    END;
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    # Counting the units with a vector (the vector index's staleness check) without
    # reading every row: 0.5 s at 300,000 units before, milliseconds with this index.
    """
    CREATE INDEX units_with_vector ON units (id) WHERE embedding IS NOT NULL;
    """,
    # Frame search: a caption unit's frame embedded by an image-text model (library/frames.py).
    """
    ALTER TABLE units ADD COLUMN frame_embedding BLOB;
    ALTER TABLE units ADD COLUMN frame_model TEXT;
    CREATE INDEX units_frame_model ON units (frame_model) WHERE frame_model IS NOT NULL;
    """,
    # Reviewer notes: a "note" unit's tag, status and author (search filters, the list of
    # open notes) and its frames (timecodes as the notes command prints them). Videos
    # indexed before take their notes in at their next indexing (an edit, or a rebuild).
    """
    CREATE TABLE unit_notes (
        unit_id INTEGER PRIMARY KEY REFERENCES units (id) ON DELETE CASCADE,
        note_id TEXT NOT NULL,
        frame INTEGER NOT NULL,
        last_frame INTEGER NOT NULL,
        tag TEXT NOT NULL,
        status TEXT NOT NULL,
        author TEXT NOT NULL
    );
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


def default_path() -> Path:
    return library_dir() / DB_NAME


class Catalog(CatalogBase):
    """An open catalog. Use as a context manager, or call ``close``. What it shares with
    the team catalog is in catalog_base.py and catalog_reads.py; both answer
    catalogs.LibraryCatalog."""

    def __init__(self, path: str | os.PathLike | None = None, readonly: bool = False):
        self.path = Path(path) if path is not None else default_path()
        self.readonly = readonly
        if readonly and not self.path.exists():
            raise LibraryError(self.path, "there is no library yet (add videos with 'videoreview library add')")
        uri = f"{self.path.resolve().as_uri()}?mode={'ro' if readonly else 'rwc'}"
        try:
            self.db = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS, isolation_level=None,
                                      check_same_thread=False)
        except sqlite3.Error as exc:
            raise LibraryError(self.path, f"cannot be opened ({exc})") from None
        try:
            self.db.execute("PRAGMA foreign_keys = ON")
            self._migrate()
            if not readonly:
                self.db.execute("PRAGMA journal_mode = WAL")
        except LibraryError:
            self.db.close()
            raise
        except sqlite3.Error as exc:
            self.db.close()
            raise _library_error(self.path, exc) from None

    # -- schema ----------------------------------------------------------------------
    def _migrate(self) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise LibraryError(self.path, f"was written by a newer videoreview (library schema {version}; this "
                                          f"version knows up to {SCHEMA_VERSION}); it is left as it is")
        if version == SCHEMA_VERSION:
            return
        if self.readonly:  # a search or list of an older catalog: upgraded once, through a writable connection
            try:
                Catalog(self.path).close()
            except LibraryError:
                raise LibraryError(self.path, f"needs upgrading (schema {version} to {SCHEMA_VERSION}) "
                                              "but cannot be written") from None
            return
        with self.transaction():
            for script in MIGRATIONS[version:]:
                for statement in _statements(script):
                    self.db.execute(statement)
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @contextmanager
    def transaction(self) -> Iterator:
        """One write transaction (BEGIN IMMEDIATE: waits up to BUSY_SECONDS for other
        writers); rolled back on any error, which is reported as a LibraryError."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise _library_error(self.path, exc) from None
        try:
            yield self.db
            self.db.execute("COMMIT")
        except BaseException as exc:
            self.db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise _library_error(self.path, exc) from None
            raise

    def query(self, sql: str, params: Sequence = ()) -> list[tuple]:
        try:
            return self.db.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise _library_error(self.path, exc) from None

    # -- dialect hooks (catalog_base.py) ------------------------------------------------
    def _sql(self, sql: str) -> str:
        return sql

    def _execute_many(self, db: sqlite3.Connection, sql: str, rows: list[tuple]) -> None:
        db.executemany(sql, rows)

    def _vector_value(self, vector: np.ndarray) -> bytes:
        return vector_blob(vector)

    def _write_analysis_row(self, db: sqlite3.Connection, video_id: int, analysis: Analysis, engines: str) -> None:
        db.execute("INSERT OR REPLACE INTO analyses (video_id, content_hash, engines, indexed_at) VALUES (?, ?, ?, ?)",
                   (video_id, analysis.content_hash, engines, time.time()))

    def _insert_units(self, db: sqlite3.Connection, video_id: int, rows: list[tuple]) -> list[int]:
        # Unit ids are never reused (SQLite reuses the largest rowid once it is deleted):
        # the vector index keeps vectors of removed units until its next rebuild, and
        # must not take them for new ones.
        next_id = max(int(self.get_meta("next_unit_id") or 1),
                      db.execute("SELECT coalesce(max(id), 0) + 1 FROM units").fetchone()[0])
        ids = list(range(next_id, next_id + len(rows)))
        db.executemany('INSERT INTO units (id, video_id, kind, start, "end", text, people, embedding, frame_embedding, '
                       "frame_model) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [(i, *row) for i, row in zip(ids, rows)])
        self.set_meta(db, "next_unit_id", str(next_id + len(rows)))
        return ids

    # -- what only this catalog does ---------------------------------------------------
    def claim(self, video_id: int) -> bool:
        """Whether this process may analyse the video now: always, on one machine's library."""
        return True

    def release(self, video_id: int) -> None:
        """(what claim took: nothing here)"""

    def analysis(self, video_id: int) -> Analysis | None:
        """The video's Analysis as saved beside this catalog (``analyses/``, by content
        hash: the window's saved file, with the reviewers' edits and notes)."""
        rows = self.query("SELECT content_hash FROM analyses WHERE video_id = ?", (video_id,))
        file = self.path.parent / "analyses" / f"{rows[0][0]}.analysis.json" if rows else None
        return Analysis.load(file) if file is not None and file.exists() else None

    def keep_analysis(self, analysis: Analysis) -> None:
        """Save ``analysis`` beside this catalog, where its window finds it."""
        analysis.save(self.path.parent / "analyses" / f"{analysis.content_hash}.analysis.json")

    def embeddings(self, after_id: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """(unit ids, their vectors) of every unit that has one (with an id above
        ``after_id``), in id order."""
        return stacked(self.query("SELECT id, embedding FROM units WHERE embedding IS NOT NULL AND id > ? ORDER BY id",
                                  (after_id,)))

    # -- the two rankings of a search --------------------------------------------------
    def units_with_word(self, word: str, cap: int) -> int:
        """How many units have ``word`` (stemmed), counting no further than ``cap``."""
        return self.query("SELECT count(*) FROM (SELECT rowid FROM units_fts WHERE units_fts MATCH ? LIMIT ?)",
                          (fts_query([word]), cap))[0][0]

    def text_ranks(self, words: list[str], limit: int, where: str, params: Sequence, common: list[str] = ()
                   ) -> list[int]:
        """Unit ids whose text has any of ``words`` (stemmed), best first by BM25 over
        ``words`` and the ``common`` ones; without ``words``, those with every common word,
        of which the newest COMMON_WORD_UNITS are ranked. ``where``: SQL over units ``u``
        (the search's filters)."""
        if words:  # (the AND only adds the common words to the ranking: it matches what the OR does)
            match = f"({fts_query(words)}) AND ({fts_query([*words, *common])})" if common else fts_query(words)
        else:
            match = fts_query(list(common), all_of=True)
        join = " JOIN units u ON u.id = f.rowid" if where else ""  # (a join per match: only for a filter)
        sql = (f"SELECT f.rowid AS id, bm25(units_fts) AS score FROM units_fts f{join} WHERE units_fts MATCH ?"
               f"{' AND ' + where if where else ''}")
        if not words:
            sql = f"SELECT id, score FROM ({sql} ORDER BY f.rowid DESC LIMIT {COMMON_WORD_UNITS})"
        return [r[0] for r in self.query(f"{sql} ORDER BY score LIMIT ?", [match, *params, limit])]

    @cached_property
    def vector_index(self):
        """The FAISS index of the units' text vectors, kept beside the catalog (vectors.py)."""
        from .vectors import VectorIndex

        return VectorIndex(self)

    def vector_ranks(self, vector: np.ndarray, limit: int, allowed: set[int] | None) -> list[tuple[int, float]]:
        """(unit id, inner product) of the units nearest to ``vector``: by the FAISS
        index, or exactly among ``allowed`` (one video or one person)."""
        if allowed is None:
            return self.vector_index.search(vector, limit)
        wanted = sorted(allowed)
        rows = []
        for start in range(0, len(wanted), 900):  # SQLite's limit on parameters
            chunk = wanted[start:start + 900]
            rows += self.query(f"SELECT id, embedding FROM units WHERE embedding IS NOT NULL AND id IN "
                               f"({','.join('?' * len(chunk))})", chunk)
        ids, vectors = stacked(rows)
        if not len(ids):
            return []
        scores = vectors @ vector
        order = np.argsort(-scores)[:limit]
        return [(int(ids[i]), float(scores[i])) for i in order]


def fts_query(words: list[str], all_of: bool = False) -> str:
    """The words quoted (so none is FTS5 syntax) and OR-ed (AND-ed ``all_of``), function
    words left out unless there is nothing else; the index stems them (Porter), so "chop"
    finds "chops"."""
    from ..summary.visil import english_stop_words

    content = [w for w in words if w not in english_stop_words()] or words
    return (" AND " if all_of else " OR ").join('"' + w.replace('"', '""') + '"' for w in content)


def _statements(script: str) -> list[str]:
    """The statements of a migration script (triggers hold ';' inside BEGIN ... END)."""
    out, current = [], ""
    for line in script.strip().splitlines():
        current += line + "\n"
        if sqlite3.complete_statement(current):
            out.append(current.strip())
            current = ""
    return out


def _library_error(path: Path, exc: sqlite3.Error) -> LibraryError:
    """SQLite's failure as one line a user can act on."""
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        reason = f"is locked by another program (waited {BUSY_SECONDS:g} s); close it and try again"
    elif "readonly" in text or "read-only" in text:
        reason = "is read-only; videoreview needs to write the library there (or set VIDEOREVIEW_HOME)"
    elif "not a database" in text or "malformed" in text or "corrupt" in text:
        reason = ("is damaged (SQLite: " + str(exc) + "); it was left as it is. Move it aside and run "
                  "'videoreview library rebuild' to catalogue the analysed videos again")
    elif "unable to open" in text:
        reason = "cannot be opened (is its folder there and writable?)"
    else:
        reason = f"SQLite error: {exc}"
    return LibraryError(path, reason)
