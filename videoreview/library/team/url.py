"""Connecting to a team library from its URL (``postgresql://user@host:port/database``).

Secrets never live in the URL, which the app may write to its settings: the password
comes from ``PGPASSWORD``, else the system keyring (``library password URL`` puts it
there), else libpq's ``~/.pgpass`` (or ``PGPASSFILE``) or a service file; a URL holding a
password is refused. A server that is not on this machine is reached over
TLS: ``sslmode=require`` unless the URL asks for stricter (``verify-ca``,
``verify-full``); an unencrypted connection to another machine is made only when the URL
says ``sslmode=disable`` by name, and ``allow`` / ``prefer`` (which may fall back to plain
text) are refused.
"""

from __future__ import annotations

import os

from ...errors import LibraryError

SCHEMES = ("postgresql://", "postgres://")
KEYRING_SERVICE = "videoreview team library"  # the keyring's entries: one per URL (as display() writes it)
LOOPBACK = ("localhost", "127.0.0.1", "::1")
CONNECT_SECONDS = 5


def is_team_url(location: str | None) -> bool:
    return bool(location) and location.startswith(SCHEMES)


def _parts(url: str) -> dict:
    try:
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:
        raise LibraryError(display(url), "the team library needs the team extra "
                                         "(pip install 'videoreview[team]', or ./scripts/setup)") from None
    try:
        return conninfo_to_dict(url)
    except Exception as exc:  # psycopg.ProgrammingError: a malformed URL
        raise LibraryError(display(url), f"is not a PostgreSQL URL ({str(exc).strip()})") from None


def connection_options(url: str) -> dict:
    """libpq's options for ``url``, with the TLS default; LibraryError where the URL holds
    a password or asks for a connection that may be unencrypted to another machine."""
    parts = _parts(url)
    if parts.get("password"):
        raise LibraryError(display(url), "holds a password: put it in ~/.pgpass or PGPASSWORD instead, so it "
                                         "is never written to the settings or the logs")
    hosts = [h for h in str(parts.get("host", "")).split(",") if h]
    remote = [h for h in hosts if h not in LOOPBACK and not h.startswith("/")]
    mode = parts.get("sslmode")
    if remote:
        if mode in ("allow", "prefer"):
            raise LibraryError(display(url), f"sslmode={mode} may connect to {remote[0]} unencrypted: use "
                                             "sslmode=require (the default) or stricter, or sslmode=disable "
                                             "to ask for an unencrypted connection by name")
        parts.setdefault("sslmode", "require")
    if not os.environ.get("PGPASSWORD"):
        stored = keyring_password(url)
        if stored:
            parts["password"] = stored
    parts.setdefault("connect_timeout", str(CONNECT_SECONDS))
    parts.setdefault("application_name", "videoreview")
    return parts


def keyring_password(url: str) -> str | None:
    """The password the system keyring holds for ``url``; None where it holds none, or
    where there is no keyring (a headless Linux has none)."""
    try:
        import keyring

        return keyring.get_password(KEYRING_SERVICE, display(url))
    except Exception:  # keyring.errors.NoKeyringError and the backends' own
        return None


def store_password(url: str, password: str) -> None:
    """Keep ``url``'s password in the system keyring (LibraryError where there is none)."""
    connection_options(url)  # a URL that would be refused is refused now
    try:
        import keyring

        keyring.set_password(KEYRING_SERVICE, display(url), password)
    except Exception as exc:
        raise LibraryError(display(url), f"cannot store the password: no system keyring here "
                                         f"({type(exc).__name__}); use ~/.pgpass or PGPASSWORD") from None


def connect(url: str, autocommit: bool = True):
    """An open psycopg connection to ``url`` (autocommit: each transaction is explicit)."""
    import psycopg

    options = connection_options(url)
    try:
        return psycopg.connect(autocommit=autocommit, **options)
    except psycopg.Error as exc:
        raise LibraryError(display(url), f"cannot be reached ({str(exc).strip().splitlines()[0]})") from None


def display(url: str) -> str:
    """The URL as messages show it: any password replaced by ***."""
    if "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    credentials, at, host = rest.rpartition("@")
    user, colon, _password = credentials.partition(":")
    return f"{scheme}://{user}{':***' if colon else ''}{at}{host}"
