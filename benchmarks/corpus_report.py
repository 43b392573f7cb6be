"""The corpus of awkward files (tests/corpus.py) analysed one by one in a watched child.

    .venv/bin/python benchmarks/corpus_report.py [--keep DIR]

Prints, as a Markdown table, each file's kind, what FFmpeg's ffprobe -count_frames
decodes, our frame_count, the outcome (analysed, or refused with its one line), the
seconds it took (models already loaded; the first file includes loading them) and how
much the child's peak RSS rose over its RSS when the file started.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import corpus  # noqa: E402
from supervised import Supervisor  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="make the files here and leave them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = args.keep or Path(scratch)
        files = corpus.make_corpus(root / "corpus")
        with Supervisor(root / "home", timeout=90) as supervisor:
            outcomes = {f.name: supervisor.analyse(f.path) for f in files}
        print(corpus.table(files, outcomes))
    failures = [o for o in outcomes.values() if o.status in ("traceback", "crash", "hang")]
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
