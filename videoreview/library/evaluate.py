"""`videoreview eval retrieval`: the library's search scored on a file of queries.

The file is a JSON list (or ``{"queries": [...]}``) of
``{"query": "a man starts running", "video": "PATH or file name", "times": [12.4],
"set": "spatial" | "temporal"}``; ``times`` (or ``time``) and ``set`` are optional.
Each query is searched over the whole library (text-to-video retrieval: the videos in
the order of their best moment) and, when it has times, inside its target video
(grounding: as many moments as true times, each at the middle of its span).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import RecordError
from ..metrics.boundaries import TOLERANCES
from ..metrics.retrieval import KS, grounding_f1, rebias, retrieval_scores
from ..records import read_json
from .catalog import Catalog
from .search import Searcher

SETS = ("spatial", "temporal")
RANKED_MOMENTS = 200  # moments fetched per query to rank videos by their best one


@dataclass(frozen=True)
class Query:
    text: str
    video: str
    times: tuple[float, ...] = ()
    set: str | None = None


def load_queries(path: str | os.PathLike) -> list[Query]:
    data = read_json(path)
    items = data.get("queries") if isinstance(data, dict) else data
    if not isinstance(items, list) or not items:
        raise RecordError(path, 'expected a list of {"query", "video", "times", "set"} (or {"queries": [...]})')
    out = []
    for n, item in enumerate(items, 1):
        if not isinstance(item, dict) or not str(item.get("query", "")).strip() or not item.get("video"):
            raise RecordError(path, f"query {n} needs a non-empty 'query' and a 'video'")
        times = item.get("times", [item["time"]] if "time" in item else [])
        kind = item.get("set")
        if kind is not None and kind not in SETS:
            raise RecordError(path, f"query {n}: 'set' must be 'spatial' or 'temporal', not {kind!r}")
        try:
            times = tuple(float(t) for t in times)
        except (TypeError, ValueError):
            raise RecordError(path, f"query {n}: 'times' must be numbers of seconds") from None
        out.append(Query(str(item["query"]), str(item["video"]), times, kind))
    return out


def _video_ids(catalog: Catalog, queries: list[Query], path) -> list[int]:
    """Each query's target video id: by path (as given, or resolved), else by file name."""
    videos = catalog.videos()
    by_path = {v.path: v.id for v in videos}
    by_name: dict[str, list[int]] = {}
    for v in videos:
        by_name.setdefault(Path(v.path).name, []).append(v.id)
    out, unknown = [], []
    for q in queries:
        found = by_path.get(q.video) or by_path.get(os.path.realpath(q.video))
        if found is None and len(by_name.get(Path(q.video).name, [])) == 1:
            found = by_name[Path(q.video).name][0]
        if found is None:
            unknown.append(q.video)
        out.append(found)
    if unknown:
        raise RecordError(path, f"{len(unknown)} target video(s) are not in the library (or their name is "
                                f"ambiguous), e.g. {unknown[0]!r}; add them with 'videoreview library add'")
    return out


def evaluate(catalog: Catalog, searcher: Searcher, queries: list[Query], path,
             tolerances=TOLERANCES) -> dict:
    targets = _video_ids(catalog, queries, path)
    rankings: list[list[int]] = []
    predicted, truth = [], []
    for query, target in zip(queries, targets):
        moments = searcher.search(query.text, top=RANKED_MOMENTS)
        rankings.append(list(dict.fromkeys(m.video_id for m in moments)))
        if query.times:
            inside = searcher.search(query.text, top=len(query.times), video_id=target)
            predicted.append([(m.start + m.end) / 2 for m in inside])
            truth.append(list(query.times))
    as_text = [[str(v) for v in r] for r in rankings]
    overall = retrieval_scores(as_text, [str(t) for t in targets])
    report = {"queries": len(queries), "recall": {f"R@{k}": overall.recall[k] for k in KS},
              "mAP": overall.mean_average_precision}
    per_set = {}
    for name in SETS:
        members = [i for i, q in enumerate(queries) if q.set == name]
        if members:
            per_set[name] = retrieval_scores([as_text[i] for i in members], [str(targets[i]) for i in members])
            report[name] = {"queries": len(members), "recall": {f"R@{k}": per_set[name].recall[k] for k in KS}}
    if len(per_set) == 2:
        report["ReBias"] = rebias(per_set["temporal"], per_set["spatial"])
    if truth:
        scores = grounding_f1(predicted, truth, tolerances)
        report["grounding"] = {"queries": len(truth), "f1": {f"{s.tolerance:g}": s.f1 for s in scores},
                               "average_f1": sum(s.f1 for s in scores) / len(scores)}
    return report
