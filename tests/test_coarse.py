"""The window's coarse first look (pipeline/coarse.py): its shots, bodies and voice on
generated clips, the runner's hook with fake engines (wiring: what is sent when, what is
kept, cancel, skips), and the whole of it with the real models, whose final Analysis must
be the one made without the look."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from fake_engines import ENGINES
from videoreview.errors import Cancelled
from videoreview.media import keyframes as looks_module
from videoreview.media import open_video
from videoreview.media.keyframes import LookSource, keyframe_indices, look_indices
from videoreview.pipeline import CancelToken, StageCache, analyze, coarse
from videoreview.pipeline.coarse import ENGINE, FIELDS, VAD_ENGINE, CutReader, bodies, coarse_cuts, heard, is_coarse
from videos import add_audio, encode_frames, ffmpeg, make_cuts_video

FPS = 25
COLOURS = [(200, 40, 40), (40, 160, 60), (40, 60, 200), (220, 200, 40), (120, 40, 160)]


def still_shots(path, seconds: float = 3.0, gop: int = 250):
    """Five shots of ``seconds`` each, each a plain colour with a small square moving across:
    the pictures of one shot alike, those of two shots not. x264 puts a keyframe at each cut."""
    per = round(seconds * FPS)

    def frames():
        for colour in COLOURS:
            for k in range(per):
                frame = np.empty((90, 160, 3), np.uint8)
                frame[:] = colour
                x = 10 + (k * 3) % 120
                cv2.rectangle(frame, (x, 30), (x + 20, 50), (255, 255, 255), -1)
                yield frame

    encode_frames(path, frames(), FPS, gop=gop)
    return [per * k for k in range(1, len(COLOURS))]


def measured(path, gap=None) -> tuple[list, np.ndarray, np.ndarray]:
    """(CutReader's measures, the looks, the keyframes) of ``path``."""
    with open_video(path, backend="pyav") as source:
        view = LookSource(source, look_indices(source, gap=gap))
        keys = keyframe_indices(source)
        reader = CutReader(view, keys)
        for _, batch in source.batches_for([(reader.indices, reader.size, reader.batch)]):
            reader.take(batch)
    return reader.result(), view.looks, keys


def without_timings(analysis) -> dict:
    """An Analysis as JSON without the seconds its plan spent (they differ run to run)."""
    data = json.loads(analysis.to_json())
    if data.get("plan"):
        data["plan"].pop("spent")
        for row in data["plan"]["stages"]:
            row.pop("spent")
    return data


# -- shots -----------------------------------------------------------------------------------

def test_a_cut_lands_on_the_keyframe_x264_put_there_though_no_look_falls_on_it(tmp_path):
    cuts = still_shots(tmp_path / "shots.mp4")
    measures, looks, keys = measured(tmp_path / "shots.mp4")
    assert set(cuts) <= set(keys.tolist())  # x264's scenecut
    assert not set(cuts[::2]) & set(looks.tolist())  # 3 and 9 s are too near the looks before them
    found = coarse_cuts(measures)
    assert [b.frame for b in found] == cuts
    assert all(b.kind == "cut" and b.engine == ENGINE for b in found)


def test_without_keyframes_at_the_cuts_each_lands_on_the_first_look_after_it(tmp_path):
    cuts = still_shots(tmp_path / "made.mp4")
    ffmpeg("-i", tmp_path / "made.mp4", "-c:v", "libx264", "-preset", "veryfast", "-g", "10000", "-sc_threshold", "0",
           tmp_path / "one key.mp4")
    measures, looks, keys = measured(tmp_path / "one key.mp4", gap=1.0)
    assert keys.tolist() == [0]
    assert [b.frame for b in coarse_cuts(measures)] == [int(looks[looks >= cut][0]) for cut in cuts]


# -- bodies ----------------------------------------------------------------------------------

def sample(time: float, frame: int, *people: float) -> dict:
    return {"time": time, "frame": frame, "objects": [["person", score, 10, 20, 30, 60] for score in people]
            + [["cup", 0.9, 1, 1, 5, 5]]}


def test_bodies_run_from_the_first_look_with_a_person_to_the_look_after_within_a_shot():
    samples = [sample(0, 0, 0.8), sample(4.5, 112, 0.6, 0.9), sample(9, 225), sample(13.5, 337, 0.7),
               sample(18, 450, 0.45), sample(22.5, 562, 0.9)]
    found = bodies(samples, cuts=[300, 500], duration=25.0)
    # 0-9 s (two looks), 13.5-18 s (0.45 is not sure enough), 22.5 s (a new shot) to the end
    assert [(b.start, b.end, b.samples) for b in found] == [(0, 9, 2), (13.5, 18, 1), (22.5, 25.0, 1)]
    assert found[0].score == pytest.approx(0.85) and found[0].box == (10, 20, 30, 60)
    assert bodies(samples, cuts=[400], duration=25.0)[1].end == pytest.approx(16.0, abs=0.02)  # ends at the cut
    assert all(b.engine == ENGINE and not b.statuses and b.identity is None for b in found)


# -- voice -----------------------------------------------------------------------------------

@pytest.mark.models
def test_voice_is_heard_where_words_are_spoken_and_nowhere_else(tmp_path):
    from speech import Line, speech_clip

    cuts = make_cuts_video(tmp_path, frames=300)  # 12 s
    path, spoken = speech_clip(tmp_path, "spoken.mp4", cuts.path, [
        Line(1.0, "The quick brown fox jumps over the lazy dog."),
        Line(7.5, "A second sentence, from a second voice.", "b")], 12.0)
    info, segments = heard(path, 0.0, 12.0, CancelToken())
    assert info.audio == "speech" and info.engine == VAD_ENGINE
    assert segments and all(s.text == "" and s.engine == VAD_ENGINE for s in segments)
    for line in spoken:  # each line heard, most of it
        covered = sum(max(0.0, min(s.end, line.end) - max(s.start, line.start)) for s in segments)
        assert covered >= 0.8 * (line.end - line.start)
    for s in segments:  # and nothing heard away from the lines
        assert any(s.start < line.end + 0.5 and line.start - 0.5 < s.end for line in spoken)
    assert heard(add_audio(cuts.path, tmp_path / "tone.mp4"), 0.0, 9.6, CancelToken())[0].audio == "no speech"
    assert heard(cuts.path, 0.0, 12.0, CancelToken()) == (coarse.SpeechInfo(audio="none", engine=VAD_ENGINE), ())


# -- the runner's hook, with fake engines (wiring) --------------------------------------------

@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    """20 s, 320x180, cuts every 4 s, a tone for sound."""
    folder = tmp_path_factory.mktemp("coarse")
    video = make_cuts_video(folder, cut_frames=(100, 200, 300, 400), frames=500)
    return add_audio(video.path, folder / "with sound.mp4")


@pytest.fixture
def always(monkeypatch):
    """A look at any video, however quick its analysis (the fake engines' is)."""
    monkeypatch.setattr(coarse, "WORTH", 0.0)


def run(path, cache, **kwargs):
    sent = []
    analysis = analyze(path, ENGINES, cache=cache, on_stage=sent.append, **kwargs)
    return analysis, sent


def test_the_window_gets_the_whole_coarse_timeline_first_then_the_same_analysis(clip, tmp_path, always):
    plain, plain_sent = run(clip, StageCache(tmp_path / "a"))
    final, sent = run(clip, StageCache(tmp_path / "b"), coarse_first=True)
    assert without_timings(final) == without_timings(plain)
    assert not any(map(is_coarse, plain_sent))
    first = sent[1]  # after the probe's
    assert not is_coarse(sent[0]) and is_coarse(first) and first.plan.level == "coarse"
    with open_video(clip) as source:
        looked = look_indices(source)
    assert [c.frame for c in first.captions] == looked.tolist()  # a caption at every look, to the end
    assert first.boundaries and {b.engine for b in first.boundaries} == {ENGINE}  # not the boundary engine's
    assert first.speech.engine == VAD_ENGINE and first.speech.audio == "no speech"  # a tone is no voice
    # each partial after it shows the stages applied so far and the coarse rest, until the last
    assert all(map(is_coarse, sent[2:-1])) and not is_coarse(sent[-1])
    assert sent[-1] == replace_plan(final, None)
    assert len(sent) == len(plain_sent) + 1
    for shown, real in zip(sent[2:], plain_sent[1:]):  # the runner's own partial, the coarse lanes over it
        assert shown.engines == real.engines
        for name, fields in FIELDS.items():
            for field in fields:
                assert getattr(shown, field) == getattr(real if name in real.engines else first, field)


def replace_plan(analysis, plan):
    from dataclasses import replace

    return replace(analysis, plan=plan)


def test_nothing_coarse_is_cached(clip, tmp_path, always):
    plain_cache, cache = StageCache(tmp_path / "a"), StageCache(tmp_path / "b")
    run(clip, plain_cache)
    run(clip, cache, coarse_first=True)
    entries = [p.relative_to(cache.root) for p in cache.entries()]
    assert entries == [p.relative_to(plain_cache.root) for p in plain_cache.entries()]
    assert [p.read_bytes() for p in cache.entries()] == [p.read_bytes() for p in plain_cache.entries()]


def test_no_look_where_the_analysis_is_quick_or_cached(clip, tmp_path, monkeypatch):
    cache = StageCache(tmp_path / "cache")
    _, sent = run(clip, cache, coarse_first=True)  # the fake engines' estimate is under WORTH
    assert not any(map(is_coarse, sent))
    monkeypatch.setattr(coarse, "WORTH", 0.0)
    _, sent = run(clip, cache, coarse_first=True)  # every stage from the cache
    assert not any(map(is_coarse, sent))


def test_cancel_during_the_look_stops_the_analysis_and_keeps_nothing(clip, tmp_path, always):
    token, cache = CancelToken(), StageCache(tmp_path / "cache")

    def progress(stage, fraction, message):
        if stage == "coarse" and 0 < fraction < 0.9:
            token.cancel()

    with pytest.raises(Cancelled):
        run(clip, cache, coarse_first=True, progress=progress, cancel=token)
    assert cache.entries() == []


class Pipe:
    """The child's end of the window's pipe: what it sends, in order."""

    def __init__(self) -> None:
        self.sent: list[tuple] = []

    def send(self, message) -> None:
        self.sent.append(message)

    def close(self) -> None:
        pass


def test_the_windows_child_looks_first_for_a_new_video_only_and_saves_the_full_analysis(clip, fresh_home, always):
    import shutil
    import threading

    from videoreview.pipeline import store
    from videoreview.pipeline.child import run_analysis

    new = Pipe()
    run_analysis(str(clip), ENGINES, None, new, threading.Event())
    partials = [payload for kind, payload in new.sent if kind == "partial"]
    kind, final = new.sent[-1]
    assert kind == "done" and is_coarse(partials[1]) and not is_coarse(final)
    assert store.load_saved(final.content_hash) == final
    assert any(kind == "progress" and payload.stage == "coarse" for kind, payload in new.sent)
    shutil.rmtree(fresh_home / "cache")  # nothing cached: only the Analysis on screen stops the look
    again = Pipe()  # reopened: the saved Analysis is on screen, no partial is sent, no look taken
    run_analysis(str(clip), ENGINES, final, again, threading.Event())
    assert again.sent[-1][0] == "done" and not [kind for kind, _ in again.sent if kind == "partial"]
    assert not any(kind == "progress" and payload.stage == "coarse" for kind, payload in again.sent)


def test_a_look_that_fails_is_said_and_the_analysis_goes_on(clip, tmp_path, always, monkeypatch, capsys):
    def broken(source, gap=None, most=None):
        raise RuntimeError("no looking today")

    monkeypatch.setattr(coarse, "look_indices", broken)
    final, sent = run(clip, StageCache(tmp_path / "a"), coarse_first=True)
    assert "no coarse timeline first (RuntimeError: no looking today)" in capsys.readouterr().err
    assert not any(map(is_coarse, sent))
    assert without_timings(final) == without_timings(run(clip, StageCache(tmp_path / "b"))[0])


# -- the whole of it, with the real models ---------------------------------------------------

@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    """12 s, 640x360: six shots of Grace Hopper and Eileen Collins (tests/faces.py), two voices."""
    from faces import SCENE, SECOND_CLIP, make_face_video
    from speech import Line, speech_clip

    folder = tmp_path_factory.mktemp("coarse scene")
    video = make_face_video(folder / "people.mp4", SCENE + SECOND_CLIP)
    path, spoken = speech_clip(folder, "people speaking.mp4", video.path, [
        Line(0.5, "Here are two people, one after the other."), Line(6.5, "And now both of them again.", "b")], 12.0)
    return path, video, spoken


@pytest.mark.models
def test_with_the_real_models_every_lane_runs_to_the_end_and_the_result_is_the_same(scene, tmp_path, monkeypatch):
    path, video, spoken = scene
    monkeypatch.setattr(coarse, "WORTH", 0.0)
    monkeypatch.setattr(looks_module, "GAP", 1.0)  # twelve looks at 12 s, two a shot
    sent = []
    final = analyze(path, cache=StageCache(tmp_path / "a"), use_cache=False, on_stage=sent.append,
                    coarse_first=True)
    first = sent[1]
    assert is_coarse(first)
    assert [b.frame for b in first.boundaries if b.kind == "cut"] == list(video.cut_frames)
    assert {f.identity for f in first.faces} >= {"P1", "P2"}  # both women, named apart
    assert len(first.captions) == 12 and first.captions[-1].time >= 11.0
    assert all(s.engine == VAD_ENGINE for s in first.transcript)
    assert all(any(s.start < line.end and line.start < s.end for s in first.transcript) for line in spoken)
    assert not any(stage.spent for stage in first.plan.stages)
    plain = analyze(path, cache=StageCache(tmp_path / "b"), use_cache=False)
    assert without_timings(final) == without_timings(plain)
    assert final.transcript and all(s.engine != VAD_ENGINE for s in final.transcript)
