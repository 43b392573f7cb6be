"""The library's search on real footage: plain-word queries written from the corpus's truth.

    .venv/bin/python benchmarks/real_search.py [--keep DIR] [--engines KEY=NAME ...] [-v]

Every fetched clip of the real-footage corpus (benchmarks/corpus/) is analysed as
benchmarks/real_labels.py does (the same stage cache) and indexed into one fresh library
(the real SQLite catalog, FTS5 and the bundled text embedding) under a neutral file name
("video07.mp4"), so that only what the analysis says can find it. Each clip's ``queries``
(truth.toml: written from what a person sees, never from the app's output) are searched
over the whole library; a query is right at rank k when its clip is among the first k
videos. Prints rank-1 and rank-5 accuracy for the tuning part and the held-out part apart.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from real_corpus import clips_dir, corpus, present  # noqa: E402
from real_labels import analysed  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, default=clips_dir().parent / "real-analyses")
    parser.add_argument("--engines", nargs="*", default=[], metavar="KEY=NAME")
    parser.add_argument("-v", "--verbose", action="store_true", help="each query with the rank of its clip")
    args = parser.parse_args()
    os.environ.setdefault("VIDEOREVIEW_HOME", tempfile.mkdtemp(prefix="bench-real-search-"))
    from videoreview.library.catalog import Catalog
    from videoreview.library.evaluate import RANKED_MOMENTS
    from videoreview.library.indexer import text_embedder
    from videoreview.library.search import Searcher
    from videoreview.metrics.retrieval import retrieval_scores

    clips = present(corpus())
    embedder = text_embedder()
    ids: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as scratch, Catalog(Path(scratch) / "library.sqlite3") as catalog:
        for n, (clip, analysis) in enumerate(analysed(clips, args.keep, args.engines)):
            neutral = str(Path(scratch) / f"video{n:02d}{clip.path.suffix}")
            shutil.copyfile(clip.path, neutral)  # a copy, not a link: the catalog resolves links to their target
            video_id, _ = catalog.add_video(neutral, analysis.content_hash)
            catalog.index_analysis(video_id, replace(analysis, video=replace(analysis.video, path=neutral)),
                                   embedder.embed)
            ids[clip.name] = video_id
        searcher = Searcher(catalog, embedder)
        for part in ("tuning", "held-out"):
            rankings, targets = [], []
            for clip in (c for c in clips if c.part == part):
                for query in clip.truth.get("queries", []):
                    moments = searcher.search(query, top=RANKED_MOMENTS)
                    rankings.append([str(v) for v in dict.fromkeys(m.video_id for m in moments)])
                    targets.append(str(ids[clip.name]))
                    if args.verbose:
                        rank = rankings[-1].index(targets[-1]) + 1 if targets[-1] in rankings[-1] else "-"
                        print(f"{part:8} {clip.name:36} {query!r}: rank {rank}")
            if rankings:
                recall, n = retrieval_scores(rankings, targets, ks=(1, 5)).recall, len(rankings)
                print(f"{part} part: {n} queries, rank 1: {round(recall[1] * n)}/{n} = {recall[1]:.2f}, "
                      f"rank 5: {round(recall[5] * n)}/{n} = {recall[5]:.2f}")


if __name__ == "__main__":
    main()
