"""What the library process does for the window (library.service), called directly on a
real catalog in a temp VIDEOREVIEW_HOME, with hand-made analyses saved as the pipeline
saves them: indexing a saved analysis, grounding inside one video, catching up on
analyses saved after they were indexed (an edit as the window closed), what is left
to analyse, and reviewers' notes: searched, filtered and listed across videos."""

from __future__ import annotations

import dataclasses
import os
import time

import pytest

from helpers import Words, garden, kitchen
from videoreview.errors import LibraryError, VideoReviewError
from videoreview.library.service import LibraryService, _call
from videoreview.notes import changes
from videoreview.pipeline import store


@pytest.fixture()
def service(tmp_path, monkeypatch):
    monkeypatch.setenv("VIDEOREVIEW_HOME", str(tmp_path / "home"))
    service = LibraryService(embedder=Words())
    yield service
    service.close()


def video_file(tmp_path, name: str):
    path = tmp_path / name
    path.write_bytes(name.encode())
    return str(path)


def test_a_saved_analysis_is_indexed_and_searchable(service, tmp_path):
    path = video_file(tmp_path, "kitchen.mp4")
    store.save(kitchen(path))
    assert service.index(path, "a" * 64) > 0
    [video] = service.videos()
    assert video.path == os.path.realpath(path) and video.status == "done"
    best = service.search("pours tea", top=5)[0]
    assert best.path == video.path and best.start >= 6.0  # the woman pours tea after the cut at 6 s
    with pytest.raises(LibraryError, match="no saved analysis"):
        service.index(path, "c" * 64)


def test_grounding_searches_only_the_open_video(service, tmp_path):
    for name, make in (("kitchen.mp4", kitchen), ("garden.mp4", garden)):
        path = video_file(tmp_path, name)
        store.save(make(path))
        service.index(path, make(path).content_hash)
    kitchen_path = str(tmp_path / "kitchen.mp4")
    inside = service.search("Ada", video_path=kitchen_path)
    assert inside and {m.path for m in inside} == {os.path.realpath(kitchen_path)}
    assert len({m.path for m in service.search("Ada")}) == 2  # both videos have an Ada
    with pytest.raises(LibraryError, match="not in the library yet"):
        service.search("Ada", video_path=video_file(tmp_path, "other.mp4"))
    with pytest.raises(VideoReviewError, match="query is empty"):
        service.search("   ")


def test_resume_indexes_edits_saved_after_indexing_and_lists_what_is_left(service, tmp_path):
    path = video_file(tmp_path, "kitchen.mp4")
    analysis = kitchen(path)
    store.save(analysis)
    service.index(path, analysis.content_hash)
    assert not service.search("Grace", identity="Grace")
    time.sleep(0.01)  # the edit is saved after the indexing (file times have ms resolution or better)
    p1, p2 = analysis.identities
    renamed = dataclasses.replace(analysis, identities=(dataclasses.replace(p1, name="Grace"), p2))
    store.save(renamed)  # ... and the window closed before the library took it
    waiting = video_file(tmp_path, "waiting.mp4")
    service.catalog.add_video(waiting, "d" * 64)  # catalogued, never analysed
    assert service.resume() == [os.path.realpath(waiting)]
    found = service.search("Grace", identity="Grace")
    assert found and all(m.start < 6.0 for m in found)  # P1 is on screen for the first 6 s


def test_a_failed_analysis_is_noted_only_for_catalogued_videos(service, tmp_path):
    known = video_file(tmp_path, "known.mp4")
    service.catalog.add_video(known, "e" * 64)
    service.failed(known, f"{known}: not a video")
    service.failed(video_file(tmp_path, "dropped.mp4"), "not a video")  # opened in the window only
    assert [(v.path, v.status, v.error) for v in service.videos()] == [
        (os.path.realpath(known), "failed", f"{known}: not a video")]


def test_unknown_requests_are_refused(service):
    with pytest.raises(VideoReviewError, match="unknown request"):
        _call(service, "close", (), print)


def with_notes(analysis, *notes):
    """``analysis`` with notes (frame, text, tag, author, status)."""
    for frame, text, tag, author, status in notes:
        note = changes.new_note(analysis, frame, text, tag=tag, author=author)
        analysis = changes.add_note(analysis, note)
        if status != "open":
            analysis = changes.change_note(analysis, note.id, status=status)
    return analysis


def test_notes_are_searched_filtered_and_listed_across_videos(service, tmp_path):
    paths = {}
    for name, make, notes in (
            ("kitchen.mp4", kitchen, [(250, "The logo is cut off", "red", "Ada", "open"),
                                      (50, "Too dark: lift the shadows", "yellow", "Grace", "open"),
                                      (100, "Logo colour is wrong", "red", "Grace", "resolved")]),
            ("garden.mp4", garden, [(150, "The dog's logo collar flickers", "green", "Ada", "open")])):
        paths[name] = video_file(tmp_path, name)
        analysis = with_notes(make(paths[name]), *notes)
        store.save(analysis)
        service.index(paths[name], analysis.content_hash)
    kitchen_path, garden_path = (os.path.realpath(paths[n]) for n in ("kitchen.mp4", "garden.mp4"))

    found = service.search("cut off logo", top=3)
    assert (found[0].kind, found[0].text, found[0].start, found[0].path) == (
        "note", "The logo is cut off", 10.0, kitchen_path)
    notes_only = service.search("logo", kind="note", top=20)
    assert {m.text for m in notes_only} == {"The logo is cut off", "Logo colour is wrong",
                                            "The dog's logo collar flickers"}
    assert {m.text for m in service.search("logo", tag="red", top=20)} == {"The logo is cut off",
                                                                         "Logo colour is wrong"}
    assert [m.text for m in service.search("logo", status="resolved", top=20)] == ["Logo colour is wrong"]
    assert {m.text for m in service.search("logo dark", author="grace", top=20)} == {  # any case
        "Too dark: lift the shadows", "Logo colour is wrong"}
    assert service.search("logo", tag="red", author="Ada", status="open", top=20)[0].text == "The logo is cut off"
    assert service.search("logo", tag="purple") == []

    # Open notes across the library: video (path) then time order, the resolved one left out.
    listed = _call(service, "notes", ("open",), print)  # as the window asks for them
    assert [(n.path, n.start, n.text, n.tag, n.author) for n in listed] == [
        (garden_path, 6.0, "The dog's logo collar flickers", "green", "Ada"),
        (kitchen_path, 2.0, "Too dark: lift the shadows", "yellow", "Grace"),
        (kitchen_path, 10.0, "The logo is cut off", "red", "Ada")]
    assert {n.status for n in listed} == {"open"}
    assert [n.text for n in service.notes("resolved")] == ["Logo colour is wrong"]
    assert len(service.notes(None)) == 4
    assert [n.text for n in service.notes(None, tag="red", author="GRACE")] == ["Logo colour is wrong"]

    # Resolving a note in review (indexed again) takes it off the list; forgetting a video its notes.
    analysis = store.load_saved(kitchen(kitchen_path).content_hash)
    dark = next(n for n in analysis.notes if n.text.startswith("Too dark"))
    store.save(changes.change_note(analysis, dark.id, status="resolved"))
    service.index(kitchen_path, analysis.content_hash)
    assert [n.text for n in service.notes()] == ["The dog's logo collar flickers", "The logo is cut off"]
    service.remove(next(v.id for v in service.videos() if v.path == garden_path))
    assert [n.text for n in service.notes()] == ["The logo is cut off"]
    assert service.catalog.query("SELECT count(*) FROM unit_notes")[0][0] == 3  # the garden's went with it


def test_a_search_is_answered_while_a_run_on_the_cluster_goes_on(tmp_path, monkeypatch):
    """serve() answers a cluster run on a thread of its own: the window's other requests do
    not wait for it (the driver here only holds the run open: the wiring is what is tested)."""
    import multiprocessing
    import threading

    from tiny_vlm import colour_clip
    from videoreview.library.service import serve

    monkeypatch.setenv("VIDEOREVIEW_HOME", str(tmp_path / "home"))
    colour_clip(tmp_path / "one.mp4", seconds=1)
    seen = {}

    def driver(paths, address, engines, *, catalog, embedder, frames, report, cancel):
        report(paths[0], "running", "node-a")
        deadline = time.monotonic() + 60  # the run goes on until the window's Stop reaches it
        while not cancel.cancelled and time.monotonic() < deadline:
            time.sleep(0.01)
        seen["cancelled"] = cancel.cancelled

    ours, theirs = multiprocessing.Pipe()
    stop = threading.Event()
    child = threading.Thread(target=serve, args=(theirs, stop, driver), daemon=True)
    child.start()
    try:
        ours.send((1, "add_on_cluster", ([str(tmp_path / "one.mp4")], "auto", {"boundaries": "builtin"})))
        while ours.recv()[2] != ("cluster", "running", str(tmp_path / "one.mp4"), "node-a"):
            pass
        ours.send((2, "videos", ()))
        reply = ours.recv()
        assert reply[:2] == (2, "ok") and [v.status for v in reply[2]] == ["new"]  # answered mid-run
        ours.send((3, "add_on_cluster", ([str(tmp_path / "one.mp4")], "auto", {})))
        assert ours.recv()[:2] == (3, "error")  # one run at a time
        stop.set()  # the window's Stop reaches the run's token, which ends the run
        reply = ours.recv()
        assert reply[:2] == (1, "ok") and reply[2]["wanted"] == [str(tmp_path / "one.mp4")]
        assert seen["cancelled"]
    finally:
        ours.send(None)
        child.join(10)
