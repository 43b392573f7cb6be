"""Vector search at library scale: the index the library builds (library/vectors.py
build_index: flat up to 50,000 vectors, HNSW above) over N synthetic unit vectors of the
real dimension (384, all-MiniLM-L6-v2), queried one at a time as the app does.

    .venv/bin/python benchmarks/bench_library_vectors.py [--n 1000000] [--queries 1000] [--clusters 5000]

The vectors are clustered like sentence embeddings are (many texts about the same
things): CLUSTERS random unit centres, each vector a centre plus Gaussian noise,
normalised, so that neighbours within a cluster have cosine 0.5-0.8; queries are drawn
the same way. Prints the build time, the memory the index takes (process RSS growth),
median and p99 latency of single queries and recall@10 against exact search (FAISS
IndexFlatIP over the same vectors), and whether the targets (median < 10 ms, recall@10
>= 0.95) are met.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from memory import peak_rss_mb  # noqa: E402
from videoreview.library.vectors import HNSW_EF_SEARCH, build_index  # noqa: E402

DIM = 384
NOISE = 0.045  # per coordinate: a vector's cosine to its centre is about 0.75


def clustered(n: int, centres: np.ndarray, rng: np.random.Generator, chunk: int = 100_000) -> np.ndarray:
    out = np.empty((n, DIM), np.float32)
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        rows = centres[rng.integers(0, len(centres), stop - start)]
        rows = rows + rng.normal(0, NOISE, rows.shape).astype(np.float32)
        out[start:stop] = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return out


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--clusters", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    import faiss

    rng = np.random.default_rng(args.seed)
    centres = rng.normal(size=(args.clusters, DIM)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    vectors = clustered(args.n, centres, rng)
    queries = clustered(args.queries, centres, rng)
    ids = np.arange(args.n, dtype=np.int64) + 1  # unit ids start at 1, as in SQLite

    before = rss_mb()
    start = time.perf_counter()
    index = build_index(vectors, ids)
    build_s = time.perf_counter() - start
    index_mb = rss_mb() - before
    kind = type(faiss.downcast_index(index.index)).__name__

    exact = faiss.IndexFlatIP(DIM)
    exact.add(vectors)
    start = time.perf_counter()
    _, truth = exact.search(queries, 10)
    exact_s = time.perf_counter() - start
    truth += 1

    latencies, hits = [], 0
    for q in range(args.queries):
        start = time.perf_counter()
        _, found = index.search(queries[q:q + 1], 10)
        latencies.append((time.perf_counter() - start) * 1000)
        hits += len(set(found[0].tolist()) & set(truth[q].tolist()))
    recall = hits / (10 * args.queries)
    median = statistics.median(latencies)
    p99 = float(np.percentile(latencies, 99))

    print(f"vectors    {args.n:,} x {DIM} float32 in {args.clusters:,} clusters; "
          f"{args.queries:,} queries, one at a time")
    print(f"index      {kind}" + (f" (efSearch {HNSW_EF_SEARCH})" if "HNSW" in kind else "")
          + f", built in {build_s:.1f} s, about {index_mb:,.0f} MB (RSS growth); peak RSS {peak_rss_mb():,.0f} MB")
    print(f"latency    median {median:.2f} ms, p99 {p99:.2f} ms (exact search: {1000 * exact_s / args.queries:.1f} ms "
          f"a query in a batch of {args.queries:,})")
    print(f"recall@10  {recall:.4f} against exact search")
    print(f"targets    median < 10 ms: {'met' if median < 10 else 'NOT met'}; "
          f"recall@10 >= 0.95: {'met' if recall >= 0.95 else 'NOT met'}")


if __name__ == "__main__":
    main()
