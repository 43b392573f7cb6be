"""Speech reads no frames: it runs in a thread beside the decoding pass of the stages that
do (pipeline/background_stages.py), gives what it gives alone, and stops with the analysis when
that is cancelled. Wiring: the fake engines, with faces that take 0.25 s a sample so
that the pass lasts seconds; the decoder and the sound reader are real."""

from __future__ import annotations

import threading

import pytest

from fake_engines import FAKE, SLOW
from videoreview.errors import Cancelled
from videoreview.pipeline import StageCache, analyze
from videoreview.pipeline.cancel import CancelToken
from videoreview.pipeline.stages import build_stages

ENGINES = {"boundaries": FAKE, "faces": SLOW, "speech": FAKE}


def test_speech_runs_while_the_frames_are_read_and_gives_what_it_gives_alone(audio_video, home, tmp_path):
    events: list[tuple[str, float, str]] = []
    together = analyze(audio_video, stages=build_stages(ENGINES), cache=StageCache(tmp_path / "a"),
                       progress=lambda stage, fraction, message: events.append((stage, fraction, message)))
    speech_started = events.index(("speech", 0.0, "starting"))
    faces_done = next(k for k, (stage, fraction, _) in enumerate(events) if stage == "faces" and fraction >= 1.0)
    assert speech_started < faces_done  # not after the pass, as a stage of its own
    alone = analyze(audio_video, stages=build_stages({"speech": FAKE}), cache=StageCache(tmp_path / "b"))
    assert together.transcript == alone.transcript and together.speech == alone.speech
    assert together.transcript and together.transcript[0].text == "fake speech"
    assert not [t for t in threading.enumerate() if t.name.startswith("background-stage")]


def test_cancelled_while_the_frames_are_read_the_speech_thread_stops_too(audio_video, home, tmp_path):
    cancel = CancelToken()

    def progress(stage: str, fraction: float, message: str) -> None:
        if stage == "faces" and 0 < fraction < 1:
            cancel.cancel()

    with pytest.raises(Cancelled):
        analyze(audio_video, stages=build_stages(ENGINES), cache=StageCache(tmp_path), progress=progress,
                cancel=cancel)
    assert not [t for t in threading.enumerate() if t.name.startswith("background-stage")]
    assert not list(tmp_path.glob("??/*/speech--*"))  # nothing half done is kept
