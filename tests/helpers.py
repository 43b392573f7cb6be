"""Helpers shared by test modules (no test module imports another): running the command
line, reading pictures back, and hand-made Analyses for the library tests."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import videos as V
from videoreview.records import (
    Analysis,
    Appearance,
    Boundary,
    BoundaryCaption,
    FrameCaption,
    Identity,
    Summary,
    VideoInfo,
)

# -- the command line ----------------------------------------------------------------------

@dataclass
class Result:
    """What a command gave back, as subprocess.CompletedProcess has it."""

    returncode: int
    stdout: str
    stderr: str


def run(*args, cwd=None, home=None) -> Result:
    """``videoreview ARGS`` in this process, through ``cli.main``: the same parser, the same
    code and exit codes, without paying for a new interpreter and its models each time.
    ``home``: the VIDEOREVIEW_HOME for this command; ``cwd``: the folder it runs in."""
    from videoreview.cli import main

    out, err = io.StringIO(), io.StringIO()
    saved_home, saved_cwd = os.environ.get("VIDEOREVIEW_HOME"), os.getcwd()
    saved_library = os.environ.get("VIDEOREVIEW_LIBRARY")  # --library sets it for the command's processes
    if home is not None:
        os.environ["VIDEOREVIEW_HOME"] = str(home)
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main([str(a) for a in args])
            except SystemExit as exit:  # argparse's usage errors and --version
                code = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 2)
    finally:
        os.chdir(saved_cwd)
        if saved_library is None:
            os.environ.pop("VIDEOREVIEW_LIBRARY", None)
        else:
            os.environ["VIDEOREVIEW_LIBRARY"] = saved_library
        if home is not None:
            if saved_home is None:
                os.environ.pop("VIDEOREVIEW_HOME", None)
            else:
                os.environ["VIDEOREVIEW_HOME"] = saved_home
    return Result(code, out.getvalue(), err.getvalue())


def run_json(*args, home=None):
    """``videoreview ARGS --json``, which must succeed: what it printed, read as JSON."""
    proc = run(*args, "--json", home=home)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def run_process(*args, cwd=None, home=None, **kwargs) -> subprocess.CompletedProcess:
    """``python -m videoreview ARGS`` as a user runs it: a new process (entry point, exit
    status, a process that is killed)."""
    env = dict(os.environ, VIDEOREVIEW_HOME=str(home)) if home else None
    return subprocess.run([sys.executable, "-m", "videoreview", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, env=env, **kwargs)


def fake_home(home, engines: dict[str, str] | None = None) -> Path:
    """``home`` (a VIDEOREVIEW_HOME, made if need be) with the fake engines (fake_engines.py,
    or ``engines``) chosen in its engines.json, as a user chooses engines: the commands run
    in it, and the child processes they start, analyse with them."""
    from fake_engines import ENGINES

    choose_engines(engines or ENGINES, home)
    return Path(home)


# -- the window ----------------------------------------------------------------------------

@contextlib.contextmanager
def main_window(qtbot=None, size: tuple[int, int] = (1400, 900)):
    """The main window as the window tests use it: shown at ``size``, closed afterwards.
    Without ``qtbot`` (a window kept for a module's tests) it is closed here alone."""
    from PySide6.QtCore import Qt

    from videoreview.gui.main_window import MainWindow

    window = MainWindow()
    if qtbot is not None:
        qtbot.addWidget(window)
    window.setWindowState(Qt.WindowState.WindowNoState)  # (a first run maximizes it on the small offscreen screen)
    window.resize(*size)
    window.show()
    try:
        yield window
    finally:
        window.close()


def choose_engines(engines: dict[str, str], home=None) -> None:
    """Choose the analysis engines as a user does in Settings: engines.json in ``home``, by
    default the VIDEOREVIEW_HOME of the test (the window, its analysis child and the
    library read it)."""
    from videoreview.choices import FILE_NAME, path

    file = Path(home) / FILE_NAME if home is not None else path()
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(json.dumps(engines), encoding="utf-8")


@contextlib.contextmanager
def engines_chosen(engines: dict[str, str]):
    """``choose_engines`` for a while, then the choices as they were."""
    from videoreview.choices import path

    before = path().read_text(encoding="utf-8") if path().exists() else None
    choose_engines(engines)
    try:
        yield
    finally:
        if before is None:
            path().unlink(missing_ok=True)
        else:
            path().write_text(before, encoding="utf-8")


def back_to_start(qtbot, window) -> None:
    """A window kept for a module's tests, as each test expects to find it: no analysis
    running or queued, no video open, nothing selected, every overlay on, no notice, and
    the active window again (its shortcuts work after another window has been shown)."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5_000)
    window.queue.cancel_all()
    qtbot.waitUntil(window.queue.is_idle, timeout=60_000)
    for document in list(window.documents.values()):
        window.close_document(document)
    window.select(None, None)
    for name, action in window.menus.overlays.items():
        action.setChecked(True)
        window.set_overlay(name, True)
    window.last_notice = ""
    window.notice_label.hide()


def shown_timeline(qtbot, size: tuple[int, int]):
    """A Timeline widget on screen at ``size``, as the timeline tests paint and click it."""
    from videoreview.gui.timeline import Timeline

    widget = Timeline()
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def lane_y(timeline, track: str, lane: int, at: float = 0.5) -> int:
    """A height in ``lane`` of a laned timeline track ("objects", "people"; ``at``: 0 the
    lane's top, 1 its bottom)."""
    from videoreview.gui.timeline.tracks.lanes import LANE_H, PAD

    return timeline.track_rect(track).top() + PAD + lane * LANE_H + round(at * (LANE_H - 1))


def close_to(pixel, color, tolerance: int = 14) -> bool:
    """Whether an RGB pixel is within ``tolerance`` of a QColor in every channel."""
    return bool(np.abs(pixel.astype(int) - [color.red(), color.green(), color.blue()]).max() <= tolerance)


# -- pictures --------------------------------------------------------------------------------

def rgb(image) -> np.ndarray:
    """A QImage as an RGB array."""
    from PySide6.QtGui import QImage

    image = image.convertToFormat(QImage.Format.Format_RGB888)
    rows = np.frombuffer(image.constBits(), np.uint8, count=image.bytesPerLine() * image.height())
    rows = rows.reshape(image.height(), image.bytesPerLine())
    return rows[:, : image.width() * 3].reshape(image.height(), image.width(), 3).copy()


def content(frame: np.ndarray, rotation: int) -> int:
    """The index coded in a frame of an index-coded video shown rotated by ``rotation``."""
    return V.read_index(np.rot90(frame, k=rotation // 90) if rotation else frame)


# -- library test data -----------------------------------------------------------------------

def make_library_folder(root: Path) -> Path:
    """The library's test videos: the cuts clip at the top, the face scene in sub/."""
    from faces import SCENE, make_face_video

    (root / "sub").mkdir()
    V.make_cuts_video(root, name="cuts clip.mp4")
    make_face_video(root / "sub" / "people é.mp4", SCENE)
    return root


def kitchen(path: str) -> Analysis:
    """12 s: a cut at 6 s; a man (P1) chops onions, then a woman (P2, "Ada") pours tea."""
    return Analysis(
        video=VideoInfo(path, duration=12.0, fps=25.0, frame_count=300, width=640, height=360),
        content_hash="a" * 64,
        captions=(FrameCaption(0.0, 0, "A man chops onions on a wooden board", labels=(("cleaver", 0.8),)),
                  FrameCaption(3.0, 75, "The man slides the onions into a pan"),
                  FrameCaption(7.0, 175, "A woman pours tea into a cup")),
        boundaries=(Boundary(6.0, 150, "cut", 0.9),
                    Boundary(9.0, 225, "event", 0.7, BoundaryCaption("woman", "pouring tea", "drinking tea"))),
        identities=(Identity("P1", appearances=(Appearance(0.0, 6.0),)),
                    Identity("P2", name="Ada", appearances=(Appearance(6.0, 12.0),))),
        summaries=(Summary("keyframes+text", "Cooking, then [KEYFRAME1] tea time.", (10,)),),
    )


def garden(path: str) -> Analysis:
    return Analysis(
        video=VideoInfo(path, duration=8.0, fps=25.0, frame_count=200, width=640, height=360),
        content_hash="b" * 64,
        captions=(FrameCaption(0.0, 0, "A dog runs across the lawn"), FrameCaption(4.0, 100, "The dog digs a hole")),
        identities=(Identity("P1", name="Ada", appearances=(Appearance(1.0, 3.0),)),),
    )


_WORDS = re.compile(r"[^\W_]+")


class Words:
    """A deterministic stand-in for the sentence embedding: bag-of-content-words vectors, so the
    vector half of the search can be checked without the model (the model is tested in
    the CLI tests)."""

    dim = 1024  # few collisions between the words of these texts

    def embed(self, texts):
        from videoreview.summary.visil import english_stop_words

        out = np.zeros((len(texts), self.dim), np.float32)
        for row, text in enumerate(texts):
            for word in _WORDS.findall(text.lower()):
                if word not in english_stop_words():
                    out[row, zlib.crc32(word.rstrip("s").encode()) % self.dim] += 1  # "chops" ~ "chop"
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-9)


def can_unshare() -> bool:
    """Whether a network namespace with only ``lo`` can be made here (``unshare --net``, as root)."""
    import shutil

    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    return subprocess.run(["unshare", "--net", "true"], capture_output=True).returncode == 0



def assert_refused(analysis, path: Path, given, fmt: str, text: str, where: str = "") -> None:
    """``given`` (text, or data written as JSON) at ``path`` is refused by ``fmt``'s reader
    in one line that names the file, then ``where`` in it, and says ``text``."""
    import pytest

    from videoreview.annotations import AnnotationError, read_annotations

    path.write_text(given if isinstance(given, str) else json.dumps(given))
    with pytest.raises(AnnotationError) as caught:
        read_annotations(analysis, path, fmt)
    message = str(caught.value)
    assert message.startswith(f"{path}: {where}") and text in message and "\n" not in message, message
