"""The background analysis queue and the document with undo, on real videos and QThreads,
the analysis in its real child process with the fake engines (fake_engines.py)."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

import fake_engines  # noqa: E402
from videoreview.gui.document import VideoDocument  # noqa: E402
from videoreview.gui.work.job_status import JobStatus  # noqa: E402
from videoreview.gui.work.jobs import AnalysisQueue  # noqa: E402
from videoreview.pipeline import edits, store  # noqa: E402
from videoreview.progress import AnalysisProgress  # noqa: E402

ENGINES = {key: fake_engines.FAKE for key in ("boundaries", "faces", "captions")}
# A faces stage that takes seconds: a cancel sent as it starts arrives while it runs.
SLOW_ENGINES = {**ENGINES, "faces": fake_engines.SLOW}


@pytest.fixture()
def queue(qtbot, fresh_home):
    q = AnalysisQueue(ENGINES)
    yield q
    q.shutdown()


@pytest.fixture()
def slow_queue(qtbot, fresh_home):
    q = AnalysisQueue(SLOW_ENGINES)
    yield q
    q.shutdown()


def test_stages_arrive_one_by_one_then_the_saved_result(qtbot, queue, cuts_video):
    partials, progress = [], []
    queue.partial.connect(lambda path, analysis: partials.append(analysis))
    queue.progress.connect(progress.append)
    with qtbot.waitSignal(queue.finished, timeout=120_000) as done:
        queue.enqueue(str(cuts_video.path))
    path, final = done.args
    assert path == str(cuts_video.path) and queue.is_idle()
    # probe first (nothing yet), then each stage adds its records
    assert partials[0].boundaries == () and partials[0].captions == ()
    assert [sorted(p.engines) for p in partials[1:]] == [["boundaries"], ["boundaries", "faces"],
                                                          ["boundaries", "captions", "faces"]]
    assert [b.frame for b in final.boundaries if b.kind == "cut"] == list(cuts_video.cut_frames)
    assert store.load_saved(final.content_hash) == final
    assert {p.stage for p in progress} >= {"boundaries", "faces", "captions"}
    fractions = [p.fraction for p in progress]
    assert fractions == sorted(fractions) and 0 < fractions[-1] <= 1

    # Reopening: the saved Analysis arrives first, and the run is all from cache.
    partials.clear()
    with qtbot.waitSignal(queue.finished, timeout=60_000):
        queue.enqueue(str(cuts_video.path))
    assert partials == [final]


def test_the_childs_progress_records_reach_the_status_bar_as_they_are(qtbot, queue, cuts_video):
    status = JobStatus(queue)
    qtbot.addWidget(status)
    shown = []  # each record the queue emitted, with the status bar just after it took it
    queue.progress.connect(lambda progress: shown.append((progress, status.label.text(), status.bar.value())))
    with qtbot.waitSignal(queue.finished, timeout=120_000):
        queue.enqueue(str(cuts_video.path))
    assert shown
    for progress, label, bar in shown:
        assert type(progress) is AnalysisProgress and progress.path == str(cuts_video.path)  # made by the child
        assert label.startswith(f"{cuts_video.path.name}: {progress.stage} {progress.stage_fraction:.0%}")
        assert bar == round(progress.fraction * 1000)
    last = shown[-1][0]
    assert last.stage_fraction == 1.0 and last.fraction == 1.0  # a stage's end is never throttled away
    assert status.label.text() == "Idle"  # the queue is idle


def test_cancel_mid_analysis_saves_nothing(qtbot, slow_queue, cuts_video, fresh_home):
    queue = slow_queue

    def cancel_in_faces(progress):
        if progress.stage == "faces":
            queue.cancel(progress.path)

    queue.progress.connect(cancel_in_faces)
    with qtbot.waitSignal(queue.cancelled, timeout=120_000):
        queue.enqueue(str(cuts_video.path))
    assert queue.is_idle()
    assert not (fresh_home / "analyses").exists() or not any((fresh_home / "analyses").iterdir())


def test_queued_jobs_run_in_turn_and_a_bad_file_fails_alone(qtbot, queue, cuts_video, bad_inputs):
    finished, failed = [], []
    queue.finished.connect(lambda path, analysis: finished.append(path))
    queue.failed.connect(lambda path, message: failed.append((path, message)))
    broken = str(bad_inputs["random"])
    queue.enqueue(broken)
    queue.enqueue(str(cuts_video.path))
    queue.enqueue(str(cuts_video.path))  # already queued: ignored
    assert len(queue.jobs()) == 2
    qtbot.waitUntil(queue.is_idle, timeout=120_000)
    assert finished == [str(cuts_video.path)]
    assert len(failed) == 1 and failed[0][0] == broken and broken in failed[0][1]


def test_document_edits_undo_redo_and_persist(qtbot, queue, cuts_video):
    document = VideoDocument(str(cuts_video.path))
    document.set_status("queued")
    queue.partial.connect(lambda path, analysis: document.show_partial(analysis))
    queue.finished.connect(lambda path, analysis: document.finish(analysis))
    assert document.edit("Add boundary", lambda a: edits.add_boundary(a, 1.0)) is not None  # nothing yet
    with qtbot.waitSignal(queue.finished, timeout=120_000):
        queue.enqueue(str(cuts_video.path))
    original = document.analysis
    assert document.edit("Add boundary", lambda a: edits.add_boundary(a, 1.0)) is None
    frame = document.analysis.captions[0].frame
    assert document.edit("Edit caption", lambda a: edits.edit_caption(a, frame, "Hello.")) is None
    assert store.load_saved(original.content_hash) == document.analysis  # saved as it happened
    problem = document.edit("Add boundary", lambda a: edits.add_boundary(a, 1.0))
    assert "already a boundary" in problem and document.undo_stack.count() == 2

    document.undo_stack.undo()
    assert document.analysis.captions[0].text != "Hello."
    document.undo_stack.undo()
    assert document.analysis == original and store.load_saved(original.content_hash) == original
    document.undo_stack.redo()
    document.undo_stack.redo()
    assert document.analysis.captions[0].text == "Hello." and 25 in [b.frame for b in document.analysis.boundaries]

    # Re-analysis keeps the edits.
    document.set_status("queued")
    with qtbot.waitSignal(queue.finished, timeout=60_000) as done:
        queue.enqueue(document.path, previous=document.analysis)
    again = done.args[1]
    assert again.captions[0].text == "Hello." and 25 in [b.frame for b in again.boundaries]


def test_quitting_mid_analysis_stops_the_analysis_process(qtbot, fresh_home, tmp_path):
    from videos import make_cuts_video

    fresh = make_cuts_video(tmp_path, cut_frames=(40, 90), frames=150, name="fresh.mp4")  # not cached
    queue = AnalysisQueue(SLOW_ENGINES)
    queue.enqueue(str(fresh.path))
    qtbot.waitUntil(lambda: queue.tasks.worker is not None and queue.tasks.worker.child is not None, timeout=30_000)
    thread, child = queue.tasks.worker.thread(), queue.tasks.worker.child
    queue.shutdown()
    assert thread.isFinished() and not child.is_alive()
    assert not (fresh_home / "analyses").exists() or not any((fresh_home / "analyses").iterdir())


def test_a_video_opened_goes_before_the_library_queue(qtbot, queue, cuts_video, tmp_path):
    queue.enqueue(str(cuts_video.path))  # running
    for name in ("a.mp4", "b.mp4", "c.mp4"):
        queue.enqueue(str(tmp_path / name))  # a folder added to the library
    queue.enqueue(str(tmp_path / "c.mp4"), front=True)  # opened in the window while queued
    queue.enqueue(str(tmp_path / "d.mp4"), front=True)  # opened, new
    assert [os.path.basename(job.path) for job in queue.pending] == ["d.mp4", "c.mp4", "a.mp4", "b.mp4"]
    assert queue.current.path == str(cuts_video.path)
    queue.cancel_all()
    qtbot.waitUntil(queue.is_idle, timeout=60_000)


def test_the_chosen_engines_are_used_and_a_missing_model_is_noticed(qtbot, fresh_home, tmp_path, monkeypatch):
    from helpers import choose_engines
    from tiny_vlm import colour_clip

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty hub"))
    fresh_home.mkdir(parents=True, exist_ok=True)
    # The fakes but for captions (a model not installed) and faces (not the default fake).
    choose_engines({**fake_engines.ENGINES, "captions": "llava-onevision-0.5b", "faces": fake_engines.PEOPLE})
    queue = AnalysisQueue()  # no engines given: the engine choices, when each job starts
    notices = []
    queue.notice.connect(notices.append)
    try:
        with qtbot.waitSignal(queue.finished, timeout=120_000) as done:
            queue.enqueue(str(colour_clip(tmp_path / "c.mp4", seconds=1)))
    finally:
        queue.shutdown()
    assert notices == ["llava-onevision-0.5b is not installed (videoreview models pull llava-onevision-0.5b). "
                       "Instead: Frame and boundary captions: builtin"]
    engines = done.args[1].engines
    assert engines["captions"].startswith("builtin@") and engines["faces"].startswith(f"{fake_engines.PEOPLE}@")
