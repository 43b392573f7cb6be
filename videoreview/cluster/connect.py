"""Reaching a Ray cluster: the address a user gives, one line when it cannot be used, and
the only place that imports Ray (the ``cluster`` extra).

The app never starts a cluster here: ``ray.init`` is always given an address, so it
connects or fails (without one it would start a local cluster on the host's routable
address, which has no authentication unless configured).
"""

from __future__ import annotations

import ipaddress
import logging
import os
import socket
from dataclasses import dataclass
from pathlib import Path

from ..errors import VideoReviewError

RAY_VERSION = "2.60.0"
INSTALL = (f'--cluster needs Ray, which is not installed: pip install "videoreview[cluster]" '
           f'(or pip install "ray[data,client]=={RAY_VERSION}")')
CLIENT_PORT = 10001  # Ray Client's default (ray://host)
GCS_PORT = 6379  # the head's default (host)
REACH_SECONDS = 5.0


@dataclass(frozen=True)
class Address:
    text: str  # as given
    host: str | None  # None for "auto"
    port: int | None
    client: bool  # ray://: through Ray Client (a machine outside the cluster)

    @property
    def loopback(self) -> bool:
        if self.host is None:
            return True  # "auto": a cluster started on this machine
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False


def parse_address(text: str) -> Address:
    """``ray://host[:port]``, ``host[:port]`` or ``auto``; VideoReviewError for anything else."""
    text = text.strip()
    if text == "auto":
        return Address(text, None, None, False)
    client = text.startswith("ray://")
    rest = text.removeprefix("ray://")
    host, sep, port = rest.rpartition(":") if ":" in rest else (rest, "", "")
    host = host.strip("[]")
    if not host or "/" in rest or (sep and not port.isdigit()):
        raise VideoReviewError(f"--cluster {text!r}: not a Ray address (ray://HOST:10001, HOST:6379 or auto)")
    number = int(port) if sep else (CLIENT_PORT if client else GCS_PORT)
    if not 0 < number < 65536:
        raise VideoReviewError(f"--cluster {text!r}: port {number} is out of range")
    return Address(text, host, number, client)


def check_reachable(address: Address, seconds: float = REACH_SECONDS) -> None:
    """One line when nothing answers at the address (before Ray, whose own wait is long)."""
    if address.host is None:
        return
    try:
        with socket.create_connection((address.host, address.port), timeout=seconds):
            pass
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise VideoReviewError(f"cannot reach the Ray cluster at {address.text} ({why}); is its head running and "
                               "this machine allowed to reach it? (docs/cluster.md)") from None


def import_ray():
    try:
        import ray
    except ImportError:
        raise VideoReviewError(INSTALL) from None
    return ray


def token_auth_on() -> bool:
    """Whether this process would present Ray's token: RAY_AUTH_MODE=token, or a token
    file that Ray picks up on its own."""
    mode = os.environ.get("RAY_AUTH_MODE")
    if mode is not None:
        return mode.lower() == "token"
    return bool(os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_TOKEN_PATH")
                or (Path.home() / ".ray" / "auth_token").exists())


def connect(text: str, notice=None, cancel=None):
    """Connect this process to the cluster at ``text``; returns the ``ray`` module.
    VideoReviewError (one line) when Ray is missing or the cluster cannot be used;
    Cancelled when ``cancel`` (a CancelToken) is cancelled between tries."""
    notice = notice or (lambda line: None)
    address = parse_address(text)
    ray = import_ray()
    check_reachable(address)
    if not address.loopback and not token_auth_on():
        notice(f"the cluster at {address.text} is reached without Ray's token authentication: anyone who can "
               "reach its ports can run code on it; keep it on a private network or turn tokens on (docs/cluster.md)")
    target = address.text if address.client or address.host is None else f"{address.host}:{address.port}"
    options = {}
    if address.host is not None and address.loopback and not address.client:
        # A cluster on loopback: this process is one of its nodes' drivers, and says so,
        # or Ray would advertise the host's routable address for it.
        options["_node_ip_address"] = "127.0.0.1"
    try:
        _init(ray, target, options, address, notice, cancel)
    except ConnectionError as exc:
        hint = "" if token_auth_on() else ("; if it uses Ray's token authentication, set RAY_AUTH_MODE=token and "
                                           "give its token (docs/cluster.md)")
        raise VideoReviewError(f"cannot connect to the Ray cluster at {address.text} ({_first_line(exc)}){hint}") \
            from None
    except Exception as exc:  # Ray raises many kinds (authentication, version mismatch, timeouts)
        if type(exc).__name__ == "AuthenticationError":
            raise VideoReviewError(f"the Ray cluster at {address.text} refused this machine: it asks for its token "
                                   "(RAY_AUTH_MODE=token and RAY_AUTH_TOKEN_PATH; docs/cluster.md)") from None
        raise VideoReviewError(f"cannot use the Ray cluster at {address.text}: {type(exc).__name__}: "
                               f"{_first_line(exc)}") from None
    return ray


CLIENT_TRIES = 4


def _init(ray, target: str, options: dict, address: Address, notice, cancel=None) -> None:
    for attempt in range(1, CLIENT_TRIES + 1):
        if cancel is not None:
            cancel.check()  # a try can take half a minute: the window's Stop is heard between them
        try:
            # log_to_driver off: the workers' output stays in the cluster's logs, not in this
            # terminal; what a user needs (notices, problems) comes back with each result.
            ray.init(address=target, log_to_driver=False, logging_level=logging.WARNING, configure_logging=True,
                     **options)
            return
        except ConnectionError as exc:
            # Ray Client's proxy sometimes loses the server it starts for a connection (its
            # process hangs as it forks; seen with Ray 2.60 on a busy machine): another
            # connection gets another server.
            if not (address.client and "Initialization failure" in str(exc)) or attempt == CLIENT_TRIES:
                raise
            notice(f"Ray Client's server at {address.text} did not start for this connection; trying again")


def disconnect() -> None:
    try:
        import ray
    except ImportError:
        return
    if ray.is_initialized():
        ray.shutdown()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
