"""The Analysis JSON and a CSV of boundaries (one row each, for spreadsheets)."""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

from ...records import Analysis, write_atomic

BOUNDARY_COLUMNS = ("time", "frame", "kind", "confidence", "subject", "before", "after", "engine", "edited")


def write_json(analysis: Analysis, path: str | os.PathLike) -> None:
    analysis.save(path)


def write_boundaries_csv(analysis: Analysis, path: str | os.PathLike) -> None:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(BOUNDARY_COLUMNS)
    for b in sorted(analysis.boundaries, key=lambda b: b.time):
        c = b.caption
        writer.writerow([f"{b.time:.3f}", b.frame, b.kind, f"{b.confidence:.3f}", c.subject if c else "",
                         c.before if c else "", c.after if c else "", b.engine, int(b.edited)])
    # UTF-8 with a byte-order mark: spreadsheet programs then read non-Latin captions right.
    write_atomic(Path(path), out.getvalue().encode("utf-8-sig"))
