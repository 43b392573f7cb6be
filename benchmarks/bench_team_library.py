"""The team library on PostgreSQL + pgvector against the local one on SQLite + FAISS, in
the same run, on a server started here (scripts/postgres's code, on 127.0.0.1).

    .venv/bin/python benchmarks/bench_team_library.py [--units 300000 1000000] [--queries 200]
        [--writers 1 4 8] [--notes 100]

1. Search: for each size, one library of that many caption-like units (the texts and
   clustered 384-d vectors of bench_library_search.py, the same rows in both), then
   QUERIES queries of 2-5 words through the app's Searcher (query embedding by the real
   model included), on each backend: median and p99 ms. Goal: p99 < 100 ms on both.
2. Indexing: analyses already made (each 120 captions, their vectors made beforehand, so
   that the database is what is measured) indexed by 1, 4 and 8 writer processes at once,
   each into videos of its own: analyses/s, units/s, the CPU shares of the server and of
   the writers (their processes' CPU time over the wall time and the machine's cores) and
   the ratio to one writer. Goal on 2 cores: 8 writers at least 3x one.
3. Notes reaching another window: NOTES notes written one after another, each heard by a
   listening connection (as the window's TeamListener) and the Analysis read back, as the
   window does: median and worst ms from the writer's commit.
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

from bench_library_search import TEMPLATES, build_library, labels  # noqa: E402
from bench_library_vectors import DIM  # noqa: E402
from videoreview.library.catalog import Catalog  # noqa: E402
from videoreview.library.search import Searcher  # noqa: E402
from videoreview.library.team import server  # noqa: E402
from videoreview.library.team.catalog import TeamCatalog  # noqa: E402

PER_VIDEO = 30
CAPTIONS = 120  # per analysis, in the indexing measurement


def new_database(admin_url: str, name: str) -> str:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        db.execute(f'CREATE DATABASE "{name}"')
    url = admin_url.rsplit("/", 1)[0] + "/" + name
    TeamCatalog(url).close()  # the schema
    return url


def copy_sqlite_to_team(sqlite_path: Path, url: str) -> tuple[float, float]:
    """The local catalog's rows into the team one (COPY), then its HNSW index: seconds each."""
    import psycopg

    start = time.perf_counter()
    with Catalog(sqlite_path, readonly=True) as local, psycopg.connect(url, autocommit=True) as db:
        with db.cursor().copy("COPY videos (id, path, content_hash, status, duration, added_at) FROM STDIN") as copy:
            for row in local.query("SELECT id, path, content_hash, status, duration, added_at FROM videos"):
                copy.write_row(row)
        with db.cursor().copy("COPY identities (video_id, pid, name) FROM STDIN") as copy:
            for row in local.query("SELECT video_id, pid, name FROM identities"):
                copy.write_row(row)
        with db.cursor().copy('COPY units (id, video_id, kind, start, "end", text, people, embedding) '
                              "FROM STDIN") as copy:
            for uid, vid, kind, s, e, text, people, blob in local.query(
                    "SELECT id, video_id, kind, start, end, text, people, embedding FROM units"):
                vector = "[" + ",".join(f"{x:.6g}" for x in np.frombuffer(blob, np.float32)) + "]"
                copy.write_row((uid, vid, kind, s, e, text, people, vector))
        db.execute("SELECT setval('units_id_seq', (SELECT max(id) FROM units))")
        db.execute("SELECT setval('videos_id_seq', (SELECT max(id) FROM videos))")
        db.execute("INSERT INTO unit_people (unit_id, video_id, pid) SELECT id, video_id, 'P1' FROM units")
        db.execute("INSERT INTO unit_words (unit_id, words) SELECT id, to_tsvector('english', text) FROM units")
        db.execute("ANALYZE")
    rows_s = time.perf_counter() - start
    start = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as db:
        db.execute("SET maintenance_work_mem = '2GB'")
        db.execute("INSERT INTO meta (key, value) VALUES ('embedding_dim', %s)", (str(DIM),))
        db.execute(f"CREATE INDEX units_embedding ON units USING hnsw ((embedding::vector({DIM})) vector_ip_ops)")
    return rows_s, time.perf_counter() - start


def timed_searches(searcher: Searcher, queries: list[str]) -> tuple[float, float]:
    searcher.search("warm up the index")
    latencies = []
    for query in queries:
        start = time.perf_counter()
        searcher.search(query, top=10)
        latencies.append((time.perf_counter() - start) * 1000)
    return statistics.median(latencies), float(np.percentile(latencies, 99))


def search_rows(admin_url: str, sizes: list[int], queries: int, folder: Path) -> None:
    from videoreview.library.indexer import text_embedder

    embedder = text_embedder()
    rng = np.random.default_rng(0)
    for units in sizes:
        sqlite_path = folder / f"library-{units}.sqlite3"
        vocabulary = build_library(sqlite_path, units // PER_VIDEO, PER_VIDEO, rng)
        url = new_database(admin_url, f"bench_{units}")
        rows_s, index_s = copy_sqlite_to_team(sqlite_path, url)
        print(f"team       {units:,} units: rows copied in {rows_s:.1f} s, HNSW index in {index_s:.1f} s", flush=True)
        words = [" ".join(vocabulary[i] for i in rng.integers(0, len(vocabulary), rng.integers(2, 6)))
                 for _ in range(queries)]
        with Catalog(sqlite_path) as local, TeamCatalog(url) as team:
            for name, catalog in (("SQLite+FAISS", local), ("PostgreSQL", team)):
                median, p99 = timed_searches(Searcher(catalog, embedder), words)
                verdict = "met" if p99 < 100 else "NOT met"
                print(f"search     {units:>9,} units  {name:<13} median {median:6.1f} ms, p99 {p99:6.1f} ms "
                      f"(p99 < 100 ms: {verdict})", flush=True)
        sqlite_path.unlink()


def made_analyses(count: int, folder: Path, first: int):
    """``count`` analyses of CAPTIONS captions each, for files of their own."""
    from dataclasses import replace

    from helpers import kitchen
    from videoreview.records import FrameCaption

    vocabulary = labels()
    rng = np.random.default_rng(first)
    out = []
    for n in range(first, first + count):
        path = folder / f"writer-video-{n}.mp4"
        path.write_bytes(str(n).encode())
        captions = tuple(FrameCaption(t * 0.1, t, TEMPLATES[t % len(TEMPLATES)].format(
            s=t, p=1, a=vocabulary[rng.integers(len(vocabulary))], b=vocabulary[rng.integers(len(vocabulary))],
            c="x")) for t in range(CAPTIONS))
        out.append((path, replace(kitchen(str(path)), captions=captions, content_hash=f"{n:064x}")))
    return out


def premade_vectors(texts: list[str]) -> np.ndarray:
    """Vectors 'embedded beforehand': a fixed vector per text, made without a model."""
    out = np.empty((len(texts), DIM), np.float32)
    for i, text in enumerate(texts):
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
        v = np.random.default_rng(seed).normal(size=DIM).astype(np.float32)
        out[i] = v / np.linalg.norm(v)
    return out


def _writer(url: str, work: list, barrier, done, finish) -> None:
    with TeamCatalog(url) as catalog:
        ids = [catalog.add_video(path, analysis.content_hash)[0] for path, analysis in work]
        barrier.wait()
        for video_id, (_, analysis) in zip(ids, work):
            catalog.index_analysis(video_id, analysis, premade_vectors)
        done.put(len(work))
        finish.wait()  # the connection (its server process, whose CPU time is counted) stays until then


def cpu_seconds(pids: list[int]) -> float:
    """The CPU time of these processes and their children so far."""
    import psutil

    total = 0.0
    for pid in pids:
        try:
            main = psutil.Process(pid)
            for process in [main, *main.children(recursive=True)]:
                times = process.cpu_times()
                total += times.user + times.system
        except psutil.NoSuchProcess:
            pass
    return total


def indexing_rows(admin_url: str, folder: str, writers: list[int], scratch: Path) -> None:
    per_writer = 12
    first = None
    for count in writers:
        url = new_database(admin_url, f"bench_writers_{count}")
        work = made_analyses(count * per_writer, scratch, 1000 * count)
        context = multiprocessing.get_context("spawn")
        barrier, finish, done = context.Barrier(count + 1), context.Barrier(count + 1), context.Queue()
        processes = [context.Process(target=_writer, args=(url, work[k::count], barrier, done, finish))
                     for k in range(count)]
        for process in processes:
            process.start()
        barrier.wait()
        pids = [process.pid for process in processes]
        cpu, writers_cpu, start = cpu_seconds([server.pid(folder)]), cpu_seconds(pids), time.perf_counter()
        indexed = sum(done.get(timeout=600) for _ in processes)
        wall = time.perf_counter() - start
        cpu = cpu_seconds([server.pid(folder)]) - cpu
        writers_cpu = cpu_seconds(pids) - writers_cpu
        finish.wait()
        for process in processes:
            process.join()
        rate = indexed / wall
        first = first or rate
        print(f"indexing   {count} writers: {indexed} analyses ({indexed * CAPTIONS:,}+ units) in {wall:.1f} s = "
              f"{rate:.1f} analyses/s, {rate * CAPTIONS:,.0f} units/s; CPU of {os.cpu_count()} cores: server "
              f"{cpu / wall / os.cpu_count():.0%}, writers {writers_cpu / wall / os.cpu_count():.0%}; "
              f"{rate / first:.2f}x one writer", flush=True)


def note_rows(admin_url: str, notes: int, scratch: Path) -> None:
    from videoreview.library.team.changes import Changes
    from videoreview.notes import changes

    url = new_database(admin_url, "bench_notes")
    (path, analysis), = made_analyses(1, scratch, 99)
    heard: list[float] = []
    stop = threading.Event()

    def listen() -> None:  # as the window's TeamListener: hear, then read the Analysis back
        with Changes(url) as changes_, TeamCatalog(url, readonly=True) as catalog:
            ready.set()
            while not stop.is_set():
                for change in changes_.wait(0.2):
                    catalog.analysis(change.video)
                    heard.append(time.perf_counter())

    ready = threading.Event()
    listener = threading.Thread(target=listen)
    listener.start()
    ready.wait()
    delays = []
    with TeamCatalog(url) as catalog:
        video_id, _ = catalog.add_video(path, analysis.content_hash)
        for n in range(notes):
            analysis = changes.add_note(analysis, changes.new_note(analysis, n, f"note {n}", author="Ada"))
            catalog.index_analysis(video_id, analysis, premade_vectors)
            committed = time.perf_counter()
            while len(heard) < n + 1:
                time.sleep(0.0005)
            delays.append((heard[n] - committed) * 1000)
    stop.set()
    listener.join()
    print(f"notes      {notes} notes, each heard and its Analysis read back by another connection: median "
          f"{statistics.median(delays):.1f} ms, worst {max(delays):.1f} ms after the writer's commit")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--units", type=int, nargs="*", default=[300_000, 1_000_000], help="none: no search rows")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--writers", type=int, nargs="+", default=[1, 4, 8])
    parser.add_argument("--notes", type=int, default=100)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="bench-team-pg-")
    admin_url = server.start(folder)
    print(f"server     PostgreSQL on {admin_url}, {os.cpu_count()} cores", flush=True)
    try:
        with tempfile.TemporaryDirectory(prefix="bench-team-") as scratch:
            note_rows(admin_url, args.notes, Path(scratch))
            indexing_rows(admin_url, folder, args.writers, Path(scratch))
            search_rows(admin_url, args.units, args.queries, Path(scratch))
    finally:
        server.stop(folder)
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
