"""Adding files and folders to the library: catalogue, analyse what is new or changed,
index its units. Safe to stop at any point: a video's units are replaced in one
transaction after its analysis is saved, finished stages are in the stage cache, and a
video left 'analysing' by a stop is analysed again (quickly, from the cache) next time.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Cancelled, LibraryError, MediaError, RecordError
from ..media.files import find_videos
from ..paths import team_library_url
from ..pipeline import CancelToken, StageCache, store
from ..pipeline.analyse_and_save import analyse_and_save
from ..records import Analysis
from .catalog import Catalog, default_path
from .catalogs import open_catalog

# video path, what happened ("added", "moved", "unchanged", "indexed", "failed", ...), detail
Report = Callable[[str, str, str], None]


@dataclass
class AddResult:
    indexed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # path, problem (one line naming the file)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # not videos, unreadable folders
    elsewhere: list[str] = field(default_factory=list)  # being analysed by another machine (a team library)


def text_embedder():
    from ..engines.embeddings.minilm import TextEmbedder

    return TextEmbedder()


def add_paths(paths: Iterable[str | os.PathLike], *, catalog: Catalog | None = None, engines: dict | None = None,
              embedder=None, report: Report | None = None, cancel: CancelToken | None = None,
              progress=None, frames=None) -> AddResult:
    """Catalogue and index the videos in ``paths``. ``embedder`` defaults to the bundled
    text embedding; ``frames`` (a FrameEmbedder) adds frame vectors; ``progress`` is the
    pipeline's (stage, fraction, message)."""
    report = report or (lambda path, what, detail: None)
    cancel = cancel or CancelToken()
    own = catalog is None
    catalog = catalog or open_catalog()
    result = AddResult()
    cache = StageCache()
    try:
        for path, video_id, digest in catalogue(paths, catalog, result, report, cancel, cache):
            if not catalog.claim(video_id):
                result.elsewhere.append(path)
                report(path, "elsewhere", "being analysed by another machine")
                continue
            embedder = embedder or text_embedder()
            try:
                problem = index_one(catalog, video_id, path, digest, engines, embedder, cache, cancel, progress,
                                    frames)
            finally:
                catalog.release(video_id)
            if problem:
                result.failed.append((path, problem))
                report(path, "failed", problem)
            else:
                result.indexed.append(path)
                report(path, "indexed", "")
    finally:
        if own:
            catalog.close()
    return result


def catalogue(paths: Iterable[str | os.PathLike], catalog: Catalog, result: AddResult, report: Report,
              cancel: CancelToken, cache: StageCache,
              stale: Callable[[int], bool] | None = None) -> Iterator[tuple[str, int, str]]:
    """Catalogue the videos in ``paths`` one by one (hashing each: a moved file is
    recognised) and yield (path, video id, content hash) of those that need analysing
    (and, with ``stale``, of the unchanged ones it names: analysed with other engines);
    the rest go into ``result`` (unchanged, failed, skipped) and ``report``."""
    files, result.skipped = find_videos(paths)
    catalog.mark_missing()
    for path in files:
        cancel.check()
        try:
            digest = cache.content_hash(path)
        except OSError as exc:
            problem = f"{path}: {exc.strerror or exc}"
            result.failed.append((path, problem))
            report(path, "failed", problem)
            continue
        video_id, what = catalog.add_video(path, digest)
        if what in ("added", "moved"):
            report(path, what, "")
        if catalog.needs_analysis(video_id) or (stale is not None and stale(video_id)):
            yield path, video_id, digest
        else:
            result.unchanged.append(path)
            report(path, "unchanged", "")


def index_one(catalog: Catalog, video_id: int, path: str, content_hash: str, engines, embedder, cache: StageCache,
              cancel: CancelToken, progress=None, frames=None) -> str | None:
    """Analyse (reviewer edits kept, finished stages from the cache) and index one video;
    the problem in one line, or None. Cancelled propagates (the video stays 'analysing')."""
    catalog.set_status(video_id, "analysing")
    try:
        analysis = analyse_and_save(path, store.saved_for(content_hash), engines=engines, progress=progress,
                                    cancel=cancel, cache=cache)
    except Cancelled:
        raise
    except (MediaError, RecordError, OSError) as exc:
        problem = str(exc) if not isinstance(exc, OSError) else f"{path}: {exc.strerror or exc}"
        catalog.set_status(video_id, "failed", problem)
        return problem
    catalog.index_analysis(video_id, analysis, embedder.embed, frames)
    return None


def rebuild(embedder=None, report: Report | None = None, frames=None) -> tuple[Catalog, str | None]:
    """Make the library whole again from the saved analyses. A catalog that cannot be
    opened (damaged, from a newer videoreview) is moved aside, never deleted, and a new
    one made; then every saved analysis is indexed again and the vector index rebuilt.
    Returns the catalog and where the old file went (None when it was kept)."""
    report = report or (lambda path, what, detail: None)
    catalog, moved = (open_catalog(), None) if team_library_url() else _open_or_move_aside(default_path())
    embedder = embedder or text_embedder()
    known = {v.content_hash: v for v in catalog.videos()}
    for saved in sorted(store.saved_dir().glob("*.analysis.json")):
        try:
            analysis = Analysis.load(saved)
        except RecordError as exc:
            report(os.fspath(saved), "failed", str(exc))
            continue
        video = known.get(analysis.content_hash)
        if video is None:
            if not os.path.exists(analysis.video.path):
                report(analysis.video.path, "skipped", "the file is not there (or its path was relative)")
                continue
            video_id, _ = catalog.add_video(analysis.video.path, analysis.content_hash)
        else:
            video_id = video.id
        catalog.index_analysis(video_id, analysis, embedder.embed, frames)
        report(analysis.video.path, "indexed", "")
    catalog.mark_missing()
    if catalog.vector_index is not None:  # (a team library's vectors are indexed on the server)
        catalog.vector_index.rebuild()
    return catalog, os.fspath(moved) if moved else None


def _open_or_move_aside(path: Path) -> tuple[Catalog, Path | None]:
    """The local catalog at ``path``; one that cannot be opened is moved aside (never
    deleted) and a new one made. Returns it and where the old file went."""
    try:
        return Catalog(path), None
    except LibraryError as exc:
        if "locked" in exc.reason or "read-only" in exc.reason:
            raise
    moved = path.with_name(f"{path.name}.unusable-{time.strftime('%Y%m%d-%H%M%S')}")
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{path}{suffix}").exists():
            os.replace(f"{path}{suffix}", f"{moved}{suffix}")
    return Catalog(path), moved


def index_again(path: str | os.PathLike, analysis: Analysis) -> bool:
    """Index ``analysis`` (changed outside the window: a note added from the command line)
    where its video is in the chosen library; False where it is not."""
    if team_library_url() is None and not default_path().exists():
        return False  # no library here yet: nothing to make one for
    with open_catalog() as catalog:
        video = catalog.find(path)
        if video is None:
            return False
        catalog.index_analysis(video.id, analysis, text_embedder().embed)
        return True


def analysis_in_library(path: str | os.PathLike) -> Analysis | None:
    """The video's Analysis as the team library keeps it (None in a local library, whose
    analyses are this machine's saved files, or where the video is not in it)."""
    if team_library_url() is None:
        return None
    with open_catalog(readonly=True) as catalog:
        video = catalog.find(path)
        return catalog.analysis(video.id) if video is not None else None

