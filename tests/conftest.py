"""Shared fixtures: test videos built once per session (see videos.py for the ground truth)."""

from __future__ import annotations

import os
import shutil
import tempfile

# Later Qt tests must never need a display.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# A test that sets no home of its own must not touch the user's data.
os.environ.setdefault("VIDEOREVIEW_HOME", tempfile.mkdtemp(prefix="videoreview-tests-"))
# The fake engines (fake_engines.py) are registered in every process a test starts: the
# analysis and library children import the module named here (and find it on PYTHONPATH).
os.environ["VIDEOREVIEW_ENGINE_MODULES"] = "fake_engines"
_TESTS = os.path.dirname(os.path.abspath(__file__))
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [_TESTS, os.environ.get("PYTHONPATH")]))

import pytest  # noqa: E402

import fake_engines  # noqa: E402, F401  (registers them in this process)
import videos as V  # noqa: E402  (tests/ is on sys.path under pytest)

# Fixtures that take tens of seconds to make: a test that needs one is ``slow``.
SLOW_FIXTURES = {"taught", "corpus_outcomes", "street"}


def pytest_collection_modifyitems(items):
    """Every test of a test_gui_*.py module is a ``gui`` test; one that needs a slow fixture
    is a ``slow`` one."""
    for item in items:
        if item.path.name.startswith("test_gui_"):
            item.add_marker(pytest.mark.gui)
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


# A name with spaces and non-ASCII characters, which must work everywhere.
UNICODE_NAME = "my vidéo – 日本 clip (1).mp4"


@pytest.fixture(scope="session")
def stage_cache(tmp_path_factory):
    """One stage cache for the modules' homes: a video the session has analysed (the face
    scene, the cuts clip) is not analysed again in the next module. Results are keyed by
    content hash and engine version, as on a user's machine; saved analyses stay per home."""
    return tmp_path_factory.mktemp("stage cache")


@pytest.fixture(scope="session", autouse=True)
def report_fonts():
    """The PDF report's static Noto Sans, made from the variable font on first use (about
    10 s), is kept between sessions in the tests' cache (cached.py), as a user's data
    folder keeps it between runs; the file names say which font they were made from."""
    from cached import root
    from videoreview.summary.export import fonts

    folder = root() / "fonts"
    folder.mkdir(parents=True, exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fonts, "_font_cache", lambda: folder)
        yield folder


@pytest.fixture(scope="module")
def home(tmp_path_factory, stage_cache):
    """The VIDEOREVIEW_HOME of a test module, set in the environment for its tests; its
    stage cache and ONNX exports are the session's."""
    path = tmp_path_factory.mktemp("home")
    (path / "cache").symlink_to(stage_cache, target_is_directory=True)
    exports = tmp_path_factory.getbasetemp() / "onnx exports"
    exports.mkdir(exist_ok=True)
    (path / "onnx").symlink_to(exports, target_is_directory=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("VIDEOREVIEW_HOME", str(path))
        yield path


@pytest.fixture
def fresh_home(tmp_path, monkeypatch):
    """A new, empty VIDEOREVIEW_HOME for one test, set in the environment."""
    monkeypatch.setenv("VIDEOREVIEW_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture(scope="session")
def video_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("videos")


@pytest.fixture(scope="session")
def index_video(video_dir) -> V.SyntheticVideo:
    """100 index-coded frames, 320x180, 25 fps, H.264 with B-frames, keyframe every 25, mp4."""
    return V.make_index_video(video_dir, "index.mp4")


@pytest.fixture(scope="session")
def index_mkv(video_dir) -> V.SyntheticVideo:
    return V.make_index_video(video_dir, "index.mkv")


@pytest.fixture(scope="session")
def index_ts(video_dir) -> V.SyntheticVideo:
    """MPEG-TS: decord's seeking is wrong there, so it must end up on PyAV."""
    return V.make_index_video(video_dir, "index.ts")


@pytest.fixture(scope="session")
def avi_bframes(video_dir) -> V.SyntheticVideo:
    """MPEG-4 part 2 with B-frames in AVI: decord's timestamps are garbage there."""
    return V.make_index_video(video_dir, "bframes.avi", codec="mpeg4", options={"b": "1500k"}, max_b_frames=2)


@pytest.fixture(scope="session")
def cuts_video(video_dir) -> V.SyntheticVideo:
    return V.make_cuts_video(video_dir)


@pytest.fixture(scope="session")
def scene(video_dir):
    """8 s, 25 fps: Grace Hopper and Eileen Collins in four shots (cuts at 2, 4 and 6 s)."""
    from faces import SCENE, make_face_video

    return make_face_video(video_dir / "scene.mp4", SCENE)


@pytest.fixture(scope="session")
def crossfade_video(video_dir) -> V.SyntheticVideo:
    return V.make_crossfade_video(video_dir)


@pytest.fixture(scope="session")
def event_video(video_dir) -> V.SyntheticVideo:
    return V.make_event_video(video_dir)


@pytest.fixture(scope="session")
def vfr_video(video_dir) -> V.SyntheticVideo:
    return V.make_vfr_video(video_dir, "vfr.mkv")


@pytest.fixture(scope="session")
def vfr_mp4(video_dir) -> V.SyntheticVideo:
    return V.make_vfr_video(video_dir, "vfr.mp4")


@pytest.fixture(scope="session")
def rotated_video(video_dir) -> V.SyntheticVideo:
    return V.make_rotated_video(video_dir, rotation=90)


@pytest.fixture(scope="session")
def rotated_270(video_dir) -> V.SyntheticVideo:
    return V.make_rotated_video(video_dir, rotation=270, name="rotated270.mp4")


@pytest.fixture(scope="session")
def lying_avi(video_dir) -> V.SyntheticVideo:
    return V.make_lying_avi(video_dir)


@pytest.fixture(scope="session")
def unindexed_avi(video_dir) -> V.SyntheticVideo:
    return V.make_lying_avi(video_dir, "unindexed.avi", strip_index=True)


@pytest.fixture(scope="session")
def audio_video(video_dir, index_video):
    """The index video with an AAC track."""
    return V.add_audio(index_video.path, video_dir / "with_audio.mp4")


@pytest.fixture(scope="session")
def unicode_video(video_dir, index_video):
    """The index video under a name with spaces and non-ASCII characters."""
    sub = video_dir / "dossier été"
    sub.mkdir(exist_ok=True)
    dst = sub / UNICODE_NAME
    shutil.copyfile(index_video.path, dst)
    return dst


@pytest.fixture(scope="session")
def bad_inputs(video_dir) -> dict:
    """name -> path of inputs that must each give one MediaError."""
    return V.make_bad_inputs(video_dir / "bad")


@pytest.fixture(scope="session")
def truncated_videos(video_dir) -> dict:
    """name -> SyntheticVideo of cut-off files that still open (truncated_mkv, truncated_faststart)."""
    return V.make_truncated_videos(video_dir / "truncated")


@pytest.fixture(scope="session")
def taught():
    """Tiny VLMs of each family taught to caption solid colour frames (tiny_vlm.taught), kept
    between sessions in the tests' cache (cached.py)."""
    import tiny_vlm
    from videoreview.engines.captions.vlm import FAMILIES

    return tiny_vlm.cached_taught(FAMILIES)


@pytest.fixture(scope="session")
def untrained(tmp_path_factory):
    """A tiny Qwen2-VL with random weights."""
    import tiny_vlm

    return tiny_vlm.build("qwen2_vl", tmp_path_factory.mktemp("vlm") / "untrained")


@pytest.fixture(scope="session")
def corpus() -> list:
    """The awkward real-world files of tests/corpus.py (about 7 s to make), kept between
    sessions in the tests' cache (cached.py)."""
    import corpus as C

    return C.cached_corpus()


@pytest.fixture(scope="session")
def corpus_home(tmp_path_factory):
    """The VIDEOREVIEW_HOME the corpus is analysed in, with the fake engines chosen (the
    corpus tests try the decoding; test_corpus runs the builtin ones over a few files): its
    stage cache and saved analyses make the command-line, library and window tests over the
    corpus quick."""
    from helpers import fake_home

    return fake_home(tmp_path_factory.mktemp("corpus home"))


@pytest.fixture(scope="session")
def corpus_outcomes(corpus, corpus_home) -> dict:
    """name -> supervised.Outcome of analysing each corpus file in a watched child process
    with the fake engines."""
    from supervised import Supervisor

    with Supervisor(corpus_home, timeout=90, engines=fake_engines.ENGINES) as supervisor:
        return {f.name: supervisor.analyse(f.path) for f in corpus}


@pytest.fixture
def view(qtbot):
    """A VideoView on screen, 640x360 (the player tests and the corpus's)."""
    from videoreview.gui.video.video_view import VideoView

    v = VideoView()
    qtbot.addWidget(v)
    v.resize(640, 360)
    v.show()
    yield v
    v.player.close()


# -- the team library's PostgreSQL ------------------------------------------------------------

@pytest.fixture(scope="session")
def postgres_server():
    """A real PostgreSQL with pgvector on 127.0.0.1 for the session (scripts/postgres's
    code), its data in a folder of /tmp (the server runs as nobody under root, and pytest's
    own folders are closed to others); stopped by its pid and removed at the end."""
    from videoreview.library.team import server

    folder = tempfile.mkdtemp(prefix="videoreview-pg-")
    try:
        yield server.start(folder)
    finally:
        server.stop(folder)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def team_url(postgres_server):
    """A URL to a new, empty database of the session's server, dropped after the test."""
    import uuid

    import psycopg

    name = f"test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as db:
        db.execute(f'CREATE DATABASE "{name}"')
    yield postgres_server.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(postgres_server, autocommit=True) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


STREET_CLIP = "vtest.avi"  # OpenCV's pedestrians on a street (Debian's opencv-doc; scripts/fetch-real-clips)
STREET_ENGINES = {"boundaries": "builtin", "faces": "blazeface", "objects": "nanodet", "poses": "movenet",
                  "captions": "builtin"}


@pytest.fixture(scope="session")
def street(tmp_path_factory):
    """A real street clip (80 s, 768x576, people walking) and its Analysis by the real
    engines: object, face and body tracks. scripts/setup-readers fetches it; where it is
    missing the test skips (or fails, where VIDEOREVIEW_READERS=required)."""
    import sys
    from pathlib import Path

    from videoreview.pipeline import StageCache, analyze

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from real_corpus import clips_dir

    path = clips_dir() / STREET_CLIP
    if not path.is_file():
        message = f"{STREET_CLIP} is not fetched: run scripts/fetch-real-clips --only {STREET_CLIP}"
        if os.environ.get("VIDEOREVIEW_READERS") == "required":
            pytest.fail(message)
        pytest.skip(message)
    return path, analyze(path, STREET_ENGINES, cache=StageCache(tmp_path_factory.mktemp("street-cache")))
