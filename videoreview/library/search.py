"""Hybrid search over the library: full-text search (SQLite's FTS5 with BM25, or
PostgreSQL's text search) and vector search (FAISS, or pgvector) over the same units,
and with an image-text model the caption units' frames (library/frames.py), fused by
reciprocal rank (RRF, k = 60, as Cormack et al. 2009), returning moments.

The user's words are never passed to FTS5 as syntax: each word is quoted and the words
are OR-ed, so quotes, operators, parentheses and SQL in a query are just text. A word
that many units have counts in the text ranking only where the query has no rarer one
(COMMON_WORD_UNITS). Filters (one video, an identity by id or reviewer-given name, a
kind of unit, a note's tag, status or author) apply to both lists. ``list_notes`` lists reviewers' notes across the
library without a query (the open ones: what is left to do).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..errors import VideoReviewError
from .catalog import Catalog
from .catalog_reads import COMMON_WORD_UNITS
from .frames import MIN_PROBABILITY

RRF_K = 60
MAX_QUERY_CHARS = 1000
MAX_QUERY_WORDS = 64  # FTS5 handles more, but a query this long is a pasted paragraph
CANDIDATES = 10  # each list contributes this many times ``top`` candidates before fusion
# Below this cosine the vector half has found nothing related (all-MiniLM-L6-v2 gives
# unrelated texts 0.0-0.35): without it, every query would return the nearest junk.
MIN_SIMILARITY = 0.3
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True)
class Moment:
    video_id: int
    path: str
    start: float
    end: float
    text: str
    kind: str
    score: float
    people: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"path": self.path, "video_id": self.video_id, "start": round(self.start, 3),
                "end": round(self.end, 3), "text": self.text, "score": round(self.score, 6), "kind": self.kind}


def query_words(query: str) -> list[str]:
    """The words of a query, lowercased, at most MAX_QUERY_WORDS; ValueError when none."""
    words = _WORD.findall(query[:MAX_QUERY_CHARS].lower())[:MAX_QUERY_WORDS]
    if not words:
        raise VideoReviewError("the query is empty: type some words to search for" if not query.strip()
                               else f"the query {query[:40]!r} has no words to search for")
    return words


@dataclass(frozen=True)
class NoteFilter:
    """Which notes: None for any tag, status or author (names in any case)."""

    tag: str | None = None
    status: str | None = None
    author: str | None = None

    def sql(self) -> tuple[list[str], list]:
        """Conditions over unit_notes ``n`` and their parameters."""
        parts, params = [], []
        for column, value in (("tag", self.tag), ("status", self.status), ("author", self.author)):
            if value is not None:
                parts.append(f"lower(n.{column}) = lower(?)")
                params.append(value.strip())
        return parts, params


def _filters(video_id: int | None, identity: str | None, kind: str | None = None,
             notes: NoteFilter = NoteFilter()) -> tuple[str, list]:
    """SQL over units ``u`` for one video and / or one identity (its id or a reviewer's
    name for it, any case), one kind of unit, notes with a tag, status or author: the
    WHERE text ('' for none) and its parameters."""
    parts, params = [], []
    if video_id is not None:
        parts.append("u.video_id = ?")
        params.append(video_id)
    if identity is not None:
        parts.append("u.id IN (SELECT up.unit_id FROM unit_people up JOIN identities i "
                     "ON i.video_id = up.video_id AND i.pid = up.pid WHERE lower(i.pid) = lower(?) "
                     "OR lower(i.name) = lower(?))")
        params += [identity.strip(), identity.strip()]
    if kind is not None:
        parts.append("u.kind = ?")
        params.append(kind)
    conditions, values = notes.sql()
    if conditions:  # only note units have a row in unit_notes: this limits the search to notes
        parts.append(f"u.id IN (SELECT n.unit_id FROM unit_notes n WHERE {' AND '.join(conditions)})")
        params += values
    return " AND ".join(parts), params


class Searcher:
    """Searches one catalog (the local SQLite one or the team one: each ranks by its own
    text index and vector index); ``embedder`` (a TextEmbedder) turns on the vector half,
    and ``frames`` (a library.frames.FrameEmbedder) the frame ranking."""

    def __init__(self, catalog, embedder=None, frames=None):
        self.catalog = catalog
        self.embedder = embedder
        self.frames = frames
        self._frame_matrix: tuple[int, np.ndarray, np.ndarray] | None = None  # (generation, ids, vectors)

    def search(self, query: str, top: int = 10, video_id: int | None = None, identity: str | None = None,
               kind: str | None = None, notes: NoteFilter = NoteFilter()) -> list[Moment]:
        words = query_words(query)
        where, params = _filters(video_id, identity, kind, notes)
        wanted = max(1, top) * CANDIDATES
        ranked = [self._text_ranks(words, wanted, where, params)]
        if self.embedder is not None:
            allowed = None if not where else {r[0] for r in self.catalog.query(
                f"SELECT u.id FROM units u WHERE {where}", params)}
            vector = self.embedder.embed([query[:MAX_QUERY_CHARS]])[0]
            ranked.append([unit_id for unit_id, score in self.catalog.vector_ranks(vector, wanted, allowed)
                           if score >= MIN_SIMILARITY])
        if self.frames is not None:
            ranked.append(self._frame_ranks(query[:MAX_QUERY_CHARS], wanted, where, params))
        fused: dict[int, float] = {}
        for ranking in ranked:
            for rank, unit_id in enumerate(ranking):
                fused[unit_id] = fused.get(unit_id, 0.0) + 1.0 / (RRF_K + rank + 1)
        return self._moments(sorted(fused.items(), key=lambda kv: -kv[1]), top)

    def _text_ranks(self, words: list[str], limit: int, where: str, params: list) -> list[int]:
        """The catalog's text ranking: of the units with the query's rarer words where it
        has any (its common words add to their rank), else of those with all its words."""
        words = list(dict.fromkeys(words))
        common = [w for w in words if self.catalog.units_with_word(w, COMMON_WORD_UNITS) >= COMMON_WORD_UNITS]
        return self.catalog.text_ranks([w for w in words if w not in common], limit, where, params, common)

    def _frame_ranks(self, text: str, limit: int, where: str, params: list) -> list[int]:
        """Caption units whose frame matches the query (exact search: the frame vectors of
        the whole library are kept in memory until the catalog changes)."""
        if where:
            ids, vectors = self.catalog.frame_embeddings(self.frames.model, where, params)
        else:
            generation = self.catalog.generation()
            if self._frame_matrix is None or self._frame_matrix[0] != generation:
                self._frame_matrix = (generation, *self.catalog.frame_embeddings(self.frames.model))
            _, ids, vectors = self._frame_matrix
        if not len(ids):
            return []
        scores = vectors @ self.frames.embed_query(text)
        order = np.argsort(-scores)[:limit]
        keep = self.frames.probabilities(scores[order]) >= MIN_PROBABILITY
        return [int(ids[i]) for i, ok in zip(order, keep) if ok]

    # -- results ------------------------------------------------------------------------
    def _moments(self, scored: list[tuple[int, float]], top: int) -> list[Moment]:
        """Moments for the best units: one per (video, span), the best text kept."""
        out: list[Moment] = []
        seen: set[tuple] = set()
        for start in range(0, len(scored), 200):
            chunk = scored[start:start + 200]
            rows = self.catalog.query(
                f"SELECT u.id, u.video_id, v.path, u.start, u.\"end\", u.text, u.kind, u.people FROM units u "
                f"JOIN videos v ON v.id = u.video_id WHERE u.id IN ({','.join('?' * len(chunk))})",
                [unit_id for unit_id, _ in chunk])
            by_id = {r[0]: r for r in rows}
            for unit_id, score in chunk:
                row = by_id.get(unit_id)
                if row is None:  # the vector index was a step behind: a unit since removed
                    continue
                _, video_id, path, begin, end, text, kind, people = row
                # Each note is its own moment, even where another note or unit has its span.
                key = (video_id, round(begin, 2), round(end, 2)) if kind != "note" else ("note", unit_id)
                if key in seen:
                    continue
                seen.add(key)
                out.append(Moment(video_id, path, begin, end, text, kind, score, tuple(people.split())))
                if len(out) >= top:
                    return out
        return out


@dataclass(frozen=True)
class LibraryNote:
    """A reviewer's note as the library lists it."""

    video_id: int
    path: str
    note_id: str
    start: float  # seconds: where the player goes
    end: float
    frame: int
    last_frame: int
    fps: float | None
    text: str
    tag: str
    status: str
    author: str

    def when(self, between: str = " – ") -> str:
        """Its SMPTE timecode (IN and OUT for a range) at its video's rate, as notes are
        written wherever a person reads them; mm:ss.ff where the rate is not known (a video
        not probed) or has no timecode."""
        from ..errors import RecordError
        from ..smpte import span
        from ..timecode import format_span

        if self.fps:
            try:
                return span(self.frame, self.last_frame, self.fps, between)
            except RecordError:
                pass
        return format_span(self.start, self.end, between)

    def to_json(self) -> dict:
        return {"path": self.path, "video_id": self.video_id, "id": self.note_id, "start": round(self.start, 3),
                "end": round(self.end, 3), "frame": self.frame, "last_frame": self.last_frame, "text": self.text,
                "tag": self.tag, "status": self.status, "author": self.author}


def list_notes(catalog: Catalog, notes: NoteFilter = NoteFilter(status="open")) -> list[LibraryNote]:
    """The notes of every video in the library (by default the open ones), in video (path)
    then time order: a to-do list gone through video by video, each video's notes in
    the order the player meets them, that stays in place as notes are resolved (newest
    change first would reorder it under the reviewer at every edit)."""
    conditions, params = notes.sql()
    rows = catalog.query(
        "SELECT u.video_id, v.path, n.note_id, u.start, u.end, n.frame, n.last_frame, v.fps, u.text, n.tag, "
        "n.status, n.author FROM unit_notes n JOIN units u ON u.id = n.unit_id JOIN videos v ON v.id = u.video_id"
        f"{' WHERE ' + ' AND '.join(conditions) if conditions else ''} ORDER BY v.path, n.frame, n.last_frame, u.id",
        params)
    return [LibraryNote(*row) for row in rows]
