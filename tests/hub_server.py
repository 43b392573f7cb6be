"""A loopback HTTP server (127.0.0.1) standing in for the Hugging Face hub, for the model
manager's tests: it answers the calls huggingface_hub makes for one pinned revision of a
model repository (the file tree, then HEAD and GET of each file, with byte ranges so an
interrupted download can resume). Another revision is answered as the hub answers an
unknown one. It can drop the connection part-way through a file's first transfer."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Hub:
    """Serve ``files`` (path -> bytes) of ``repo`` at ``revision``. With ``cut`` set to
    a path, the first GET of that file stops after 60 % of it and drops the connection;
    with ``rate`` (bytes per second) file bodies are sent that slowly."""

    def __init__(self, repo: str, revision: str, files: dict[str, bytes], cut: str | None = None,
                 rate: int | None = None) -> None:
        self.repo, self.revision, self.files, self.cut, self.rate = repo, revision, files, cut, rate
        self.ranges: list[str] = []  # the Range headers asked for, in order
        self.requests: list[str] = []
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def do_HEAD(self) -> None:
                hub._serve(self, body=False)

            def do_GET(self) -> None:
                hub._serve(self, body=True)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        # shutdown() waits for serve_forever's next poll: every 50 ms, not every 0.5 s
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _serve(self, request: BaseHTTPRequestHandler, body: bool) -> None:
        path = request.path.split("?")[0]
        self.requests.append(f"{request.command} {path}")
        tree = f"/api/models/{self.repo}/tree/{self.revision}"
        resolve = f"/{self.repo}/resolve/{self.revision}/"
        if path.rstrip("/") == tree:
            entries = [{"type": "file", "path": name, "size": len(data), "oid": hashlib.sha1(data).hexdigest(),
                        "lfs": {"oid": hashlib.sha256(data).hexdigest(), "size": len(data), "pointerSize": 130}}
                       for name, data in self.files.items()]
            self._send(request, 200, json.dumps(entries).encode(), {"Content-Type": "application/json"}, body)
        elif path.startswith(resolve) and path[len(resolve):] in self.files:
            self._send_file(request, path[len(resolve):], body)
        elif path.startswith((f"/api/models/{self.repo}/tree/", f"/{self.repo}/resolve/")):
            self._send(request, 404, b'{"error": "Invalid rev id"}', {"X-Error-Code": "RevisionNotFound"}, body)
        else:
            self._send(request, 404, b'{"error": "Entry not found"}', {"X-Error-Code": "EntryNotFound"}, body)

    def _send_file(self, request: BaseHTTPRequestHandler, name: str, body: bool) -> None:
        data = self.files[name]
        headers = {"X-Repo-Commit": self.revision, "ETag": f'"{hashlib.sha256(data).hexdigest()}"',
                   "Accept-Ranges": "bytes", "Content-Type": "application/octet-stream"}
        start, status = 0, 200
        asked = request.headers.get("Range")
        if body and asked:
            self.ranges.append(asked)
            start = int(asked.split("=")[1].split("-")[0])
            status = 206
            headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
        if body and name == self.cut:
            self.cut = None  # only the first transfer
            request.send_response(status)
            for key, value in headers.items():
                request.send_header(key, value)
            request.send_header("Content-Length", str(len(data) - start))
            request.end_headers()
            request.wfile.write(data[start:start + (len(data) - start) * 6 // 10])
            request.wfile.flush()
            request.close_connection = True
            return
        self._send(request, status, data[start:], headers, body, self.rate)

    @staticmethod
    def _send(request, status: int, data: bytes, headers: dict, body: bool, rate: int | None = None) -> None:
        request.send_response(status)
        for key, value in headers.items():
            request.send_header(key, value)
        request.send_header("Content-Length", str(len(data)))
        request.end_headers()
        if body and rate:
            chunk = max(1, rate // 10)
            for start in range(0, len(data), chunk):
                request.wfile.write(data[start:start + chunk])
                time.sleep(0.1)
        elif body:
            request.wfile.write(data)
