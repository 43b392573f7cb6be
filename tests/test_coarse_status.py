"""The status bar says the timeline is coarse while a coarse first look is shown (pipeline/coarse.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from videoreview.gui.work.job_status import JobStatus
from videoreview.gui.work.jobs import JobProgress
from videoreview.pipeline.coarse import is_coarse
from videoreview.records import Analysis, AnalysisPlan, VideoInfo

pytestmark = pytest.mark.gui


def progress() -> JobProgress:
    return JobProgress("/videos/talk.mp4", "faces", 0.4, 0.3, "", 50.0, None)


def test_the_status_says_coarse_until_the_full_pass_lands(qtbot):
    status = JobStatus()
    qtbot.addWidget(status)
    status.show_progress(progress(), 0)
    assert "coarse" not in status.label.text()
    status.set_coarse(True)
    status.show_progress(progress(), 2)
    assert status.label.text() == ("talk.mp4: faces 40%, 50s left · timeline coarse until the full pass lands"
                                   " · 2 queued")
    status.set_coarse(False)
    status.show_progress(progress(), 0)
    assert "coarse" not in status.label.text()
    status.set_coarse(True)
    status.set_idle()  # the queue is done: the next video starts plain
    status.show_progress(progress(), 0)
    assert "coarse" not in status.label.text()


def test_only_a_coarse_plan_is_coarse():
    analysis = Analysis(video=VideoInfo(path="talk.mp4", width=320, height=180, fps=25.0, frame_count=25,
                                        duration=1.0, codec="h264"))
    assert not is_coarse(None) and not is_coarse(analysis)
    assert not is_coarse(replace(analysis, plan=AnalysisPlan(cores=2)))
    assert is_coarse(replace(analysis, plan=AnalysisPlan(cores=2, level="coarse")))
