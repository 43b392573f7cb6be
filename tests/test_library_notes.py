"""Reviewers' notes in the library, from the command line, on real analysed clips: notes
added to the saved analyses (as the window and `videoreview notes` add them) are indexed
by `library rebuild`, found by their words, filtered by kind, tag, status and author, and
`library notes` lists the open ones across both videos, video by video in time order.

Facts the notes were made with: "review cut.mp4" (25 fps) has an open red note by Ada at
frame 30, an open yellow range by Grace over frames 100 to 150 and a resolved red note by
Grace at frame 200; "countdown.mp4" (25 fps) has an open green note by Ada at frame 50."""

from __future__ import annotations

import pytest

from helpers import fake_home, run, run_json
from videoreview.notes import changes
from videoreview.pipeline import StageCache, store
from videos import make_cuts_video, make_index_video

NOTES = {
    "review cut.mp4": [(30, None, "The logo is cut off at the top", "red", "Ada", "open"),
                       (100, 150, "Colour grade too warm in this shot", "yellow", "Grace", "open"),
                       (200, None, "Typo in the lower third", "red", "Grace", "resolved")],
    "countdown.mp4": [(50, None, "Audio pops under the countdown", "green", "Ada", "open")],
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("noted videos")
    make_cuts_video(root, name="review cut.mp4")
    make_index_video(root, "countdown.mp4")
    return root


@pytest.fixture(scope="module")
def noted(folder, home):
    """Both clips analysed (by the fake engines, fake_engines.py) and indexed, then notes
    added to their saved analyses and the library rebuilt from them."""
    proc = run("library", "add", folder, home=fake_home(home))
    assert proc.returncode == 0 and proc.stdout.strip() == "2 indexed, 0 unchanged, 0 failed", proc.stderr
    for name, notes in NOTES.items():
        analysis = store.load_saved(StageCache().content_hash(folder / name))
        assert analysis is not None and not analysis.notes
        for frame, end_frame, text, tag, author, status in notes:
            note = changes.new_note(analysis, frame, text, end_frame, tag, author)
            analysis = changes.add_note(analysis, note)
            if status != "open":
                analysis = changes.change_note(analysis, note.id, status=status)
        store.save(analysis)
    proc = run("library", "rebuild", home=home)
    assert proc.returncode == 0 and "rebuilt: 2 videos" in proc.stdout, proc.stderr
    return folder


def search(home, *args) -> list[dict]:
    return run_json("library", "search", *args, home=home)


def notes(home, *args) -> list[dict]:
    return run_json("library", "notes", *args, home=home)


def test_a_note_is_found_by_its_words(noted, home):
    best = search(home, "the logo is cut off")[0]
    assert (best["kind"], best["text"], best["start"], best["path"]) == (
        "note", "The logo is cut off at the top", 1.2, str(noted / "review cut.mp4"))
    warm = search(home, "colour grade too warm")[0]
    assert (warm["kind"], warm["start"], warm["end"]) == ("note", 4.0, 6.0)  # the range, frames 100 to 150


def test_searches_are_limited_to_notes_by_kind_tag_status_and_author(noted, home):
    words = "logo colour typo audio countdown"

    def texts(*filters) -> set[str]:
        return {m["text"] for m in search(home, words, "--top", "50", *filters)}

    everything = search(home, words, "--top", "50")
    assert {m["kind"] for m in everything} > {"note"}  # the file name "countdown" is found too
    assert texts("--kind", "note") == {text for video in NOTES.values() for _, _, text, *_ in video}
    assert texts("--tag", "red") == {"The logo is cut off at the top", "Typo in the lower third"}
    assert texts("--status", "resolved") == {"Typo in the lower third"}
    assert texts("--author", "ada") == {"The logo is cut off at the top", "Audio pops under the countdown"}
    assert texts("--author", "Grace", "--tag", "red", "--status", "resolved") == {"Typo in the lower third"}
    assert texts("--author", "nobody") == set()
    proc = run("library", "search", "logo", "--kind", "notes", home=home)
    assert proc.returncode == 1 and "--kind 'notes' is not one of" in proc.stderr and "note" in proc.stderr
    proc = run("library", "search", "logo", "--tag", "orange", home=home)
    assert proc.returncode == 2 and "invalid choice" in proc.stderr  # argparse names the colours


def test_open_notes_are_listed_across_videos_video_by_video(noted, home):
    proc = run("library", "notes", home=home)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "countdown.mp4  00:00:02:00  green   Ada: Audio pops under the countdown",
        "review cut.mp4  00:00:01:05  red     Ada: The logo is cut off at the top",
        "review cut.mp4  00:00:04:00-00:00:06:00  yellow  Grace: Colour grade too warm in this shot"]
    listed = notes(home)
    assert [(n["path"], n["start"], n["status"]) for n in listed] == [
        (str(noted / "countdown.mp4"), 2.0, "open"), (str(noted / "review cut.mp4"), 1.2, "open"),
        (str(noted / "review cut.mp4"), 4.0, "open")]
    assert [n["text"] for n in notes(home, "--status", "resolved")] == ["Typo in the lower third"]
    assert len(notes(home, "--status", "all")) == 4
    assert [n["text"] for n in notes(home, "--tag", "red")] == ["The logo is cut off at the top"]
    assert [n["text"] for n in notes(home, "--author", "GRACE", "--status", "all")] == [
        "Colour grade too warm in this shot", "Typo in the lower third"]
    everyone = run("library", "notes", "--status", "all", "--tag", "red", home=home).stdout.splitlines()
    assert everyone[1] == "review cut.mp4  00:00:08:00  resolved  red     Grace: Typo in the lower third"
    assert run("library", "notes", "--author", "nobody", home=home).stdout == "no notes\n"


def test_notes_of_a_missing_library_get_one_line(tmp_path):
    proc = run("library", "notes", home=tmp_path / "empty home")
    assert proc.returncode == 1 and "no library yet" in proc.stderr and "Traceback" not in proc.stderr
