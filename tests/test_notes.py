"""Reviewer notes: the records, the edits and merging, and every file format, with times
exact to the frame at 23.976, 25 and 29.97 fps (drop-frame timecode at 29.97), on real
clips at those rates. Editors' own readers check our files where one exists
(OpenTimelineIO's fcp_xml and fcpx_xml adapters, pysubs2 for subtitles)."""

import json
import os
import xml.etree.ElementTree as ET
from dataclasses import replace
from fractions import Fraction

import pysubs2
import pytest

from helpers import run
from videoreview.errors import RecordError
from videoreview.media import probe
from videoreview.notes import changes
from videoreview.notes.files import export_notes, import_notes
from videoreview.pipeline import store
from videoreview.records import Analysis, Shape
from videoreview.smpte import timecode
from videos import ffmpeg

RATES = {"23.976": "24000/1001", "25": "25", "29.97": "30000/1001"}
ROUND_TRIP = (".json", ".csv", ".edl", ".otio")
# The frames around a drop-frame minute (1799, 1800: 00:00:59;29 then 00:01:00;02), the
# first and the last.
FRAMES = (0, 1, 1799, 1800, 1801)


@pytest.fixture(scope="module", params=sorted(RATES))
def clip(request, tmp_path_factory):
    """A real 80 s clip at the rate, tiny, probed as the app probes it."""
    path = tmp_path_factory.mktemp("notes") / f"clip {request.param}.mp4"
    ffmpeg("-f", "lavfi", "-i", f"testsrc2=size=64x36:rate={RATES[request.param]}:duration=80",
           "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", path)
    return Analysis(video=probe(path), content_hash=f"clip-{request.param}")


def with_notes(analysis: Analysis) -> Analysis:
    last = analysis.video.frame_count - 1
    drawing = (Shape("arrow", ((0.1, 0.2), (0.4, 0.5))), Shape("stroke", ((0.1, 0.1), (0.2, 0.15), (0.3, 0.1))),
               Shape("ellipse", ((0.5, 0.5), (0.7, 0.6)), color="#00ff00"), Shape("text", ((0.2, 0.8),), text="here"))
    tags = ("red", "green", "blue", "yellow", "purple", "cyan", "pink")
    for i, frame in enumerate((*FRAMES, last)):
        note = changes.new_note(analysis, frame, f"note {i}: the logo | is cut off, “quoted”, é", tag=tags[i % 7],
                                author="Ada", drawing=drawing if i == 2 else ())
        analysis = changes.add_note(analysis, note)
    ranged = changes.new_note(analysis, 1790, "cut this range", end_frame=1810, tag="red", author="Grace")
    analysis = changes.add_note(analysis, ranged)
    return changes.change_note(analysis, ranged.id, status="resolved")


CARRIED = {".json": None, ".otio": None, ".csv": lambda n: replace(n, drawing=()),
           ".edl": lambda n: (n.id, n.frame, n.end_frame, n.tag, n.status, n.author,
                              " ".join(n.text.replace("|", "/").split()))}


@pytest.mark.parametrize("suffix", ROUND_TRIP)
def test_notes_round_trip_exact_to_the_frame(clip, suffix, tmp_path):
    analysis = with_notes(clip)
    path = tmp_path / f"notes{suffix}"
    export_notes(analysis, path)
    # Into the same video without notes: every note, at its frames, with what the format carries.
    bare = replace(analysis, notes=())
    imported, report, messages = import_notes(bare, path)
    assert messages == [] and report.added == len(analysis.notes)
    view = CARRIED[suffix] or (lambda n: n)
    assert [view(n) for n in imported.notes] == [view(n) for n in analysis.notes]
    # Back into the video it came from: nothing new, nothing changed, nothing reported.
    again, report, messages = import_notes(analysis, path)
    assert again == analysis and report.unchanged == len(analysis.notes) and not messages


def test_timecodes_are_what_editors_write(clip, tmp_path):
    analysis = with_notes(clip)
    fps = clip.video.fps
    expected = {"23.976": ("00:01:14:23", "00:01:15:00"), "25": ("00:01:11:24", "00:01:12:00"),
                "29.97": ("00:00:59;29", "00:01:00;02")}[f"{fps:.5g}" if fps != 25 else "25"]
    assert (timecode(1799, fps), timecode(1800, fps)) == expected
    export_notes(analysis, tmp_path / "n.edl")
    edl = (tmp_path / "n.edl").read_text(encoding="utf-8")
    assert ("FCM: DROP FRAME" in edl) == (expected[0][8] == ";")
    assert f"01:{expected[1][3:]}" in edl  # the timeline starts at 01:00:00:00, as Resolve's does


def test_the_edl_has_resolves_marker_layout(tmp_path):
    """Line for line what Resolve's Export > Timeline Markers to EDL writes."""
    info = probe_free_info(fps=25.0, frames=250)
    analysis = Analysis(video=info, content_hash="x")
    note = replace(changes.new_note(analysis, 125, "Logo cut off", tag="yellow", author="Ada"), id="a" * 32)
    ranged = replace(changes.new_note(analysis, 50, "cut\nthis", end_frame=74, tag="green", author="Ada"), id="b" * 32)
    analysis = changes.add_note(changes.add_note(analysis, note), ranged)
    export_notes(analysis, tmp_path / "m.edl")
    assert (tmp_path / "m.edl").read_text(encoding="utf-8").splitlines() == [
        "TITLE: clip notes at 25 fps",
        "FCM: NON-DROP FRAME",
        "",
        "001  001      V     C        01:00:02:00 01:00:02:01 01:00:02:00 01:00:02:01  ",
        f"cut this |C:ResolveColorGreen |M:Ada (open) {'b' * 32} |D:25",
        "",
        "002  001      V     C        01:00:05:00 01:00:05:01 01:00:05:00 01:00:05:01  ",
        f"Logo cut off |C:ResolveColorYellow |M:Ada (open) {'a' * 32} |D:1",
    ]


def probe_free_info(fps: float, frames: int):
    from videoreview.records import VideoInfo

    return VideoInfo(path="/videos/clip.mp4", duration=frames / fps, fps=fps, frame_count=frames, width=64, height=36)


RESOLVE_EDL = """TITLE: ( no title )
FCM: NON-DROP FRAME

001  001      V     C        01:00:01:06 01:00:01:07 01:00:01:06 01:00:01:07  
Hair in the gate |C:ResolveColorYellow |M:Marker 1 |D:1

002  001      V     C        01:00:02:20 01:00:02:21 01:00:02:20 01:00:02:21  
Sound early |C:ResolveColorFuchsia |M:Marker 2 |D:12

003  001      V     C        01:00:03:00 01:00:03:01 01:00:03:00 01:00:03:01  
 |C:ResolveColorCocoa |M:Marker 3 |D:1
"""


def test_an_editors_marker_edl_comes_in_once_with_colours_said(tmp_path):
    analysis = Analysis(video=probe_free_info(fps=25.0, frames=250), content_hash="x")
    path = tmp_path / "resolve.edl"
    path.write_text(RESOLVE_EDL, encoding="utf-8")
    merged, report, messages = import_notes(analysis, path)
    notes = merged.notes
    assert [(n.frame, n.last_frame, n.text, n.tag) for n in notes] == [
        (31, 31, "Hair in the gate", "yellow"), (70, 81, "Sound early", "pink"), (75, 75, "Marker 3", "blue")]
    assert messages == [f"{path}: marker colour 'ResolveColorCocoa' is not one of blue, cyan, green, yellow, red, "
                        "pink, purple: tagged blue"]
    again, report, _ = import_notes(merged, path)
    assert again == merged and report.unchanged == 3  # no duplicates the second time


def test_an_edl_at_another_rate_is_converted_and_said(tmp_path):
    """A drop-frame EDL (29.97) onto a 25 fps video: same times, nearest frames, one line."""
    analysis = Analysis(video=probe_free_info(fps=25.0, frames=25 * 90), content_hash="x")
    path = tmp_path / "ntsc.edl"
    path.write_text("TITLE: t\nFCM: DROP FRAME\n\n"
                    "001  001      V     C        01:01:00;04 01:01:00;05 01:01:00;04 01:01:00;05  \n"
                    "At one minute |C:ResolveColorRed |M:Marker 1 |D:1\n", encoding="utf-8")
    merged, _, messages = import_notes(analysis, path)
    assert merged.notes[0].frame == 1503  # 01:00;04 drop-frame is frame 1802 at 29.97: 60.127 s
    assert len(messages) == 2 and "drop-frame" in messages[0] and "29.97 fps" in messages[1]


def test_fcp7_xml_is_read_by_an_independent_reader(clip, tmp_path):
    import opentimelineio as otio

    analysis = with_notes(clip)
    export_notes(analysis, tmp_path / "n.xml")
    timeline = otio.adapters.read_from_file(str(tmp_path / "n.xml"), "fcp_xml")
    markers = list(timeline.tracks.markers) + [m for track in timeline.tracks for m in track.markers]
    found = sorted((round(m.marked_range.start_time.value), round(m.marked_range.duration.value)) for m in markers)
    assert found == sorted((n.frame, n.last_frame - n.frame + 1 if n.is_range else 0) for n in analysis.notes)


def test_fcpxml_markers_sit_on_frame_boundaries(clip, tmp_path):
    import opentimelineio as otio

    analysis = with_notes(clip)
    export_notes(analysis, tmp_path / "n.fcpxml")
    root = ET.parse(tmp_path / "n.fcpxml").getroot()
    step = Fraction(root.find("resources/format").get("frameDuration")[:-1])
    markers = root.findall(".//asset-clip/marker")
    starts = [Fraction(m.get("start")[:-1]) / step for m in markers]
    assert all(s.denominator == 1 for s in starts)
    assert [int(s) for s in starts] == [n.frame for n in analysis.notes]
    assert [m.get("completed") for m in markers] == ["1" if n.status == "resolved" else "0" for n in analysis.notes]
    # OpenTimelineIO's FCPXML reader reads the file (its times are not exact: it rounds
    # NTSC rates, so they are checked above).
    timelines = list(otio.adapters.read_from_file(str(tmp_path / "n.fcpxml"), "fcpx_xml"))
    assert len([m for c in timelines[0].find_clips() for m in c.markers]) == len(analysis.notes)


@pytest.mark.parametrize("suffix", [".srt", ".vtt"])
def test_subtitles_of_notes_play(suffix, tmp_path):
    analysis = with_notes(Analysis(video=probe_free_info(fps=25.0, frames=2000), content_hash="x"))
    export_notes(analysis, tmp_path / f"n{suffix}")
    events = pysubs2.load(str(tmp_path / f"n{suffix}"))
    assert [e.start for e in events] == [round(n.time * 1000) for n in analysis.notes]
    assert "✓ Grace: cut this range" in [e.plaintext for e in events]


def test_merging_by_id_keeps_the_later_change_and_says_so():
    analysis = Analysis(video=probe_free_info(fps=25.0, frames=250), content_hash="x")
    mine = changes.new_note(analysis, 10, "mine")
    analysis = changes.add_note(analysis, mine)
    theirs_later = replace(mine, text="theirs", changed="2999-01-01T00:00:00.000Z")
    theirs_older = replace(mine, text="old", changed="2000-01-01T00:00:00.000Z")
    other = changes.new_note(analysis, 20, "another reviewer's")
    merged, report = changes.merge_notes(analysis, [theirs_later, other])
    assert [n.text for n in merged.notes] == ["theirs", "another reviewer's"]
    assert (report.added, report.updated, len(report.conflicts)) == (1, 1, 1)
    assert "kept the imported one" in report.conflicts[0]
    kept, report = changes.merge_notes(analysis, [theirs_older])
    assert kept.notes == analysis.notes and report.kept == 1 and "kept this one" in report.conflicts[0]


def test_a_deleted_note_stays_deleted_when_copies_merge():
    """A deletion is kept with its time, so an older copy that still has the note does not
    bring it back, whichever copy is the base; a file imported brings it back, as changed
    now, and then the other copies take it back too."""
    import time

    analysis = Analysis(video=probe_free_info(fps=25.0, frames=250), content_hash="x")
    gone = changes.new_note(analysis, 10, "to delete")
    stays = changes.new_note(analysis, 20, "to keep")
    both = changes.add_note(changes.add_note(analysis, gone), stays)
    time.sleep(0.002)  # (times are to the millisecond)
    deleted = changes.delete_note(both, gone.id, author="Grace")
    assert [(d.id, d.author) for d in deleted.deleted_notes] == [(gone.id, "Grace")]
    assert [n.text for n in deleted.notes] == ["to keep"]
    for base, other in ((deleted, both), (both, deleted)):
        merged = changes.merge_copies(base, other)
        assert [n.text for n in merged.notes] == ["to keep"] and merged.deleted_notes == deleted.deleted_notes
    time.sleep(0.002)
    imported, report = changes.merge_notes(deleted, [gone])
    assert [n.text for n in imported.notes] == ["to delete", "to keep"] and report.added == 1
    assert imported.deleted_notes == () and imported.notes[0].changed > deleted.deleted_notes[0].deleted
    for base, other in ((deleted, imported), (imported, deleted)):
        assert [n.text for n in changes.merge_copies(base, other).notes] == ["to delete", "to keep"]
    assert Analysis.from_dict(deleted.to_dict()).deleted_notes == deleted.deleted_notes


def test_edits_stamp_the_change_and_refuse_what_is_not_a_note():
    analysis = Analysis(video=probe_free_info(fps=25.0, frames=250), content_hash="x")
    note = changes.new_note(analysis, 10, "  text  ", author="Ada")
    assert note.text == "text" and note.created == note.changed and note.status == "open"
    analysis = changes.add_note(analysis, note)
    assert changes.change_note(analysis, note.id, text="text") is analysis  # nothing differs
    resolved = changes.change_note(analysis, note.id, status="resolved").notes[0]
    assert resolved.status == "resolved" and resolved.changed >= note.changed
    moved = changes.change_note(analysis, note.id, frame=20, end_frame=30).notes[0]
    assert (moved.frame, moved.time, moved.end_frame, moved.end_time) == (20, 0.8, 30, 1.2)
    for bad in (lambda: changes.new_note(analysis, 250, "after the end"),
                lambda: changes.new_note(analysis, 10, "  "),
                lambda: changes.new_note(analysis, 10, "x", end_frame=5),
                lambda: changes.change_note(analysis, note.id, tag="orange"),
                lambda: changes.add_note(analysis, note)):
        with pytest.raises(RecordError):
            bad()
    assert changes.delete_note(analysis, note.id).notes == ()


def test_an_older_analysis_loads_and_a_note_round_trips_through_the_analysis(tmp_path):
    analysis = with_notes(Analysis(video=probe_free_info(fps=25.0, frames=2000), content_hash="x"))
    analysis.save(tmp_path / "a.json")
    assert Analysis.load(tmp_path / "a.json") == analysis
    old = analysis.to_dict()
    old.pop("notes")
    old["schema_version"] = 3
    (tmp_path / "old.json").write_text(json.dumps(old), encoding="utf-8")
    assert Analysis.load(tmp_path / "old.json").notes == ()


def test_bad_notes_files_give_one_line_and_change_nothing(tmp_path):
    analysis = with_notes(Analysis(video=probe_free_info(fps=25.0, frames=2000), content_hash="x"))
    png = tmp_path / "really a picture.csv"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({"videoreview_notes": 99, "notes": []}), encoding="utf-8")
    not_edl = tmp_path / "words.edl"
    not_edl.write_text("just some words\n", encoding="utf-8")
    outside = tmp_path / "outside.csv"
    outside.write_text("ID,Frame In,Comment\nx1,10,fine\nx2,99999,too late\n", encoding="utf-8")
    not_otio = tmp_path / "n.otio"
    not_otio.write_text("{\"OTIO_SCHEMA\": \"Nonsense.1\"}", encoding="utf-8")
    expected = {png: "not a CSV file", newer: "written by a newer videoreview", not_edl: "not an EDL",
                outside: "frame 99999", not_otio: "not an OpenTimelineIO",
                tmp_path / "notes.docx": "cannot read notes from .docx"}
    for path, words in expected.items():
        with pytest.raises(RecordError) as error:
            import_notes(analysis, path)
        assert str(error.value).startswith(str(path)) and words in str(error.value), str(error.value)


def test_the_notes_command(tmp_path, fresh_home):
    video = tmp_path / "clip.mp4"
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=64x36:rate=25:duration=4", "-c:v", "libx264", "-preset",
           "ultrafast", "-pix_fmt", "yuv420p", video)
    proc = run("notes", video, "--add", "00:00:01:05", "Logo cut off", "--tag", "red", "--author", "Ada")
    assert proc.returncode == 0, proc.stderr
    assert "not analysed yet" in proc.stderr
    proc = run("notes", video, "--add", "2", "Cut this", "--to", "3.5", "--export", tmp_path / "n.edl",
               "--export", tmp_path / "n.csv")
    assert proc.returncode == 0, proc.stderr
    listed = run("notes", video).stdout.splitlines()
    assert [line.split()[1:4] for line in listed] == [["00:00:01:05", "open", "red"],
                                                      ["00:00:02:00-00:00:03:12", "open", "blue"]]
    assert listed[0].endswith("Ada: Logo cut off")
    run("notes", video, "--resolve", listed[0].split()[0])
    saved = store.load_saved(Analysis.load(next((fresh_home / "analyses").glob("*.json"))).content_hash)
    assert [n.status for n in saved.notes] == ["resolved", "open"]
    # Bad input: one line naming the file, and the saved notes unchanged.
    before = os.stat(store.saved_path(saved.content_hash)).st_mtime_ns
    for args, words in ((("--add", "99", "late"), "outside the video"), (("--import", tmp_path / "n.txt"), ".txt"),
                        (("--resolve", "zz"), "no note id starts with 'zz'")):
        proc = run("notes", video, *args)
        assert proc.returncode == 1 and words in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert os.stat(store.saved_path(saved.content_hash)).st_mtime_ns == before
    # Analysing the video keeps the notes.
    assert run("analyze", "-q", video, "-o", tmp_path / "a.json", "--engines", "faces=none,captions=none,"
               "screen-text=none,speech=none,boundaries=fake").returncode == 0
    assert [n.text for n in Analysis.load(tmp_path / "a.json").notes] == ["Logo cut off", "Cut this"]
