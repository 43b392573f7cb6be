"""Moving a library between a local folder and a team server, either way: ``library export
DESTINATION`` copies the library in use there, ``library import SOURCE`` copies another
into it. Every video goes with its status and, where analysed, its whole Analysis (the
reviewers' edits and notes with their authors are in it), which is indexed again in the
target (the units and their vectors are remade from it, so nothing of the source's
indexes is trusted). A video whose file is not at its path is reported and skipped: the
target would have nothing to point at. The source is never changed."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..paths import TEAM_SCHEMES
from .catalog import DB_NAME, Catalog

Report = Callable[[str, str], None]  # (path, what happened)


@dataclass
class Moved:
    videos: int = 0
    analyses: int = 0
    notes: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)

    def summary(self) -> str:
        skipped = f", {len(self.skipped)} skipped" if self.skipped else ""
        return f"{self.videos} videos ({self.analyses} analysed, {self.notes} notes){skipped}"


def open_at(location: str, readonly: bool = False):
    """The catalog of the library at ``location``: a team library's URL or a folder."""
    if location.startswith(TEAM_SCHEMES):
        from .team.catalog import TeamCatalog

        return TeamCatalog(location, readonly=readonly)
    return Catalog(Path(location).expanduser() / DB_NAME, readonly=readonly)


def copy_library(source, target, embed=None, report: Report | None = None) -> Moved:
    """Copy every video of ``source`` into ``target`` (two open catalogs)."""
    report = report or (lambda path, what: None)
    moved = Moved()
    for video in source.videos():
        if not os.path.exists(video.path):
            moved.skipped.append((video.path, "the file is not at this path"))
            report(video.path, "skipped: the file is not at this path")
            continue
        video_id, _ = target.add_video(video.path, video.content_hash)
        analysis = source.analysis(video.id)
        if analysis is not None:
            target.keep_analysis(analysis)
            target.index_analysis(video_id, analysis, embed)
            moved.analyses += 1
            moved.notes += len(analysis.notes)
        elif video.status in ("failed", "missing"):
            target.set_status(video_id, video.status, video.error)
        moved.videos += 1
        report(video.path, "copied")
    return moved
