"""An Analysis to a file, the format chosen by the file's suffix: the one table of exports
that the command line (``summarize --pdf/--json/...``) and the window's Summaries panel
both use. A new format is a writer module here and one row below.

Every writer is atomic (a failed export never leaves half a file over an earlier one) and
returns the warnings the user should read (a PDF's missing pictures, say).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ...errors import RecordError
from ...records import Analysis, Summary

SUBTITLES = ("captions", "boundaries", "speech")  # what subtitles can say


@dataclass(frozen=True)
class Options:
    """What some formats need besides the Analysis."""

    subtitles: str = "captions"  # one of SUBTITLES
    video_path: str | os.PathLike | None = None  # where the PDF's pictures are decoded from
    summary: Summary | None = None  # the PDF's summary
    comparison: object = None  # the PDF's ViSIL table (a summary.compare.Comparison)


def _cues(analysis: Analysis, which: str):
    from .subtitles import boundary_cues, caption_cues, speech_cues

    return {"captions": caption_cues, "boundaries": boundary_cues, "speech": speech_cues}[which](analysis)


def _json(analysis: Analysis, path, options: Options):
    from .tables import write_json

    write_json(analysis, path)


def _srt(analysis: Analysis, path, options: Options):
    from .subtitles import write_srt

    write_srt(_cues(analysis, options.subtitles), path)


def _vtt(analysis: Analysis, path, options: Options):
    from .subtitles import write_vtt

    write_vtt(_cues(analysis, options.subtitles), path)


def _csv(analysis: Analysis, path, options: Options):
    from .tables import write_boundaries_csv

    write_boundaries_csv(analysis, path)


def _otio(analysis: Analysis, path, options: Options):
    from .markers import write_otio

    write_otio(analysis, path)


def _pdf(analysis: Analysis, path, options: Options):
    from .pdf import write_pdf

    return write_pdf(analysis, path, video_path=options.video_path, summary=options.summary,
                     comparison=options.comparison)


@dataclass(frozen=True)
class Export:
    label: str  # what the file is, for the user (a file dialog's filter, --help)
    write: Callable[[Analysis, str | os.PathLike, Options], list[str] | None]


EXPORTS: dict[str, Export] = {  # in the order the command line writes them: the slow PDF last
    ".json": Export("the Analysis JSON, summaries included", _json),
    ".srt": Export("SubRip subtitles", _srt),
    ".vtt": Export("WebVTT subtitles", _vtt),
    ".csv": Export("a CSV of the boundaries", _csv),
    ".otio": Export("OpenTimelineIO markers for an editor", _otio),
    ".pdf": Export("a PDF report", _pdf),
}


def export_analysis(analysis: Analysis, path: str | os.PathLike, options: Options = Options()) -> list[str]:
    """Write ``analysis`` to ``path`` in the format its suffix names; the warnings to show.
    RecordError naming the file for a suffix no format has; OSError when it cannot be written."""
    export = EXPORTS.get(Path(path).suffix.lower())
    if export is None:
        raise RecordError(path, f"cannot export as {Path(path).suffix or 'a file without a suffix'} "
                                f"(one of {', '.join(EXPORTS)})")
    return list(export.write(analysis, path, options) or [])
