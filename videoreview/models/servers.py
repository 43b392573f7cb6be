"""Model servers the user points the app at (vLLM, Ollama, LM Studio, anything that
speaks OpenAI's chat completions API): name -> base URL, model and where its key is.

Kept in ``$VIDEOREVIEW_HOME/servers.json``. A key is never written there (nor into an
Analysis, an export or a log): it is read when a request is made, from the environment
variable the server names, else from the system keyring (the ``keyring`` package; the
service is "videoreview", the user the server's name).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from urllib.parse import urlparse

from ..errors import ModelError
from ..paths import data_dir
from ..records import write_atomic

FILE = "servers.json"
KEYRING_SERVICE = "videoreview"
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@dataclass(frozen=True)
class Server:
    name: str
    url: str  # the API base, e.g. http://gpu-box:8000/v1
    model: str  # the model name the server knows
    api_key_env: str = ""  # the environment variable holding the key ("" : keyring, or none)
    concurrency: int = 4  # requests in flight at once
    timeout: float = 120.0  # seconds for one reply

    def api_key(self) -> str | None:
        """The key, from the environment or the keyring; None when there is none."""
        if self.api_key_env:
            return os.environ.get(self.api_key_env) or None
        try:
            import keyring

            return keyring.get_password(KEYRING_SERVICE, self.name)
        except Exception:  # no keyring on this system (a headless Linux has none): no key
            return None


def _path():
    return data_dir() / FILE


def servers() -> dict[str, Server]:
    path = _path()
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {name: Server(name=name, **{k: v for k, v in entry.items() if k != "name"})
                for name, entry in data.items()}
    except (OSError, ValueError, TypeError, AttributeError) as exc:
        raise ModelError(path, f"not a list of model servers ({exc})") from None


def server(name: str) -> Server:
    found = servers().get(name)
    if found is None:
        known = ", ".join(servers()) or "none yet; add one with: videoreview models server add NAME URL --model M"
        raise ModelError(name, f"no model server of this name (servers: {known})")
    return found


def add_server(entry: Server) -> None:
    if not NAME.match(entry.name):
        raise ModelError(entry.name, "a server name is letters, digits, '.', '_' and '-' (up to 64)")
    url = urlparse(entry.url)
    if url.scheme not in ("http", "https") or not url.netloc:
        raise ModelError(entry.url, "not an http(s) URL (e.g. http://localhost:8000/v1)")
    if not entry.model.strip():
        raise ModelError(entry.name, "needs the model name the server knows (--model)")
    if entry.concurrency < 1 or entry.timeout <= 0:
        raise ModelError(entry.name, "concurrency must be at least 1 and the timeout above 0")
    _write({**servers(), entry.name: entry})


def remove_server(name: str) -> None:
    known = servers()
    if name not in known:
        raise ModelError(name, "no model server of this name")
    del known[name]
    _write(known)


def store_key(name: str, key: str) -> None:
    """Put ``name``'s key in the system keyring (ModelError when there is no keyring)."""
    server(name)
    try:
        import keyring

        keyring.set_password(KEYRING_SERVICE, name, key)
    except Exception as exc:
        raise ModelError(name, f"cannot store the key: no system keyring here ({type(exc).__name__}); "
                               "give the key in an environment variable instead (--api-key-env VAR)") from None


def _write(entries: dict[str, Server]) -> None:
    data = {name: {k: v for k, v in asdict(entry).items() if k != "name"} for name, entry in sorted(entries.items())}
    write_atomic(_path(), json.dumps(data, indent=2).encode("utf-8"))
