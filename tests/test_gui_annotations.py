"""File > Export for annotation tools… and File > Import corrections… in the real window, on
the face scene analysed by the fake engines (objects, faces, bodies, boundaries, captions):
every format in the table (read when the tests run) is written through the window; a file
with one correction comes back as one undo step, which Undo takes back; a damaged file is
one line in the notice bar and changes nothing."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtWidgets import QDialogButtonBox  # noqa: E402

from fake_engines import WITH_PEOPLE  # noqa: E402
from helpers import choose_engines, main_window  # noqa: E402
from videoreview.annotations import FORMATS, export_annotations  # noqa: E402
from videoreview.annotations.tracks import object_tracks  # noqa: E402
from videoreview.gui.annotation_files import AnnotationFiles, takes_frames  # noqa: E402
from videoreview.pipeline import edits  # noqa: E402

ANALYSIS_MS = 180_000
FRAMES_MS = 60_000
READABLE = [f.name for f in FORMATS.values() if f.read]
# The file each readable format's reader reads, in the folder its writer fills (issue 56's layouts).
READ_FROM = {f.name: f.file for f in FORMATS.values() if f.read}  # the file each reader reads back


def relabelled(analysis):
    """The first object track called a dog: what a track format carries back."""
    track = object_tracks(analysis)[0]
    frame, box = next(iter(track.boxes.items()))
    return edits.relabel_track(analysis, "objects", frame, box, "dog")


def object_labels(analysis) -> list[str]:
    return [t.label for t in object_tracks(analysis)]


def recaptioned(analysis):
    """The first boundary's subject and states rewritten: what a boundaries format carries back."""
    frame = analysis.boundaries[0].frame
    return edits.edit_boundary_caption(analysis, frame, "a dog", "sitting", "running")


def boundary_captions(analysis) -> list:
    return [(b.frame, b.caption and (b.caption.subject, b.caption.before, b.caption.after))
            for b in analysis.boundaries]


# format -> (the one correction made in the file, what the analysis shows of it)
CORRECTIONS = {"cvat": (relabelled, object_labels), "mot_seq": (relabelled, object_labels),
               "label-studio": (relabelled, object_labels), "kinetic-geb": (recaptioned, boundary_captions)}


@pytest.fixture()
def window(qtbot, home, scene):
    choose_engines(WITH_PEOPLE)
    shutil.rmtree(home / "analyses", ignore_errors=True)
    (home / "settings.ini").unlink(missing_ok=True)
    with main_window(qtbot) as w:
        with qtbot.waitSignal(w.queue.finished, timeout=ANALYSIS_MS,
                              check_params_cb=lambda p, analysis: p == str(scene.path)):
            w.open_paths([str(scene.path)])
        assert object_tracks(w.current.analysis) and w.current.analysis.boundaries
        w.last_notice = ""
        yield w


def menu_action(window, text: str):
    file_menu = window.menuBar().actions()[0].menu()
    return next(a for a in file_menu.actions() if a.text().replace("&", "") == text)


def one_line_naming(window, path) -> bool:
    notice = window.last_notice
    return bool(notice) and "\n" not in notice and str(path) in notice


def test_the_table_has_a_format_read_back():
    assert READABLE, f"no format in FORMATS is read back: {list(FORMATS)}"
    assert set(READABLE) <= set(CORRECTIONS), f"a correction for {set(READABLE) - set(CORRECTIONS)}: add it here"


def test_every_format_is_written_from_the_window(qtbot, window, tmp_path):
    files = AnnotationFiles.of(window)
    first = "cvat" if "cvat" in FORMATS else next(iter(FORMATS))
    # The menu's dialog: the format's carries and leaves_out shown, the folder chosen, OK writes.
    menu_action(window, "Export for annotation tools…").trigger()
    dialog = files.dialog
    assert dialog is not None and dialog.isVisible()
    assert [dialog.format.itemText(i) for i in range(dialog.format.count())] == list(FORMATS)
    dialog.format.setCurrentText(first)
    assert dialog.carries.text() == FORMATS[first].carries and dialog.leaves_out.text() == FORMATS[first].leaves_out
    assert dialog.frames.isEnabled() == takes_frames(first)
    assert dialog.choice()[1].endswith(f"scene {first}")  # beside the video by default
    dialog.folder.setText(str(tmp_path / first))
    dialog.buttons.button(QDialogButtonBox.Ok).click()
    assert any(p.is_file() for p in (tmp_path / first).rglob("*")), f"{first} wrote nothing"
    assert window.last_notice == "" or one_line_naming(window, tmp_path / first), window.last_notice

    for name in FORMATS:
        folder = tmp_path / "all" / name
        window.last_notice = ""
        assert files.export(name, str(folder)), window.last_notice
        assert any(p.is_file() for p in folder.rglob("*")), f"{name} wrote nothing"
        assert window.last_notice == "" or one_line_naming(window, folder), window.last_notice

    # A format writing the frames' pictures does it on a thread of its own.
    for name in filter(takes_frames, FORMATS):
        folder = tmp_path / "frames" / name
        assert files.export(name, str(folder), frames=True)
        assert files.running is not None
        qtbot.waitUntil(lambda: files.running is None, timeout=FRAMES_MS)
        pictures = [p for p in folder.rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png")]
        assert pictures, f"{name} with frames wrote no pictures"


@pytest.mark.parametrize("name", READABLE)
def test_a_correction_comes_back_as_one_undo_step(qtbot, window, tmp_path, name):
    document = window.current
    before = document.analysis
    correct, shown = CORRECTIONS[name]
    corrected = correct(before)
    assert shown(corrected) != shown(before)
    export_annotations(corrected, name, tmp_path / name)
    path = tmp_path / name / READ_FROM[name]
    assert path.is_file(), f"{name} did not write {READ_FROM[name]}"

    files = AnnotationFiles.of(window)
    files.ask_open_path = lambda: str(path)
    menu_action(window, "Import corrections…").trigger()
    assert window.last_notice == "", window.last_notice
    assert shown(document.analysis) == shown(corrected)
    assert document.undo_stack.count() == 1  # the one correction, one step
    undo_text = document.undo_stack.undoText()
    assert undo_text and window.menus.undo.text() == f"&Undo {undo_text}"
    window.menus.undo.trigger()
    assert document.analysis == before

    # The file written from the analysis shown has nothing to correct.
    export_annotations(before, name, tmp_path / "same")
    assert files.import_file(str(tmp_path / "same" / READ_FROM[name])) == []
    assert window.last_notice == "" and document.analysis == before


@pytest.mark.parametrize("name", READABLE)
def test_a_damaged_file_is_one_line_and_changes_nothing(window, tmp_path, name):
    document = window.current
    before = document.analysis
    export_annotations(before, name, tmp_path / name)
    whole = (tmp_path / name / READ_FROM[name]).read_bytes()
    damaged = {"noise": bytes(range(256)) * 8}  # (test_fuzz.py tries many more)
    if Path(READ_FROM[name]).suffix in (".xml", ".json"):
        damaged["cut"] = whole[: len(whole) // 2]
    for how, data in damaged.items():
        path = tmp_path / how / Path(READ_FROM[name]).name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        window.last_notice = ""
        assert AnnotationFiles.of(window).import_file(str(path), name) == [], how
        assert one_line_naming(window, path), (how, window.last_notice)
        assert document.analysis is before and document.undo_stack.count() == 0, how


def test_no_video_no_export(qtbot, home):
    with main_window(qtbot) as w:
        menu_action(w, "Import corrections…").trigger()
        assert w.last_notice.startswith("Import corrections: open a video")
        assert AnnotationFiles.of(w).export(next(iter(FORMATS)), str(home / "nowhere")) is False
        assert not (home / "nowhere").exists()
