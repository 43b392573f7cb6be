"""A Ray cluster on this machine, bound to loopback: a head and worker nodes started with
``ray start --block`` as separate processes (so each can be stopped, or its raylet
killed, by pid). For the tests and the benchmark, and to try ``--cluster`` on one
machine; a real cluster is started as docs/cluster.md says.

Every address is 127.0.0.1 and every port is given: Ray otherwise advertises the host's
routable address. The nodes get Ray's token authentication when ``token_path`` is given,
and usage statistics are off.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import VideoReviewError

LOOPBACK = "127.0.0.1"
PORTS_PER_NODE = 40  # node manager, object manager, agents, metrics, client, and the workers' range
START_SECONDS = 60.0


@dataclass
class Node:
    process: subprocess.Popen  # ``ray start --block``: its children are the node's processes
    home: Path | None  # the VIDEOREVIEW_HOME its workers use
    log: Path
    node_id: str = ""  # Ray's, read from the raylet's command line once it runs
    raylet_pid: int = 0
    seen: dict[int, object] = field(default_factory=dict)  # pid -> psutil.Process of each process of the node

    def look(self) -> list:
        """The node's processes now (the children of ``ray start``), each kept in ``seen``."""
        found = _children(self.process.pid)
        for child in found:
            self.seen.setdefault(child.pid, child)
        return found


class LocalCluster:
    """``start()`` a head and ``workers`` more nodes, ``cpus`` logical CPUs each; ``stop()``
    ends every process started, by pid. ``homes``: a VIDEOREVIEW_HOME per node (head
    first), so that each node's workers keep their own stage cache."""

    def __init__(self, folder: Path, workers: int = 1, cpus: int = 1, homes: list[Path] | None = None,
                 base_port: int | None = None, token_path: Path | None = None, env: dict | None = None) -> None:
        self.folder = Path(folder)
        self.workers, self.cpus = workers, cpus
        self.homes = homes or [None] * (workers + 1)
        self.base = base_port or free_port_block(PORTS_PER_NODE * (workers + 1) + 1)
        self.token_path = token_path
        self.env = env or {}
        self.nodes: list[Node] = []
        self.temp: Path | None = None  # Ray's sessions: a short path (its socket paths must fit 107 bytes)

    @property
    def address(self) -> str:
        return f"{LOOPBACK}:{self.base}"

    @property
    def client_address(self) -> str:
        return f"ray://{LOOPBACK}:{self._ports(0)['ray-client-server-port']}"

    def environment(self) -> dict[str, str]:
        """What a process needs to join or use the cluster (token, no usage statistics)."""
        env = {**os.environ, **self.env, "RAY_USAGE_STATS_ENABLED": "0"}
        if self.token_path is not None:
            env.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=os.fspath(self.token_path))
            env.pop("RAY_AUTH_TOKEN", None)
        return env

    def _ports(self, n: int) -> dict[str, int]:
        first = self.base + 1 + n * PORTS_PER_NODE
        names = ("node-manager-port", "object-manager-port", "dashboard-agent-listen-port",
                 "dashboard-agent-grpc-port", "runtime-env-agent-port", "metrics-export-port",
                 "ray-client-server-port")
        ports = {name: first + k for k, name in enumerate(names)}
        ports["min-worker-port"], ports["max-worker-port"] = first + 10, first + PORTS_PER_NODE - 1
        return ports

    def start(self) -> LocalCluster:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.temp = Path(tempfile.mkdtemp(prefix="vr-ray-", dir="/tmp"))
        if self.token_path is not None and not self.token_path.exists():
            import secrets

            self.token_path.write_text(secrets.token_hex(32))
            self.token_path.chmod(0o600)
        try:
            for n in range(self.workers + 1):
                self._start_node(n)
        except BaseException:
            self.stop()
            raise
        return self

    def _start_node(self, n: int) -> None:
        ports = self._ports(n)
        if n:
            ports.pop("ray-client-server-port")
        ray = Path(sys.executable).with_name("ray")
        args = [os.fspath(ray), "start", "--block", f"--node-ip-address={LOOPBACK}", f"--num-cpus={self.cpus}",
                "--num-gpus=0", "--disable-usage-stats", "--object-store-memory=100000000",
                *(f"--{name}={port}" for name, port in ports.items())]
        if n == 0:
            args += ["--head", f"--port={self.base}", "--include-dashboard=false", f"--temp-dir={self.temp}"]
        else:
            args += [f"--address={self.address}"]
        env = self.environment()
        if self.homes[n] is not None:
            env["VIDEOREVIEW_HOME"] = os.fspath(self.homes[n])
        log = self.folder / f"node{n}.log"
        with open(log, "wb") as out:
            process = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        node = Node(process, self.homes[n], log)
        self.nodes.append(node)
        self._wait_for_raylet(node)

    def _wait_for_raylet(self, node: Node) -> None:
        import psutil

        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if node.process.poll() is not None:
                raise VideoReviewError(f"ray start ended ({node.process.returncode}): {tail(node.log)}")
            for child in node.look():
                try:
                    if child.name() == "raylet":
                        found = re.search(r"--node_id=([0-9a-f]+)", " ".join(child.cmdline()))
                        node.raylet_pid, node.node_id = child.pid, found.group(1) if found else ""
                except psutil.Error:
                    continue
            if node.raylet_pid and "Ray runtime started" in tail(node.log, 4000):
                return
            time.sleep(0.2)
        raise VideoReviewError(f"a Ray node did not start in {START_SECONDS:.0f} s: {tail(node.log)}")

    def kill_raylet(self, n: int) -> int:
        """``kill -9`` node ``n``'s raylet (a node dying); returns its pid."""
        pid = self.nodes[n].raylet_pid
        os.kill(pid, signal.SIGKILL)
        return pid

    def processes(self) -> list:
        """Every process of the cluster seen until now (the children of ``ray start``), as
        psutil.Process: one whose pid was reused is never taken for it."""
        found = []
        for node in self.nodes:
            node.look()
            found += node.seen.values()
        return found

    def stop(self) -> None:
        """End every process of the cluster, by pid: ``ray start --block`` first (it
        stops its node), then whatever of its children is left. Workers first, head last."""
        import psutil

        known = self.processes()
        for node in reversed(self.nodes):
            if node.process.poll() is None:
                node.process.terminate()
                try:
                    node.process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    node.process.kill()
                    node.process.wait()
        for process in known:
            try:
                process.kill()  # psutil checks that the pid is still that process
            except psutil.Error:
                pass
        self.nodes = []
        if self.temp is not None:
            shutil.rmtree(self.temp, ignore_errors=True)
            self.temp = None


def _children(pid: int):
    import psutil

    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def tail(path: Path, size: int = 600) -> str:
    try:
        return path.read_bytes()[-size:].decode(errors="replace").strip()
    except OSError:
        return ""


def free_port_block(count: int) -> int:
    """The first of ``count`` consecutive loopback ports that are free now."""
    for start in range(21000, 60000 - count, count):
        if all(_free(port) for port in range(start, start + count)):
            return start
    raise VideoReviewError("no block of free loopback ports")


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind((LOOPBACK, port))
        except OSError:
            return False
    return True
