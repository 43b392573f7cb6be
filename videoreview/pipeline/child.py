"""Analysis in a child process, for a window: the pipeline imports and runs big native
libraries (torch, dlib, decoders) that hold Python's GIL for long stretches, which would
freeze a window running them on a thread of its own process. A native crash in the child
also leaves the window running.

The child sends ("stages", names), ("progress", (stage, fraction, message)) and
("partial", Analysis), then one of ("done", Analysis), ("failed", message) or
("cancelled", None) through a pipe; the parent sets an Event to cancel it.
"""

from __future__ import annotations

import threading
import time

from ..errors import Cancelled, VideoReviewError
from ..records import Analysis

PROGRESS_INTERVAL = 0.05  # seconds between progress messages: enough for a smooth bar


def saved_analysis(path: str) -> Analysis | None:
    """The Analysis saved for this file's content (found again after a move), if any.
    Quick: the content hash comes from the cache's index unless the file changed."""
    from . import store
    from .cache import StageCache

    try:
        content_hash = StageCache().content_hash(path)
    except OSError:
        return None  # the analysis will say what is wrong with the file
    try:
        return store.load_saved(content_hash)
    except VideoReviewError:
        return None  # a damaged saved file is rebuilt by the analysis


def run_analysis(path: str, engines: dict[str, str], previous: Analysis | None, conn, cancel_event) -> None:
    """The child's entry point (must stay importable without Qt). ``previous`` is what
    the window shows: its edits are kept."""
    from . import store
    from .cache import StageCache
    from .cancel import CancelToken
    from .runner import analyze
    from .stages import build_stages

    cancel = CancelToken()
    # Pass the parent's cancel on to the token the pipeline checks between batches.
    watcher = threading.Thread(target=lambda: (cancel_event.wait(), cancel.cancel()), daemon=True)
    watcher.start()
    last = [0.0]

    def progress(stage: str, fraction: float, message: str) -> None:
        now = time.monotonic()
        if now - last[0] >= PROGRESS_INTERVAL or fraction >= 1.0:
            last[0] = now
            conn.send(("progress", (stage, fraction, message)))

    try:
        stages = build_stages(engines)
        conn.send(("stages", ["probe"] + [s.name for s in stages]))
        cache = StageCache()
        # With a previous Analysis on screen, stage-by-stage results would only flicker.
        analysis = analyze(path, progress=progress, cancel=cancel, cache=cache, previous=previous, stages=stages,
                           on_stage=None if previous is not None else (lambda a: conn.send(("partial", a))))
        cancel.check()
        store.save(analysis)
        conn.send(("done", analysis))
    except Cancelled:
        conn.send(("cancelled", None))
    except VideoReviewError as exc:
        conn.send(("failed", str(exc)))
    except Exception as exc:  # a bug: report it to the window rather than die silently
        import traceback

        traceback.print_exc()
        conn.send(("failed", f"{path}: unexpected error: {exc!r}"))
    finally:
        conn.close()
