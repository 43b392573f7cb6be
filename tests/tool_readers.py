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
