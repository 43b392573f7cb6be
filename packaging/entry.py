"""The PyInstaller bundle's entry point: the same as the ``videoreview`` console script.

``main`` calls ``multiprocessing.freeze_support()`` first, so the analysis and library
processes the window spawns (the bundle's executable started again) run their target
instead of a second window."""

import sys

from videoreview.cli import main

if __name__ == "__main__":
    sys.exit(main())
