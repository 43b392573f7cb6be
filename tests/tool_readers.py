"""The annotation tools' own readers, run from their virtualenvs (scripts/setup-readers).

Where a reader's virtualenv is missing a test skips with the command that makes it; where
VIDEOREVIEW_READERS=required (scripts/test sets it, after making them) it fails instead, so
CI never passes without the tools having read the exports."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VENVS = ROOT / ".venv-readers"


def tool_python(tool: str) -> Path:
    python = VENVS / tool / "bin" / "python"
    if not python.is_file():
        message = f"{tool} is not set up here: run scripts/setup-readers"
        if os.environ.get("VIDEOREVIEW_READERS") == "required":
            pytest.fail(message)
        pytest.skip(message)
    return python


def datumaro_read(fmt: str, path: str | os.PathLike) -> dict:
    """What Datumaro reads from the export at ``path`` in its format ``fmt`` (readers/datumaro_read.py)."""
    done = subprocess.run([str(tool_python("datumaro")), str(ROOT / "tests" / "readers" / "datumaro_read.py"), fmt,
                           str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


# -- Label Studio, started for real ---------------------------------------------------------

LABEL_STUDIO_USER = "reviewer@example.com"
# Offline and quiet: no version check, no error reports, no analytics; and predictions
# checked against the project's labelling configuration on import (its feature flag).
LABEL_STUDIO_ENV = {"LATEST_VERSION_CHECK": "false", "SENTRY_DSN": "", "FRONTEND_SENTRY_DSN": "",
                    "COLLECT_ANALYTICS": "false", "LOCAL_FILES_SERVING_ENABLED": "true",
                    "LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT": "/",
                    "fflag_feat_utc_210_prediction_validation_15082025": "true"}


class LabelStudio:
    """A Label Studio server on 127.0.0.1 and its HTTP API, as its user."""

    def __init__(self, url: str, token: str) -> None:
        self.url, self.token = url, token

    def call(self, method: str, path: str, body=None, raw: bool = False):
        import urllib.error
        import urllib.request

        request = urllib.request.Request(self.url + path, method=method,
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"Authorization": f"Token {self.token}",
                                                  "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                data = response.read()
        except urllib.error.HTTPError as exc:
            raise AssertionError(f"{method} {path}: {exc.code} {exc.read()[:3000].decode(errors='replace')}") from None
        return data.decode() if raw else json.loads(data or b"null")

    def export(self, project: int) -> list:
        """The project's JSON export as its Export button makes it: predictions in full, the
        annotators by name, tasks without annotations too."""
        snapshot = self.call("POST", f"/api/projects/{project}/exports/", {
            "serialization_options": {"predictions": {"only_id": False},
                                      "annotations__completed_by": {"only_id": False}},
            "task_filter_options": {"only_with_annotations": False}})
        assert snapshot["status"] == "completed", snapshot
        return json.loads(self.call("GET", f"/api/projects/{project}/exports/{snapshot['id']}/download?exportType=JSON",
                                    raw=True))


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_label_studio(folder: Path):
    """Start Label Studio (its own virtualenv) with its data in ``folder``, a user made by its
    command line and an API token; a generator: yields a LabelStudio, stops it by its pid."""
    import secrets
    import signal
    import time
    import urllib.request

    label_studio = tool_python("label-studio").parent / "label-studio"
    port, token = free_port(), secrets.token_hex(20)
    env = {**os.environ, **LABEL_STUDIO_ENV, "LABEL_STUDIO_BASE_DATA_DIR": str(folder)}
    log = (folder / "label-studio.log").open("wb")
    process = subprocess.Popen([str(label_studio), "start", "--no-browser", "--internal-host", "127.0.0.1",
                                "-p", str(port), "--data-dir", str(folder), "--username", LABEL_STUDIO_USER,
                                "--password", secrets.token_hex(8), "--user-token", token,
                                "--enable-legacy-api-token"], env=env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            assert process.poll() is None, (folder / "label-studio.log").read_text(errors="replace")[-3000:]
            try:
                with urllib.request.urlopen(url + "/health", timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "Label Studio did not start in 180 s"
            time.sleep(0.5)
        yield LabelStudio(url, token)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(30)
        log.close()
