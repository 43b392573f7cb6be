"""The asking side of ``library add --cluster``: catalogue here, send each video that needs
analysing to a pool of actors on the cluster, and index each Analysis here as it comes
back, in order of completion. With a team library the workers index into it themselves
(the asking machine is not the single writer) and send back only that they did.

Nothing lost, nothing twice:
- a video is marked 'analysing' when it is sent and indexed in one transaction when its
  Analysis arrives (the same ``Catalog.index_analysis`` as a local add), so a run killed
  at any point leaves the catalog as a local one would, and the next run sends again
  only what is not done;
- what the catalog holds already, unchanged and analysed with the same engines (by
  stage), is not sent;
- an actor whose node dies fails its call with Ray's actor error: its video goes back
  to the front of the queue for another actor (at most ``ATTEMPTS`` times) and a
  replacement actor is asked for. Ray's own actor restarts are not used: a restarted
  actor waits for room on a live node, and the pool's other actors hold that room.
"""

from __future__ import annotations

import json
import os
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import asdict, dataclass

from ..engines import registry
from ..errors import VideoReviewError
from ..library.catalog import Catalog
from ..library.catalogs import open_catalog
from ..library.indexer import AddResult, Report, catalogue, text_embedder
from ..paths import team_library_url
from ..pipeline import CancelToken, StageCache, store
from ..records import Analysis
from .connect import connect, disconnect
from .worker import Analyser

ATTEMPTS = 3  # sends of one video whose actor died before it is failed
WAIT_FOR_WORKERS = 600.0  # seconds with videos queued and no actor able to take them
POLL = 0.5  # seconds between looks at the cluster while hashing


@dataclass
class Job:
    path: str
    video_id: int
    content_hash: str
    attempts: int = 0


def can_use_gpu(engines: dict[str, str]) -> bool:
    """Whether one of the chosen engines runs its networks on a GPU when it has one (a
    model server's engine does not: its model is elsewhere)."""
    for key, name in engines.items():
        if name.startswith(registry.SERVER) or key not in registry.CAPABILITIES:
            continue
        row = registry.capability(key)
        runtime = row.builtins[name].runtime if name in row.builtins else row.model_runtime
        if runtime != "cpu" and not (name in row.builtins and row.builtins[name] is registry.OFF):
            return True
    return False


def server_entries(engines: dict[str, str]) -> list[dict]:
    """The definitions (URL, model, key variable; never a key) of the model servers the
    engines name, for the workers."""
    names = {name.removeprefix(registry.SERVER) for name in engines.values() if name.startswith(registry.SERVER)}
    if not names:
        return []
    from ..models.servers import server

    return [asdict(server(name)) for name in sorted(names)]


def engine_names(engines_json: str) -> dict[str, str]:
    """{stage: engine name} of an Analysis's ``engines`` ({stage: "name@version"})."""
    return {stage: made.rpartition("@")[0] or made for stage, made in json.loads(engines_json).items()}


class Pool:
    """The actors on the cluster: started, ready (idle), busy, and replaced when lost."""

    def __init__(self, ray, engines: dict[str, str], size: int | None, report: Report,
                 library: str | None = None) -> None:
        self.ray = ray
        self.report = report
        resources = ray.cluster_resources()
        gpus = int(resources.get("GPU", 0)) if can_use_gpu(engines) else 0
        self.size = size or max(1, gpus or int(resources.get("CPU", 1)))
        self.remote = ray.remote(Analyser).options(num_cpus=1, num_gpus=1 if gpus else 0, max_restarts=0,
                                                   max_task_retries=0)
        self.args = (engines, server_entries(engines), library)
        self.starting: dict[object, object] = {}  # ready ref -> actor
        self.idle: deque = deque()
        self.where: dict[object, str] = {}  # actor -> node name
        self.stages: dict[str, str] | None = None  # the first ready actor's
        self.replacements = 2 * self.size
        self.problems: list[str] = []  # why workers could not start, each said once
        for _ in range(self.size):
            self._start()

    def _start(self) -> None:
        actor = self.remote.remote(*self.args)
        self.starting[actor.ready.remote()] = actor

    def replace(self) -> None:
        if self.replacements > 0:
            self.replacements -= 1
            self._start()

    def started(self, ref) -> None:
        """A ready call came back: the actor is idle, or it never started."""
        actor = self.starting.pop(ref)
        try:
            info = self.ray.get(ref)
        except Exception as exc:  # its node died on the way: another is asked for
            self._said(f"a worker did not start: {_one_line(exc)}")
            self.replace()
            return
        if info["problem"]:  # the engines cannot be made there: another would fail the same way
            self._said(info["problem"])
            self.ray.kill(actor)
            return
        self.stages = self.stages or info["stages"]
        self.where[actor] = info["node"]
        self.idle.append(actor)

    def _said(self, problem: str) -> None:
        if problem not in self.problems:
            self.problems.append(problem)
            self.report("", "notice", problem)

    def first_stages(self, deadline: float) -> dict[str, str]:
        """{stage: engine name} as the workers make them (waits for the first actor)."""
        while self.stages is None:
            if not self.starting or time.monotonic() > deadline:
                raise VideoReviewError(f"no worker of the cluster could start the analysis: {self.why()}")
            ready, _ = self.ray.wait(list(self.starting), num_returns=1, timeout=POLL)
            for ref in ready:
                self.started(ref)
        return self.stages

    def why(self) -> str:
        return self.problems[-1] if self.problems else "none started in time (see the cluster's logs)"

    def close(self) -> None:
        for actor in [*self.idle, *self.starting.values(), *self.where]:
            try:
                self.ray.kill(actor)
            except Exception:
                pass


def add_on_cluster(paths: Iterable[str | os.PathLike], address: str, engines: dict[str, str], *,
                   catalog: Catalog | None = None, embedder=None, frames=None, report: Report | None = None,
                   actors: int | None = None, cancel: CancelToken | None = None) -> AddResult:
    """``library add`` with the analysis on the Ray cluster at ``address``. ``report``
    gets (path, what, detail) with what one of added, moved, unchanged, queued, running
    (detail: the node), retrying (why), indexed (node), failed (the problem), notice."""
    report = report or (lambda path, what, detail: None)
    cancel = cancel or CancelToken()
    ray = connect(address, notice=lambda line: report("", "notice", line), cancel=cancel)
    own = catalog is None
    catalog = catalog or open_catalog()
    result = AddResult()
    pool = None
    try:
        library = team_library_url()  # the workers index into a team library themselves
        pool = Pool(ray, engines, actors, report, library)
        run = _Run(ray, pool, catalog, result, report, embedder, frames)
        deadline = time.monotonic() + WAIT_FOR_WORKERS

        def stale(video_id: int) -> bool:  # unchanged, but analysed with other engines
            row = catalog.query("SELECT engines FROM analyses WHERE video_id = ?", (video_id,))
            return not row or engine_names(row[0][0]) != pool.first_stages(deadline)

        for path, video_id, digest in catalogue(paths, catalog, result, report, cancel, StageCache(), stale):
            run.queue.append(Job(path, video_id, digest))
            report(path, "queued", "")
            run.step(timeout=0)
        while run.queue or run.busy:
            cancel.check()
            run.step(timeout=POLL)
    finally:
        if pool is not None:
            pool.close()
        disconnect()
        if own:
            catalog.close()
    return result


class _Run:
    """One run's queue and the calls in flight; ``step`` sends and takes what is done."""

    def __init__(self, ray, pool: Pool, catalog: Catalog, result: AddResult, report: Report, embedder, frames):
        self.ray, self.pool, self.catalog, self.result, self.report = ray, pool, catalog, result, report
        self.embedder, self.frames = embedder, frames
        self.queue: deque[Job] = deque()
        self.busy: dict[object, tuple[Job, object]] = {}  # analyse ref -> (job, actor)
        self.since = time.monotonic()  # last time something was running or done

    def step(self, timeout: float) -> None:
        self._send()
        waiting = [*self.busy, *self.pool.starting]
        if not waiting:
            if self.queue:
                raise VideoReviewError(f"no worker of the cluster is left to analyse {len(self.queue)} videos: "
                                       f"{self.pool.why()}")
            return
        ready, _ = self.ray.wait(waiting, num_returns=1, timeout=timeout)
        for ref in ready:
            if ref in self.pool.starting:
                self.pool.started(ref)
            else:
                self._finished(ref)
        if self.busy or not self.queue:
            self.since = time.monotonic()
        elif time.monotonic() - self.since > WAIT_FOR_WORKERS:
            raise VideoReviewError(f"the cluster has had no room for a worker for {WAIT_FOR_WORKERS:.0f} s "
                                   f"({len(self.queue)} videos not sent)")
        self._send()

    def _send(self) -> None:
        while self.queue and self.pool.idle:
            job = self.queue.popleft()
            if job.attempts == 0 and not self.catalog.claim(job.video_id):  # (kept through retries)
                self.result.elsewhere.append(job.path)
                self.report(job.path, "elsewhere", "being analysed by another machine")
                continue
            actor = self.pool.idle.popleft()
            job.attempts += 1
            self.catalog.set_status(job.video_id, "analysing")  # a stop leaves it to be sent again
            # The reviewer's edits and notes are kept, as locally (a team library's are in its catalog).
            previous = store.saved_for(job.content_hash) or self.catalog.analysis(job.video_id)
            ref = actor.analyse.remote(job.path, job.content_hash, previous.to_json() if previous else None,
                                       job.video_id)
            self.busy[ref] = (job, actor)
            self.report(job.path, "running", self.pool.where[actor])
        if self.busy and self.embedder is None and self.catalog.vector_index is not None:
            self.embedder = text_embedder()  # loads (seconds) while the first videos are analysed

    def _finished(self, ref) -> None:
        job, actor = self.busy.pop(ref)
        try:
            done = self.ray.get(ref)
        except Exception as exc:  # the actor (its node, its process) died: Ray's actor errors
            self._lost(job, actor, exc)
            return
        self.pool.idle.append(actor)
        try:
            self._take(job, done)
        finally:
            self.catalog.release(job.video_id)

    def _take(self, job: Job, done: dict) -> None:
        """What an actor sent back for ``job``: indexed here, by it, or failed."""
        for line in done.get("notices", ()):
            self.report(job.path, "notice", line)
        if "problem" in done:
            self._failed(job, done["problem"])
            return
        if done.get("indexed"):  # by the worker, into the team library
            self.result.indexed.append(job.path)
            self.report(job.path, "indexed", f"{done['seconds']:.1f} s on {done['node']}, by it")
            return
        try:
            analysis = Analysis.from_dict(json.loads(done["analysis"]))
            store.save(analysis)  # the library folder of this machine, as a local run saves it
        except (VideoReviewError, OSError, ValueError) as exc:
            self._failed(job, f"{job.path}: the analysis from {done['node']} could not be saved here ({exc})")
            return
        self.catalog.index_analysis(job.video_id, analysis, self.embedder.embed, self.frames)
        self.result.indexed.append(job.path)
        self.report(job.path, "indexed", f"{done['seconds']:.1f} s on {done['node']}")

    def _lost(self, job: Job, actor, exc: Exception) -> None:
        where = self.pool.where.pop(actor, "a worker")
        why = f"lost on {where} ({_one_line(exc)})"
        try:
            self.ray.kill(actor)  # "unavailable" may come back later: its place goes to the replacement
        except Exception:
            pass
        self.pool.replace()
        if job.attempts >= ATTEMPTS:
            self._failed(job, f"{job.path}: {why}, {job.attempts} times")
            self.catalog.release(job.video_id)
            return
        self.queue.appendleft(job)
        self.report(job.path, "retrying", why)

    def _failed(self, job: Job, problem: str) -> None:
        self.catalog.set_status(job.video_id, "failed", problem)
        self.result.failed.append((job.path, problem))
        self.report(job.path, "failed", problem)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    first = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {first[:200]}" if first else type(exc).__name__
