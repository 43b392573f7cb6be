"""Which files to open: the videos among paths a user gave (dropped on the window, picked
in a dialog, or named on the command line)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from .probe import VIDEO_EXTENSIONS


def find_videos(paths: Iterable[str | os.PathLike], *, named_files: str = "any"
                ) -> tuple[list[str], list[tuple[str, str]]]:
    """Video files among ``paths``, absolute, in order, without repeats: folders are
    searched recursively by file suffix (hidden files left out). A file named on purpose is
    taken whatever its suffix with ``named_files="any"`` (the analysis says if it is not a
    video), or only with a video suffix with ``"videos"`` (a drop of the wrong file is
    answered at once). Also (path, why) for each path that gives no video."""
    found, problems = [], []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            inside = []
            for folder, dirs, files in os.walk(path, onerror=lambda e: problems.append((e.filename, e.strerror))):
                dirs.sort()
                inside += [os.path.abspath(os.path.join(folder, f)) for f in sorted(files)
                           if Path(f).suffix.lower() in VIDEO_EXTENSIONS and not f.startswith(".")]
            if not inside:
                problems.append((os.fspath(path), "no video files in this folder"))
            found += inside
        elif not path.exists():
            problems.append((os.fspath(path), "file not found"))
        elif named_files == "videos" and path.suffix.lower() not in VIDEO_EXTENSIONS:
            kind = path.suffix or "without an extension"
            problems.append((os.fspath(path), f"not a video file (unknown type {kind})"))
        else:
            found.append(os.path.abspath(path))
    return list(dict.fromkeys(found)), problems
