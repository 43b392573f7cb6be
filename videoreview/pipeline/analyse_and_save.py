"""The one way to analyse a video: keep what the reviewer did, analyse, save.

The command line, the window's analysis process, the library's indexer and a cluster
worker all call ``analyse_and_save``; they differ only in where the previous Analysis
comes from (an output file, the window, the saved one, the machine that asked) and
whether the result goes among the saved Analyses (pipeline/store.py).
"""

from __future__ import annotations

import os

from ..records import Analysis
from . import store
from .runner import analyze

SAVED = object()  # ``previous``: the Analysis saved for this file's content, if any


def analyse_and_save(path: str | os.PathLike, previous: Analysis | None | object = SAVED, *, save: bool = True,
                     **options) -> Analysis:
    """The Analysis of ``path``, keeping the reviewer's edits and notes of ``previous``
    (SAVED: those of the Analysis saved for this content; None: none), saved among the
    saved Analyses where ``save``. ``options`` go to ``runner.analyze``; its errors
    (MediaError, Cancelled) propagate and nothing is saved."""
    if previous is SAVED:
        previous = store.saved_analysis(path, options.get("cache"))  # the hash the analysis will look up
    analysis = analyze(path, previous=previous, **options)
    cancel = options.get("cancel")
    if cancel is not None:
        cancel.check()  # cancelled in the last moment: nothing is saved
    if save:
        store.save(analysis)
    return analysis
