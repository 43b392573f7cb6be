"""The vector index over the units' text embeddings (FAISS), kept next to the catalog.

The catalog holds every unit's embedding, so this index is derived data: it records the
catalog generation it was built at (``library.faiss.json``) and is rebuilt from the
catalog whenever it is missing, unreadable or out of step (after a crash between a
catalog write and an index write, say). Inner product on unit vectors is cosine
similarity.

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
        self.rebuilt = False  # whether the last load had to rebuild it

    def index(self):
        """The FAISS index in step with the catalog (None when no unit has a vector)."""
        generation = self.catalog.generation()
        if self._index is not None and self._generation == generation:
            return self._index
        self._index, self._generation = self._load(generation), generation
        return self._index

    def _load(self, generation: int):
        import faiss

        try:
            meta = json.loads(self.meta_path.read_text())
            if meta.get("generation") == generation:
                index = faiss.read_index(str(self.path))
                if index.ntotal == meta.get("count"):
                    self.rebuilt = False
                    return index
        except (OSError, ValueError, RuntimeError):  # missing, half-written or damaged: rebuild
            pass
        return self.rebuild(generation)

    def rebuild(self, generation: int | None = None):
        """Build the index from the catalog's embeddings and save it (atomically)."""
        import faiss

        generation = self.catalog.generation() if generation is None else generation
        ids, vectors = self.catalog.embeddings()
        self.rebuilt = True
        if len(ids) == 0:
            self._remove_files()
            return None
        index = build_index(vectors, ids)
        try:
            write_atomic(self.path, faiss.serialize_index(index).tobytes())
            write_atomic(self.meta_path, json.dumps({"generation": generation, "count": int(index.ntotal),
                                                     "type": type(faiss.downcast_index(index.index)).__name__})
                         .encode())
        except OSError as exc:  # searching still works from memory; say why it was not kept
            raise LibraryError(self.path, f"cannot write the vector index ({exc.strerror or exc})") from None
        return index

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
