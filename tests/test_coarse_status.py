"""The status bar says the timeline is coarse while a coarse first look is shown (pipeline/coarse.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import QPoint

from helpers import shown_timeline
from videoreview.gui.work.job_status import JobStatus
from videoreview.gui.work.jobs import AnalysisQueue, Job
from videoreview.pipeline.coarse import VAD_ENGINE, bodies, is_coarse
from videoreview.progress import AnalysisProgress
from videoreview.records import Analysis, AnalysisPlan, SpeechInfo, TranscriptSegment, VideoInfo

pytestmark = pytest.mark.gui


def progress() -> AnalysisProgress:
    return AnalysisProgress("/videos/talk.mp4", "faces", 0.4, 0.3, "", 50.0, None)


def talk(level: str | None) -> Analysis:
    """What the queue's partial carries: a coarse first look, or the full pass's."""
    return Analysis(video=VideoInfo(path="/videos/talk.mp4", width=320, height=180, fps=25.0, frame_count=25,
                                    duration=1.0, codec="h264"),
                    plan=AnalysisPlan(cores=2, level=level) if level else AnalysisPlan(cores=2))


def test_the_status_says_coarse_until_the_full_pass_lands(qtbot):
    queue = AnalysisQueue()  # nothing enqueued: its signals are emitted here as its jobs would
    status = JobStatus(queue)
    qtbot.addWidget(status)
    queue.progress.emit(progress())
    assert status.label.text() == "talk.mp4: faces 40%, 50s left" and status.bar.value() == 300
    queue.partial.emit("/videos/talk.mp4", talk("coarse"))
    queue.pending = [Job("/videos/a.mp4", None), Job("/videos/b.mp4", None)]  # waiting behind it
    queue.progress.emit(progress())
    assert status.label.text() == ("talk.mp4: faces 40%, 50s left · timeline coarse until the full pass lands"
                                   " · 2 queued")
    queue.pending = []
    queue.partial.emit("/videos/talk.mp4", talk(None))
    queue.progress.emit(progress())
    assert "coarse" not in status.label.text()
    queue.partial.emit("/videos/talk.mp4", talk("coarse"))
    queue.queueChanged.emit()  # the queue is done: idle, and the next video starts plain
    assert status.label.text() == "Idle" and status.bar.isHidden()
    queue.progress.emit(progress())
    assert "coarse" not in status.label.text()


def test_only_a_coarse_plan_is_coarse():
    analysis = Analysis(video=VideoInfo(path="talk.mp4", width=320, height=180, fps=25.0, frame_count=25,
                                        duration=1.0, codec="h264"))
    assert not is_coarse(None) and not is_coarse(analysis)
    assert not is_coarse(replace(analysis, plan=AnalysisPlan(cores=2)))
    assert is_coarse(replace(analysis, plan=AnalysisPlan(cores=2, level="coarse")))


def test_the_timeline_draws_the_coarse_speech_and_bodies(qtbot):
    video = VideoInfo(path="/videos/talk.mp4", width=1280, height=720, fps=25.0, frame_count=1500, duration=60.0)
    samples = [{"time": 4.5 * k, "frame": round(112.5 * k), "objects": [["person", 0.9, 100, 100, 200, 400]]}
               for k in range(14)]
    coarse = Analysis(video=video, speech=SpeechInfo(audio="speech", engine=VAD_ENGINE),
                      transcript=(TranscriptSegment(10.0, 20.0, "", engine=VAD_ENGINE),),
                      poses=bodies(samples, [], 60.0), plan=AnalysisPlan(cores=2, level="coarse"))
    timeline = shown_timeline(qtbot, (1000, 400))
    timeline.set_analysis(coarse)
    said = timeline.tooltip_at(QPoint(int(timeline.x_of(15.0)), timeline.track_rect("speech").center().y()))
    assert said == "00:10.00 – 00:20.00\n"  # a block where voice is, no words yet
    person = timeline.tooltip_at(QPoint(int(timeline.x_of(30.0)), timeline.track_rect("poses").top() + 8))
    assert person == "person, status not known here\nseen 00:00.00 – 01:00.00, mean score 0.90"
