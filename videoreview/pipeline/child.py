"""Analysis in a child process, for a window: the pipeline imports and runs big native
libraries (torch, dlib, decoders) that hold Python's GIL for long stretches, which would
freeze a window running them on a thread of its own process. A native crash in the child
also leaves the window running.

The analysis child sends ("progress", AnalysisProgress) (videoreview/progress.py: made here,
shown as it is by the window's status bar), ("partial", Analysis) and ("notice", text), then
one of ("done", Analysis), ("failed", message) or ("cancelled", None) through a pipe; the
parent sets an Event to cancel it. For a video with no Analysis yet, the first partials are
a coarse timeline of the whole video (their plan's ``level`` is "coarse":
pipeline/coarse.py), which the stages' records then replace. Writing
summaries with a VLM (``run_summaries``) and comparing them by ViSIL (``run_visil``)
load a model too, so they run the same way.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from ..engines.registry import is_builtin
from ..errors import Cancelled, VideoReviewError
from ..progress import ProgressFn, ProgressTally, StageProgress
from ..records import Analysis, Summary

if TYPE_CHECKING:
    from ..summary.compare import Reference

PROGRESS_INTERVAL = 0.05  # seconds between progress messages: enough for a smooth bar


class _Throttled:
    """Progress messages at most every PROGRESS_INTERVAL (and always one that ends a stage
    or the work): enough for a smooth bar without flooding the pipe."""

    def __init__(self, conn) -> None:
        self.conn = conn
        self.last = 0.0

    def send(self, payload, ends: bool) -> None:
        now = time.monotonic()
        if ends or now - self.last >= PROGRESS_INTERVAL:
            self.last = now
            self.conn.send(("progress", payload))


def _send_fractions(conn) -> ProgressFn:
    """A ProgressFn that sends ("progress", (fraction, message)), throttled."""
    throttled = _Throttled(conn)
    return lambda fraction, message="": throttled.send((fraction, message), fraction >= 1.0)


def _send_analysis_progress(conn, tally: ProgressTally) -> StageProgress:
    """The runner's StageProgress: each report becomes the AnalysisProgress the window shows,
    sent as ("progress", record), throttled."""
    throttled = _Throttled(conn)

    def report(stage: str, fraction: float, message: str = "") -> None:
        progress = tally.record(stage, fraction, message)
        throttled.send(progress, progress.stage_fraction >= 1.0)

    return report


def _report(conn, subject: str, work) -> None:
    """Run ``work()`` and send its outcome: ("done", result), ("cancelled", None), or
    ("failed", one line naming the problem)."""
    try:
        conn.send(("done", work()))
    except Cancelled:
        conn.send(("cancelled", None))
    except VideoReviewError as exc:
        conn.send(("failed", str(exc)))
    except Exception as exc:  # a bug: report it to the window rather than die silently
        import traceback

        traceback.print_exc()
        conn.send(("failed", f"{subject}: unexpected error: {exc!r}"))
    finally:
        conn.close()


def run_analysis(path: str, engines: dict[str, str] | None, previous: Analysis | None, conn, cancel_event) -> None:
    """The child's entry point (must stay importable without Qt). ``previous`` is what
    the window shows: its edits are kept. ``engines`` None: those in the
    engine choices, each fallback sent as ("notice", one line)."""
    from .analyse_and_save import analyse_and_save
    from .cache import StageCache
    from .cancel import CancelToken
    from .stages import build_stages

    cancel = CancelToken()
    # Pass the parent's cancel on to the token the pipeline checks between batches.
    watcher = threading.Thread(target=lambda: (cancel_event.wait(), cancel.cancel()), daemon=True)
    watcher.start()

    def work() -> Analysis:
        from ..choices import choose, chosen_device

        if engines is None:
            chosen = choose(lambda text: conn.send(("notice", text)))
            stages = build_stages(chosen.analysis_engines(), chosen.device)
        else:
            stages = build_stages(engines, chosen_device())
        progress = _send_analysis_progress(conn, ProgressTally(path, ["probe"] + [s.name for s in stages]))
        for stage in stages:  # before the first request: the user is told where the frames go
            sent_to = getattr(getattr(stage, "engine", None), "sends_frames_to", None)
            if sent_to:
                conn.send(("notice", f"Frames of the video are sent to {sent_to} to be captioned"))
        # With a previous Analysis on screen, stage-by-stage results would only flicker.
        on_stage = None if previous is not None else (lambda a: conn.send(("partial", a)))
        # A new video gets its whole timeline at a coarse level first (pipeline/coarse.py).
        return analyse_and_save(path, previous, progress=progress, cancel=cancel, cache=StageCache(), stages=stages,
                                on_stage=on_stage, coarse_first=on_stage is not None,
                                notice=lambda text: conn.send(("notice", text)))

    _report(conn, path, work)


def run_visil(analysis: Analysis, video_path: str, summaries: list[Summary], scorer_spec: str,
              reference: Reference | None, conn, cancel_event) -> None:
    """The child's entry point for comparing summaries by ViSIL (see summary.compare):
    sends ("progress", (fraction, message)) then the Comparison. ``scorer_spec`` is
    "builtin" or a VLM model folder; ``reference`` None lets ``prepare`` choose one."""
    from ..choices import chosen_device
    from ..summary import compare as comparing

    progress = _send_fractions(conn)

    def work() -> comparing.Comparison:
        try:
            setup = comparing.prepare(analysis, video_path, scorer_spec, reference, progress, chosen_device())
            try:
                if cancel_event.is_set():  # loading a model can take long: do not score after a cancel
                    raise Cancelled()
                return comparing.compare(summaries, setup.scorer, setup.reference, keywords=setup.keywords,
                                         progress=progress, cancelled=cancel_event.is_set)
            finally:
                setup.release()
        except ValueError as exc:  # an empty reference, one without keywords, a scorer giving NaN
            raise VideoReviewError(str(exc)) from None

    # A model folder is the likelier culprit of an unexpected error (one that will not load, say).
    _report(conn, video_path if is_builtin("scoring", scorer_spec) else scorer_spec, work)


def run_summaries(analysis: Analysis, video_path: str, requests: list[tuple[str, int]], writer_spec: str,
                  conn, cancel_event) -> None:
    """The child's entry point for writing summaries with a VLM (see summary.writer):
    ``requests`` are (format, keyframes) pairs; sends ("progress", (fraction, message))
    then the list of Summaries."""
    from ..choices import chosen_device
    from ..summary.builder import build
    from ..summary.writer import load_writer

    progress = _send_fractions(conn)

    def work() -> list[Summary]:
        progress(0.0, f"loading {writer_spec}")
        writer, release = load_writer(writer_spec, video_path, chosen_device())
        try:
            summaries = []
            for n, (fmt, k) in enumerate(requests):
                if cancel_event.is_set():
                    raise Cancelled()
                progress(n / len(requests), f"writing summary {n + 1} of {len(requests)}")
                summaries.append(build(analysis, fmt, k, writer))
            progress(1.0, "done")
            return summaries
        finally:
            release()

    _report(conn, writer_spec, work)
