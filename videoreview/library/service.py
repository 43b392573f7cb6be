"""The library for a window: one long-lived child process that owns the catalog and the
text embedding and answers the window's requests one at a time.

Why a process: the embedding imports torch and transformers (about 8 s on a 2-core
machine), which hold Python's GIL for long stretches and would freeze a window that ran
them on a thread of its own process (see pipeline.child). The model stays loaded between
requests, so a search costs a query embedding (about 20 ms) and the search itself.

Protocol: the window sends ``(request id, action, args)`` and gets back
``(request id, "progress", payload)`` any number of times, then
``(request id, "ok", result)`` or ``(request id, "error", one line)``. ``None`` ends
the loop. The analysis itself stays with the window's analysis queue: ``add`` only
catalogues and says which videos need analysing; ``index`` takes a finished one. With a
cluster address set (Settings > Cluster), ``add_on_cluster`` sends them to a Ray cluster
instead and indexes each as it comes back (cluster.driver, handed to ``serve`` by the
window: the cluster layer sits above this one, which does not import it). A cluster run
can last hours, so it runs on a thread of its own, with its own connection to the catalog,
and the other requests (a search) are answered meanwhile, one at a time.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from ..errors import Cancelled, LibraryError, VideoReviewError
from ..pipeline import CancelToken, StageCache, store
from .catalog import Catalog
from .catalog_reads import Video
from .catalogs import open_catalog
from .frames import chosen_frame_embedder
from .indexer import AddResult, catalogue, rebuild, text_embedder
from .search import LibraryNote, Moment, NoteFilter, Searcher, list_notes, query_words

Progress = Callable[[object], None]
BESIDE = ("add_on_cluster",)  # actions answered on a thread of their own (see above)
_LOADING = threading.Lock()


class OnFirstUse:
    """An embedder made when first asked to embed."""

    def __init__(self, make: Callable) -> None:
        self._make = make

    def embed(self, texts):
        return self._make().embed(texts)


class OneAtATime:
    """An embedder used by one thread at a time: a cluster run indexes while a search
    embeds its query."""

    def __init__(self, embedder) -> None:
        self._embedder, self._lock = embedder, threading.Lock()

    def embed(self, texts):
        with self._lock:
            return self._embedder.embed(texts)

    def __getattr__(self, name):
        return getattr(self._embedder, name)


class LibraryService:
    """What the child does for each action (plain methods: tested without a process)."""

    def __init__(self, embedder=None, cluster: Callable | None = None) -> None:
        self._catalog: Catalog | None = None
        self._cluster = cluster  # cluster.driver.add_on_cluster, or None
        self._embedder = OneAtATime(embedder) if embedder is not None else None
        self._searcher: Searcher | None = None
        self._frames = None
        self.cancel = CancelToken()
        self.cluster_cancel: CancelToken | None = None  # the cluster run's, while one runs
        self._indexed_beside = threading.Event()  # the cluster run indexed a video: searches reload vectors

    @property
    def catalog(self) -> Catalog:
        if self._catalog is None:  # opened on demand: a damaged file is reported by each request
            self._catalog = open_catalog()
        return self._catalog

    @property
    def embedder(self):
        with _LOADING:  # a search and a cluster run may ask for it at once
            if self._embedder is None:
                self._embedder = OneAtATime(text_embedder())
        return self._embedder

    @property
    def frames(self):
        """The chosen image-text model (frame search), or None; loaded again only when
        the choice changes (in the Models dialog, say)."""
        frames = chosen_frame_embedder(self._frames)
        if frames is not self._frames:
            self._frames, self._searcher = frames, None
        return frames

    def stop(self) -> None:
        """The window's Stop: ends the cataloguing of an ``add`` and a run on the cluster."""
        self.cancel.cancel()
        if self.cluster_cancel is not None:
            self.cluster_cancel.cancel()

    def close(self) -> None:
        if self._catalog is not None:
            self._catalog.close()
            self._catalog = self._searcher = None

    # -- actions ------------------------------------------------------------------------
    def add(self, paths: list[str], progress: Progress) -> dict:
        """Catalogue files and folders; each video that needs analysing is sent as
        progress ``("wanted", path)`` at once, so its analysis can start while the rest
        are hashed. Returns counts and problems."""
        self.cancel = CancelToken()
        result = AddResult()
        wanted = []

        def report(path: str, what: str, detail: str) -> None:
            progress((what, path))

        try:
            for path, _, _ in catalogue(paths, self.catalog, result, report, self.cancel, StageCache()):
                wanted.append(path)
                progress(("wanted", path))
        except Cancelled:
            pass
        return {"wanted": wanted, "unchanged": len(result.unchanged), "failed": result.failed,
                "skipped": result.skipped}

    def add_on_cluster(self, paths: list[str], address: str, engines: dict[str, str] | None,
                       progress: Progress) -> dict:
        """``add`` with the analysis on the Ray cluster at ``address`` (``engines`` None:
        those chosen). Everything is catalogued here first, so a cluster that cannot be
        used (a bad address, no Ray, unreachable) loses nothing: its videos wait as 'new'
        and ``problem`` says why in one line. The driver's reports go on as progress
        ``("cluster", what, path, detail)``; the window's stop cancels the run."""
        if self._cluster is None:
            raise VideoReviewError("library: this library process was started without the cluster's driver")
        if self.cluster_cancel is not None:
            raise VideoReviewError("library: a run on the cluster is going on: stop it, or wait for it, first")
        cancel = self.cluster_cancel = CancelToken()
        catalog = open_catalog()  # its own connection: the requests answered meanwhile use the other
        result = AddResult()
        wanted: list[str] = []
        indexed: list[str] = []
        failed: list[tuple[str, str]] = []
        problem, stopped = None, False

        def report(path: str, what: str, detail: str) -> None:
            if what == "indexed":
                indexed.append(path)
                self._indexed_beside.set()
            elif what == "failed":
                failed.append((path, detail))
            progress(("cluster", what, path, detail))

        try:
            for path, _, _ in catalogue(paths, catalog, result, lambda path, what, detail: progress((what, path)),
                                        cancel, StageCache()):
                wanted.append(path)
            if wanted:
                if engines is None:
                    from ..choices import choose

                    engines = choose(lambda line: report("", "notice", line)).analysis_engines()
                # The driver hashes the wanted files again: the stage cache knows them by
                # path, size and time, so that costs a look-up each.
                # The text embedding searches use too, loaded when the first video is indexed.
                embedder = OnFirstUse(lambda: self.embedder)
                self._cluster(wanted, address, engines, catalog=catalog, embedder=embedder,
                              frames=self.frames, report=report, cancel=cancel)
        except Cancelled:
            stopped = True
        except VideoReviewError as exc:
            problem = str(exc)
        finally:
            catalog.close()
            self.cluster_cancel = None
        return {"wanted": wanted, "unchanged": len(result.unchanged), "failed": result.failed + failed,
                "skipped": result.skipped, "indexed": indexed, "problem": problem, "stopped": stopped}

    def resume(self) -> list[str]:
        """Bring the library up to date after a stop: analyses saved since they were
        indexed (an edit made as the window closed, or from the command line) are indexed
        again; returns the catalogued videos whose analysis never finished, their files
        still there, for the window to queue."""
        for _video_id, path, content_hash, indexed_at in self.catalog.indexed():
            try:
                saved_at = store.saved_path(content_hash).stat().st_mtime
            except OSError:
                continue
            if saved_at > indexed_at:
                self.index(path, content_hash)
        return [v.path for v in self.catalog.videos() if v.status in ("new", "analysing") and os.path.exists(v.path)]

    def index(self, path: str, content_hash: str) -> int:
        """Index the saved analysis of ``path`` (after an analysis or a reviewer's edit);
        a video not yet in the library is added. Returns the number of units."""
        analysis = store.load_saved(content_hash)
        if analysis is None:
            raise LibraryError(path, "has no saved analysis to index")
        video_id, _ = self.catalog.add_video(path, content_hash)
        count = self.catalog.index_analysis(video_id, analysis, self.embedder.embed, self.frames)
        if self._searcher is not None:  # take the new vectors in now, not in the user's next search
            self._warm_vectors()
        return count

    def _warm_vectors(self) -> None:
        """The local library's FAISS index brought up to date (the team library's is on the server)."""
        index = getattr(self.catalog, "vector_index", None)
        if index is not None:
            index.index()

    def failed(self, path: str, message: str) -> None:
        """An analysis failed: a catalogued video says why (others are not added)."""
        video = self.catalog.find(path)
        if video is not None:
            self.catalog.set_status(video.id, "failed", message)

    def videos(self) -> list[Video]:
        self.catalog.mark_missing()
        return self.catalog.videos()

    def remove(self, video_id: int) -> bool:
        return self.catalog.remove(video_id)

    def search(self, query: str, top: int = 50, video_path: str | None = None, identity: str | None = None,
               kind: str | None = None, tag: str | None = None, status: str | None = None,
               author: str | None = None) -> list[Moment]:
        """Moments for ``query``; with ``video_path``, only in that video (grounding);
        ``kind`` one kind of unit; ``tag``, ``status``, ``author`` only such notes."""
        query_words(query)  # an empty query fails before anything loads
        video_id = None
        if video_path is not None:
            video = self.catalog.find(video_path)
            if video is None or video.status == "new":
                raise LibraryError(video_path, "is not in the library yet (its analysis has not finished)")
            video_id = video.id
        frames = self.frames  # first: a changed choice drops the searcher
        if self._searcher is None:
            self._searcher = Searcher(self.catalog, self.embedder, frames)
        elif self._indexed_beside.is_set():  # a cluster run indexed videos since the last search
            self._indexed_beside.clear()
            self._warm_vectors()
        return self._searcher.search(query, top=top, video_id=video_id, identity=identity or None, kind=kind,
                                     notes=NoteFilter(tag, status, author))

    def notes(self, status: str | None = "open", tag: str | None = None,
              author: str | None = None) -> list[LibraryNote]:
        """Reviewers' notes across the library (``status`` None: open and resolved)."""
        return list_notes(self.catalog, NoteFilter(tag, status, author))

    def rebuild(self) -> str | None:
        """`videoreview library rebuild`: where an unusable catalog was moved, or None."""
        self.close()
        self._catalog, moved = rebuild(self.embedder, frames=self.frames)
        return moved


def serve(conn, cancel_event, cluster: Callable | None = None) -> None:
    """The child's entry point (importable without Qt): answer requests until ``None`` or
    the pipe closes. ``cancel_event`` stops a running ``add``; ``cluster`` is
    cluster.driver.add_on_cluster, for ``add_on_cluster`` requests."""
    service = LibraryService(cluster=cluster)
    # Pass the window's stop on to the token the running action checks.
    threading.Thread(target=_watch, args=(cancel_event, service), daemon=True).start()
    sending = threading.Lock()  # replies come from this thread and from a cluster run's

    def send(reply: tuple) -> None:
        with sending:
            conn.send(reply)

    try:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                break
            if message is None:
                break
            if message[1] in BESIDE:
                threading.Thread(target=_answer, args=(service, *message, send), daemon=True).start()
            else:
                _answer(service, *message, send)
    finally:
        service.close()
        conn.close()


def _answer(service: LibraryService, request_id: int, action: str, args: tuple, send: Callable[[tuple], None]
            ) -> None:
    try:
        result = _call(service, action, args, lambda payload: send((request_id, "progress", payload)))
        send((request_id, "ok", result))
    except VideoReviewError as exc:
        send((request_id, "error", str(exc)))
    except OSError:  # the window has gone
        pass
    except Exception as exc:  # a bug: report it to the window rather than die silently
        import traceback

        traceback.print_exc()
        send((request_id, "error", f"library: unexpected error in {action}: {exc!r}"))


def _call(service: LibraryService, action: str, args: tuple, progress: Progress):
    if action in ("add", "add_on_cluster"):
        return getattr(service, action)(*args, progress=progress)
    if action not in ("resume", "index", "failed", "videos", "remove", "search", "notes", "rebuild"):
        raise VideoReviewError(f"library: unknown request {action!r}")
    return getattr(service, action)(*args)


def _watch(event, service: LibraryService) -> None:
    while True:
        event.wait()
        event.clear()
        service.stop()
