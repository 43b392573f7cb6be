"""The vector index over the units' text embeddings (FAISS), kept next to the catalog.

The catalog holds every unit's embedding, so this index is derived data and can always be
rebuilt from it. It is kept up to date incrementally: unit ids only grow (see
Catalog._insert_units), so the index records the last id it holds (``library.faiss.json``)
and takes in the units added since; vectors of removed units stay in it, unseen (a search
drops ids the catalog no longer has), until they are STALE_MAX of it, when it is rebuilt.
It is also rebuilt when the file is missing, unreadable or does not match its record (a
crash between the two writes). Inner product on unit vectors is cosine similarity.

Index type by size: exact (flat) up to FLAT_MAX vectors, where a query over them takes a
few ms; above that HNSW (32 links, efSearch 128), which keeps queries in milliseconds
with recall@10 near 0.99 at a million vectors (benchmarks/bench_library_vectors.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from ..errors import LibraryError
from ..records import write_atomic

FLAT_MAX = 50_000
HNSW_LINKS = 32
HNSW_EF_CONSTRUCTION = 80
HNSW_EF_SEARCH = 128
STALE_MAX = 0.2  # share of removed units' vectors in the index that calls for a rebuild
# Added vectors are saved with the index once they are this share of what the file holds
# (until then each load takes them from the catalog again: cheap while they are few).
SAVE_GROWTH = 0.1


def faiss_inner(index):
    """The index inside the id map (flat or HNSW), as its own type."""
    import faiss

    return faiss.downcast_index(index.index)


def build_index(vectors: np.ndarray, ids: np.ndarray):
    """A FAISS index of ``vectors`` (n, d) float32 unit rows, searchable by ``ids``."""
    import faiss

    dim = vectors.shape[1]
    if len(vectors) <= FLAT_MAX:
        inner = faiss.IndexFlatIP(dim)
    else:
        inner = faiss.IndexHNSWFlat(dim, HNSW_LINKS, faiss.METRIC_INNER_PRODUCT)
        inner.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        inner.hnsw.efSearch = HNSW_EF_SEARCH
    index = faiss.IndexIDMap2(inner)
    index.add_with_ids(np.ascontiguousarray(vectors, np.float32), np.ascontiguousarray(ids, np.int64))
    return index


class VectorIndex:
    """The index file for a catalog, loaded (or rebuilt) on demand."""

    def __init__(self, catalog):
        self.catalog = catalog
        self.path = Path(catalog.path).with_suffix(".faiss")
        self.meta_path = self.path.with_name(self.path.name + ".json")
        self._index = None
        self._generation: int | None = None  # the catalog's, when the index was last brought up to date
        self._through = 0  # the largest unit id in the index
        self._saved_count = 0  # vectors in the file
        self.rebuilt = False  # whether the last update had to rebuild it
        self.added = 0  # vectors the last update took in

    def index(self):
        """The FAISS index in step with the catalog (None when no unit has a vector)."""
        generation = self.catalog.generation()
        if self._generation != generation:
            self._index = self._update()
            self._generation = generation
        return self._index

    def _update(self):
        import faiss

        index = self._index if self._index is not None else self._read()
        if index is None:
            return self.rebuild()
        live = self.catalog.embedding_count()
        ids, vectors = self.catalog.embeddings(after_id=self._through)
        stale = index.ntotal + len(ids) - live
        flat = isinstance(faiss_inner(index), faiss.IndexFlat)
        if stale > STALE_MAX * max(live, 1) or (flat and live > FLAT_MAX):
            return self.rebuild()
        self.rebuilt, self.added = False, len(ids)
        if len(ids):
            index.add_with_ids(np.ascontiguousarray(vectors, np.float32), ids)
            self._through = int(ids[-1])
            if index.ntotal - self._saved_count > SAVE_GROWTH * self._saved_count:
                self._save(index)
        return index

    def _read(self):
        """The saved index, or None when it is missing, damaged or not what its record says."""
        import faiss

        try:
            meta = json.loads(self.meta_path.read_text())
            index = faiss.read_index(str(self.path))
        except (OSError, ValueError, RuntimeError):
            return None
        if index.ntotal != meta.get("count") or not isinstance(meta.get("through"), int):
            return None
        self._through, self._saved_count = meta["through"], index.ntotal
        return index

    def rebuild(self):
        """Build the index from the catalog's embeddings and save it (atomically)."""
        ids, vectors = self.catalog.embeddings()
        self.rebuilt, self.added = True, len(ids)
        if len(ids) == 0:
            self._remove_files()
            self._through = self._saved_count = 0
            return None
        index = build_index(vectors, ids)
        self._through = int(ids[-1])
        self._save(index)
        return index

    def _save(self, index) -> None:
        import faiss

        try:
            write_atomic(self.path, faiss.serialize_index(index).tobytes())
            write_atomic(self.meta_path, json.dumps({"count": int(index.ntotal), "through": self._through,
                                                     "type": type(faiss_inner(index)).__name__}).encode())
        except OSError as exc:  # searching still works from memory; say why it was not kept
            raise LibraryError(self.path, f"cannot write the vector index ({exc.strerror or exc})") from None
        self._saved_count = int(index.ntotal)

    def _remove_files(self) -> None:
        for path in (self.path, self.meta_path):
            try:
                os.remove(path)
            except FileNotFoundError:
                pass

    def search(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(unit id, cosine similarity) of the ``k`` nearest units, best first."""
        index = self.index()
        if index is None or k <= 0:
            return []
        scores, ids = index.search(np.ascontiguousarray(vector.reshape(1, -1), np.float32), min(k, index.ntotal))
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0]) if i >= 0]
