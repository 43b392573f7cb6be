"""Models loaded in the background while the first frames decode (pipeline/warm.py), with the
real engines and their real loaders (engines/loading.py): each model loads once whichever
thread asks, a model that will not load fails where it failed before, a cancelled analysis
waits for no load, and the results are those of an analysis that loads nothing ahead."""

from __future__ import annotations

import threading
import time
import traceback
from dataclasses import replace

import pytest

from videoreview.engines import onnx_export, registry
from videoreview.engines.boundaries import features
from videoreview.engines.boundaries.builtin import BuiltinBoundaryEngine
from videoreview.engines.captions.builtin import BuiltinCaptionEngine
from videoreview.engines.faces import blazeface
from videoreview.engines.faces.dlib_faces import DlibFaceEngine
from videoreview.engines.objects.nanodet import NanoDetEngine
from videoreview.engines.poses.movenet import MoveNetEngine
from videoreview.engines.speech.whisper import WhisperEngine
from videoreview.errors import Cancelled, ModelError
from videoreview.pipeline import CancelToken, StageCache, analyze, runner
from videoreview.pipeline.fallback import Fallback
from videoreview.pipeline.stages.captions import CaptionStage
from videoreview.pipeline.stages.objects import ObjectResult, ObjectStage
from videoreview.pipeline.warm import Warming, load_in_background

pytestmark = pytest.mark.models


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    """4 s, 640x360, 25 fps: two shots of a face each (tests/faces.py)."""
    from faces import SCENE, make_face_video

    return make_face_video(tmp_path_factory.mktemp("warm") / "two shots.mp4", SCENE[:2]).path


@pytest.fixture
def cache(tmp_path):
    return StageCache(tmp_path / "cache")


@pytest.fixture
def fresh_extractor():
    """The Lite0 extractor the boundary and caption engines share, made afresh (one per process)."""
    features._extractor.cache_clear()
    yield
    features._extractor.cache_clear()


def spied(monkeypatch, owner, name: str, before=None) -> list[str]:
    """The names of the threads that call ``owner.name``, which still does its work;
    ``before()`` runs first in each call."""
    calls: list[str] = []
    real = getattr(owner, name)

    def spy(*args, **kwargs):
        calls.append(threading.current_thread().name)
        if before is not None:
            before()
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, spy)
    return calls


def slowly() -> None:
    time.sleep(0.3)  # a slow load: the other thread asks for the model meanwhile


def at_once(*calls) -> None:
    """Run each of ``calls`` in a thread of its own, started together; raise what one raised."""
    start, errors = threading.Barrier(len(calls)), []

    def run(call):
        start.wait()
        try:
            call()
        except Exception as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    if errors:
        raise errors[0]


def test_an_onnx_model_loads_once_when_two_threads_ask(monkeypatch):
    made = spied(monkeypatch, onnx_export, "session", slowly)
    for engine in (NanoDetEngine(), MoveNetEngine()):
        made.clear()
        at_once(engine.load, engine._load)  # the background load and a first frame
        assert len(made) == 1, engine.name
        assert engine._load() is engine._session is not None


def test_the_face_models_load_once_when_two_threads_ask(monkeypatch):
    made = spied(monkeypatch, blazeface, "BlazeFace", slowly)
    engine = DlibFaceEngine("blazeface")
    at_once(engine.load, engine.load)
    assert len(made) == 1
    assert engine._blazeface is not None and engine._descriptor is not None


def test_the_boundary_and_caption_engines_share_one_extractor_made_once(monkeypatch, fresh_extractor):
    made = spied(monkeypatch, features, "FeatureExtractor", slowly)
    boundaries, captions = BuiltinBoundaryEngine(), BuiltinCaptionEngine()
    at_once(boundaries.load, captions.load, lambda: captions.extract)
    assert len(made) == 1
    assert boundaries._features is captions.extract
    assert boundaries._transnet is not None and boundaries._small._model is None  # TransNetV2 waits for a window


def test_whisper_loads_once_when_two_threads_ask(monkeypatch):
    engine = WhisperEngine("whisper-base")
    made = spied(monkeypatch, engine, "_make", slowly)
    at_once(engine.load, engine.load)
    assert len(made) == 1 and engine._model is not None


# -- a model that will not load -----------------------------------------------------------

def damaged_nanodet() -> NanoDetEngine:
    """NanoDet whose weights do not match the catalog's sha256: its load raises ModelError."""
    engine = NanoDetEngine()
    engine._entry = replace(engine._entry, sha256="0" * 64)
    return engine


def without_warming(monkeypatch) -> None:
    monkeypatch.setattr(runner, "load_in_background", lambda stages: Warming([]))


def failure(path, stages, cache) -> tuple[ModelError, list[str]]:
    with pytest.raises(ModelError) as caught:
        analyze(path, stages=stages, cache=cache, use_cache=False)
    return caught.value, [frame.name for frame in traceback.extract_tb(caught.value.__traceback__)]


@pytest.mark.parametrize("with_captions", [True, False], ids=["in the shared pass", "alone"])
def test_a_model_that_fails_to_load_in_the_background_fails_where_it_did(clip, cache, monkeypatch, with_captions):
    from videoreview.models import catalog

    checked = spied(monkeypatch, catalog, "builtin_weights")

    def stages():
        made = [ObjectStage(damaged_nanodet())]
        return made + [CaptionStage(BuiltinCaptionEngine())] if with_captions else made

    warmed, warmed_frames = failure(clip, stages(), cache)
    assert checked == ["videoreview-warm"]  # loaded (and failed) ahead, once: the reader got that failure
    checked.clear()
    without_warming(monkeypatch)
    plain, plain_frames = failure(clip, stages(), cache)
    assert checked == ["MainThread"]
    assert type(warmed) is type(plain) and str(warmed) == str(plain)
    # Where it surfaces: the objects reader's first frame, as without loading ahead
    assert {"take", "detect", "builtin_weights"} <= set(warmed_frames)
    assert warmed_frames[:warmed_frames.index("take")] == plain_frames[:plain_frames.index("take")]
    assert "_run" not in warmed_frames  # nothing of the background thread's own calls


class ObjectsOrNone(ObjectStage):
    """The objects stage falling back to no objects where its detector will not load, as a
    chosen VLM falls back to the builtin captions (pipeline/fallback.py)."""

    def compute(self, source, progress, cancel):
        try:
            return super().compute(source, progress, cancel)
        except ModelError as exc:
            return Fallback(self, ObjectResult(self.sample_rate, ()), f"{exc}. Instead: no objects")


def test_a_failed_background_load_gives_the_same_fallback_and_notice(clip, cache, monkeypatch):
    def run() -> tuple[list[str], dict]:
        notices: list[str] = []
        analysis = analyze(clip, stages=[ObjectsOrNone(damaged_nanodet())], cache=cache, use_cache=False,
                           notice=notices.append)
        return notices, analysis.to_dict()

    warmed = run()
    without_warming(monkeypatch)
    plain = run()
    assert warmed[0] == plain[0] and "damaged" in warmed[0][0]
    assert comparable(warmed[1]) == comparable(plain[1])


def test_a_failure_kept_for_a_closed_analysis_is_not_raised_later():
    """A model that failed ahead for an analysis that ended before needing it is loaded
    afresh next time, as if nothing had been tried."""
    engine = damaged_nanodet()
    stage = ObjectStage(engine)
    warming = load_in_background([stage])
    assert warming.join(60)
    warming.close()
    engine._entry = NanoDetEngine()._entry  # repaired meanwhile
    assert engine._load() is not None


# -- cancelling -----------------------------------------------------------------------------

def test_cancel_during_a_background_load_waits_for_it_not(clip, cache, monkeypatch):
    started, release, finished = threading.Event(), threading.Event(), threading.Event()
    real = onnx_export.session

    def held_load(*args, **kwargs):
        started.set()
        release.wait(60)
        made = real(*args, **kwargs)
        finished.set()
        return made

    monkeypatch.setattr(onnx_export, "session", held_load)
    cancel = CancelToken()

    def progress(stage, fraction, message):
        if message == "starting" and started.wait(60):  # the pass begins while NanoDet loads
            cancel.cancel()

    objects, captions = ObjectStage(NanoDetEngine()), CaptionStage(BuiltinCaptionEngine())
    try:
        with pytest.raises(Cancelled):
            analyze(clip, stages=[objects, captions], cache=cache, use_cache=False, cancel=cancel, progress=progress)
        assert started.is_set() and not finished.is_set()  # it returned while the load was under way
    finally:
        release.set()
    for thread in [t for t in threading.enumerate() if t.name == "videoreview-warm"]:
        thread.join(60)
        assert not thread.is_alive()
    assert finished.is_set() and objects.engine._session is not None  # the load under way finished
    assert captions.engine._extract is None  # and none began after the cancel


# -- the same results -----------------------------------------------------------------------

def comparable(analysis: dict) -> dict:
    """An Analysis's dict without what differs from run to run: the seconds spent."""
    return {key: value for key, value in analysis.items() if key != "plan"}


def test_results_are_the_same_with_and_without_loading_ahead(clip, cache, monkeypatch):
    engines = {"boundaries": "builtin", "faces": "blazeface", "objects": "nanodet", "poses": "movenet",
               "captions": "builtin"}
    handles: list[Warming] = []

    def recorded(stages):
        handles.append(load_in_background(stages))
        return handles[-1]

    def run() -> dict:
        monkeypatch.setattr(registry, "_INSTANCES", {})  # engines with nothing loaded, as in a new process
        features._extractor.cache_clear()
        return analyze(clip, engines, cache=cache, use_cache=False).to_dict()

    monkeypatch.setattr(runner, "load_in_background", recorded)
    warmed = run()
    assert handles[-1].join(60) and {"boundaries", "objects", "captions"} <= set(handles[-1].loaded)
    without_warming(monkeypatch)
    plain = run()
    assert warmed["faces"] and warmed["boundaries"]  # the clip gives every stage something to find
    assert comparable(warmed) == comparable(plain)
