"""What runs on a cluster's workers: one actor holds the chosen engines and analyses one
video per call with the same ``analyse_and_save`` a local ``library add`` runs.

Plain Python (Ray is imported only to say where it runs): the driver wraps the class with ``ray.remote``, and the
workers import this module from their own videoreview install. Engines are made once per
process (engines/registry.py), so each actor loads each model once, on its first video.
Each worker keeps its own stage cache and model-server keys (its VIDEOREVIEW_HOME, its
environment or keyring): no key is ever an argument of a task.
"""

from __future__ import annotations

import json
import socket
import sys
import time
import traceback

from ..errors import MediaError, RecordError, VideoReviewError
from ..pipeline import StageCache, build_stages
from ..pipeline.analyse_and_save import analyse_and_save
from ..records import Analysis

SHARED = "the workers must see the videos at the same path as this machine (shared storage, docs/cluster.md)"


def node_name() -> str:
    """Where this process runs, for the user: host, address and Ray's node id."""
    host = socket.gethostname()
    try:
        import ray

        context = ray.get_runtime_context()
        return f"{host} ({ray.util.get_node_ip_address()}, node {context.get_node_id()[:8]})"
    except Exception:  # outside Ray (the tests call the class directly)
        return host


class Analyser:
    """One actor: ``ready()`` once, then ``analyse(path, content hash, previous)`` per video."""

    def __init__(self, engines: dict[str, str], servers: list[dict], library: str | None = None) -> None:
        self.engines = dict(engines)
        self.library = library  # a team library's URL: this worker indexes into it itself
        self._indexer = None  # (team catalog, text embedder), made on the first video
        self.node = node_name()
        self.cache = StageCache()
        self.stages: dict[str, str] = {}
        self.problem = ""  # why this worker cannot make the engines (said by ready(), not raised:
        # Ray cannot always carry an exception raised while an actor starts back to the driver)
        try:
            _define_servers(servers)
            # The engines' names per stage, made now (models load on the first video): the
            # driver compares them with what the catalog holds, to send nothing twice.
            self.stages = {stage.name: stage.engine.name for stage in build_stages(self.engines)}
        except Exception as exc:
            traceback.print_exc(file=sys.stderr)
            self.problem = f"{self.node} cannot make the chosen engines: {type(exc).__name__}: {exc}"

    def ready(self) -> dict:
        return {"node": self.node, "stages": self.stages, "problem": self.problem}

    def analyse(self, path: str, content_hash: str, previous: str | None, video_id: int | None = None) -> dict:
        """{"analysis": JSON text, ...}, with a team library {"indexed": True, ...} once
        indexed there under ``video_id``, or {"problem": one line naming the file}; never
        raises for a video's problem, so one bad file fails alone."""
        started = time.monotonic()
        notices: list[str] = []
        done = {"node": self.node, "notices": notices}
        try:
            _readable(path, self.node)
            earlier = Analysis.from_dict(json.loads(previous)) if previous else None
            analysis = analyse_and_save(path, earlier, save=False, engines=self.engines, cache=self.cache,
                                        notice=notices.append)
        except (MediaError, RecordError, OSError) as exc:
            problem = str(exc) if not isinstance(exc, OSError) else f"{path}: {exc.strerror or exc}"
            return {**done, "problem": f"{problem} (on {self.node})"}
        except Exception as exc:  # a bug: the file fails with its reason, the run goes on
            traceback.print_exc(file=sys.stderr)  # into the worker's log on the cluster
            return {**done, "problem": f"{path}: analysis failed on {self.node}: {type(exc).__name__}: {exc}"}
        if analysis.content_hash != content_hash:
            return {**done, "problem": f"{path}: the file on {self.node} is not the one on this machine (its "
                                       f"content differs); {SHARED}"}
        if self.library and video_id is not None:
            try:
                self._index(video_id, analysis)
            except VideoReviewError as exc:  # the server refused or cannot be reached from here
                return {**done, "problem": f"{path}: analysed on {self.node} but not indexed ({exc})"}
            return {**done, "indexed": True, "seconds": round(time.monotonic() - started, 3)}
        return {**done, "analysis": analysis.to_json(), "seconds": round(time.monotonic() - started, 3)}

    def _index(self, video_id: int, analysis: Analysis) -> None:
        """Index into the team library from this worker: the asking machine is not the
        single writer (its catalog connection and the text embedding are made once)."""
        if self._indexer is None:
            from ..library.indexer import text_embedder
            from ..library.team.catalog import TeamCatalog

            self._indexer = (TeamCatalog(self.library), text_embedder())
        catalog, embedder = self._indexer
        catalog.index_analysis(video_id, analysis, embedder.embed)


def _readable(path: str, node: str) -> None:
    try:
        with open(path, "rb") as handle:
            handle.read(1)
    except OSError as exc:
        raise MediaError(path, f"cannot be read on {node} ({exc.strerror or exc}); {SHARED}") from None


def _define_servers(entries: list[dict]) -> None:
    """The model servers the chosen engines name, as the asking machine defines them (URL,
    model, where the key is: never the key), made known in this worker's home."""
    if not entries:
        return
    from ..models.servers import Server, add_server, servers

    known = servers()
    for entry in entries:
        server = Server(**entry)
        if known.get(server.name) != server:
            try:
                add_server(server)
            except VideoReviewError as exc:
                print(f"videoreview: model server {server.name}: {exc}", file=sys.stderr)
