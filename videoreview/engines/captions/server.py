"""Captions from a model server (vLLM, Ollama, LM Studio) over OpenAI's chat completions
API: ``--engines captions=server:NAME`` with NAME added by ``videoreview models server add``.

``ServerModel`` answers the same ``Request``s as a local VisionLanguageModel (images as
JPEG data URLs, then the text; greedy, capped), so ``ServerEngine`` is the local VLM
engine with the model swapped: the ProgressCaptioner and GEB+ prompts and their parsing
are the same. Several requests are in flight at once (the server's ``concurrency``);
429 and 5xx replies and dropped connections are retried with backoff (Retry-After when
the server gives one); every other failure is one line naming the server and the reason.
The API key is read per request (models/servers.py) and never logged.
"""

from __future__ import annotations

import base64
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ...errors import Cancelled, ModelError
from ...media import scaled_size
from ...models.servers import Server, server
from .vlm import Request, VLMEngine

MAX_SIDE = 768  # long side of the frames sent (vlm.FRAME_LONG_SIDE["server"]): a few hundred kB at most
JPEG_QUALITY = 90
RETRIES = 4  # attempts after the first, for 429, 5xx and dropped connections
BACKOFF = 0.5  # seconds before the first retry, doubled each time (at most MAX_WAIT)
MAX_WAIT = 8.0
RETRY_STATUS = {429, 500, 502, 503, 504}


class ServerError(ModelError):
    """A model server that could not answer: "NAME (URL): reason"."""


def data_url(frame: np.ndarray) -> str:
    """An RGB frame as a JPEG data URL, its long side at most MAX_SIDE."""
    import cv2

    h, w = frame.shape[:2]
    if max(h, w) > MAX_SIDE:
        frame = cv2.resize(frame, scaled_size(w, h, MAX_SIDE), interpolation=cv2.INTER_AREA)
    ok, jpeg = cv2.imencode(".jpg", cv2.cvtColor(np.ascontiguousarray(frame), cv2.COLOR_RGB2BGR),
                            [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise ValueError("could not encode a frame as JPEG")
    return "data:image/jpeg;base64," + base64.b64encode(jpeg.tobytes()).decode("ascii")


class ServerModel:
    """A model behind an OpenAI-compatible server, answering ``Request``s."""

    family = "server"

    def __init__(self, entry: Server, cancelled: Callable[[], bool] = lambda: False) -> None:
        self.server = entry
        self.label = f"server:{entry.name}"
        self.cancelled = cancelled  # the job's cancel: checked before every request is sent
        self._stop = threading.Event()

    def cancel(self) -> None:
        """Send nothing more: requests not yet sent raise Cancelled."""
        self._stop.set()

    def _stopping(self) -> bool:
        return self._stop.is_set() or self.cancelled()

    def generate(self, requests: Sequence[Request]) -> list[str]:
        """One reply per request, in order, ``concurrency`` in flight at a time. The first
        failure stops the requests not yet sent and is raised."""
        return self.map(lambda request: self._content(self.post(self.chat_body(request))), requests)

    def map(self, ask: Callable, items: Sequence) -> list:
        """``ask(item)`` for each item, in order, ``concurrency`` in flight at a time. The
        first failure stops the items not yet sent and is raised."""
        if not items:
            return []
        failed = threading.Event()

        def one(item):
            if failed.is_set() or self._stopping():
                raise Cancelled()
            try:
                return ask(item)
            except BaseException:
                failed.set()
                raise

        with ThreadPoolExecutor(min(self.server.concurrency, len(items))) as pool:
            futures = [pool.submit(one, item) for item in items]
        errors = [e for e in (f.exception() for f in futures) if e is not None]
        if errors:  # the real failure wins over the Cancelled it caused in the requests after it
            raise next((e for e in errors if not isinstance(e, Cancelled)), errors[0])
        return [f.result() for f in futures]

    def error(self, reason: str) -> ServerError:
        return ServerError(f"{self.server.name} ({self.server.url})", reason)

    def chat_body(self, request: Request, **extra) -> dict:
        """A chat completion request: the images as data URLs, then the text; greedy."""
        content = [{"type": "image_url", "image_url": {"url": data_url(frame)}} for frame in request.images]
        content.append({"type": "text", "text": request.text})
        return {"model": self.server.model, "messages": [{"role": "user", "content": content}],
                "max_tokens": request.max_new_tokens, "temperature": 0, **extra}

    def post(self, body: dict, path: str = "/chat/completions") -> bytes:
        """POST ``body`` to the server's API (``path`` under its base URL, or, starting
        with "//", under its host: vLLM's /tokenize), retrying as the module says."""
        data = json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        key = self.server.api_key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        base = self.server.url.rstrip("/")
        url = base.removesuffix("/v1") + path[1:] if path.startswith("//") else base + path
        for attempt in range(RETRIES + 1):
            if self._stopping():
                raise Cancelled()
            wait = min(MAX_WAIT, BACKOFF * 2 ** attempt)
            try:
                request = urllib.request.Request(url, data, headers)
                with urllib.request.urlopen(request, timeout=self.server.timeout) as r:
                    return r.read()
            except urllib.error.HTTPError as exc:
                if exc.code not in RETRY_STATUS or attempt == RETRIES:
                    raise self.error(self._http_reason(exc)) from None
                wait = _retry_after(exc) or wait
            except urllib.error.URLError as exc:
                reason = exc.reason
                if isinstance(reason, ConnectionRefusedError):
                    raise self.error("cannot connect (connection refused): is the server running there?") from None
                if isinstance(reason, TimeoutError) or "timed out" in str(reason):
                    raise self.error(f"no reply within {self.server.timeout:g} s") from None
                if attempt == RETRIES:
                    raise self.error(f"cannot connect ({reason})") from None
            except TimeoutError:
                raise self.error(f"no reply within {self.server.timeout:g} s") from None
            except (ConnectionResetError, ConnectionAbortedError) as exc:
                if attempt == RETRIES:
                    raise self.error(f"the connection dropped ({exc})") from None
            self._stop.wait(wait)
        raise self.error("no reply")  # not reached: the last attempt raises

    def _http_reason(self, exc: urllib.error.HTTPError) -> str:
        detail = _error_text(exc)
        if exc.code in (401, 403):
            where = (f"the environment variable {self.server.api_key_env}" if self.server.api_key_env
                     else f"the keyring (videoreview models server key {self.server.name})")
            return f"the server refused the key ({exc.code}{detail}); the key is read from {where}"
        if exc.code == 404:
            return (f"not found (404{detail}): is the model {self.server.model!r} served there, "
                    "and the URL the API's base?")
        return f"the server answered {exc.code}{detail}"

    def _content(self, raw: bytes) -> str:
        try:
            reply = json.loads(raw)
            content = reply["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise self.error(f"a reply that is not a chat completion: {raw[:200]!r}") from None
        if isinstance(content, list):  # some servers give content parts
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        if not isinstance(content, str):
            raise self.error(f"a reply whose message content is not text: {raw[:200]!r}")
        return content


def _retry_after(exc: urllib.error.HTTPError) -> float | None:
    try:
        return min(MAX_WAIT, max(0.0, float(exc.headers.get("Retry-After", ""))))
    except (TypeError, ValueError):
        return None


def _error_text(exc: urllib.error.HTTPError) -> str:
    """The server's own words about an error, if short ("", or ": ...")."""
    try:
        body = exc.read(500).decode("utf-8", "replace")
        message = json.loads(body).get("error", body)
        if isinstance(message, dict):
            message = message.get("message", "")
    except Exception:  # no body, not JSON: the status says enough
        return ""
    message = " ".join(str(message).split())[:160]
    return f": {message}" if message else ""


class ServerEngine(VLMEngine):
    """The VLM engine (captions, boundary captions, judges) with its model on a server; its
    ``kind`` stays "vlm": the pipeline runs it as any VLM."""

    def __init__(self, name: str, device: str | None = None) -> None:  # the device is the server's
        self.server_name = name
        self.family = "server"
        self.name = f"server:{name}"
        self.device = "server"  # the model runs there (engines/base.Engine: every engine names its device)
        self.device_note: str | None = None
        server(name)  # a name that is not a server fails here, before any work
        self._model: ServerModel | None = None
        self._cancelled: Callable[[], bool] = lambda: False

    def watch(self, cancel) -> None:
        """Stop sending as soon as the job's CancelToken ``cancel`` is set (not only
        between the stage's batches)."""
        self._cancelled = lambda: cancel.cancelled
        if self._model is not None:
            self._model.cancelled = self._cancelled

    # The entry is read each time: the server's URL or model may change while the app runs
    # (the registry keeps one engine per name).
    @property
    def entry(self) -> Server:
        return server(self.server_name)

    @property
    def version(self) -> str:
        return f"1-{self.entry.model}"  # cached results are the model's: a new model is a new version

    @property
    def sends_frames_to(self) -> str:
        """Where frames go, for the notice the window shows before the first request."""
        entry = self.entry
        return f"the model server {entry.name} ({entry.url}, model {entry.model})"

    @property
    def model(self) -> ServerModel:
        entry = self.entry
        if self._model is None or self._model.server != entry:
            self._model = ServerModel(entry, self._cancelled)
        return self._model

    def release(self) -> None:
        self._model = None

    def cancel(self) -> None:
        if self._model is not None:
            self._model.cancel()

