"""The status bar's view of the analysis queue: it shows each AnalysisProgress
(videoreview/progress.py) as the analysis process made it, straight from the queue's signal."""

from __future__ import annotations

import os

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QToolButton, QWidget

from ...pipeline.coarse import is_coarse
from ...progress import AnalysisProgress
from ...records import Analysis
from .jobs import AnalysisQueue


class JobStatus(QWidget):
    """Status-bar view of the analysis queue: current video and stage, progress, ETA, cancel."""

    cancelRequested = Signal()

    def __init__(self, queue: AnalysisQueue) -> None:
        super().__init__()
        self.queue = queue
        self.label = QLabel("Idle")
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setMaximumWidth(220)
        self.bar.setTextVisible(False)
        self.cancel = QToolButton()
        self.cancel.setText("Cancel")
        self.cancel.setToolTip("Cancel the running analysis (Esc)")
        self.cancel.clicked.connect(self.cancelRequested)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel)
        self.coarse = False  # the timeline shows a coarse first look (pipeline/coarse.py)
        self.set_idle()
        queue.progress.connect(self.show_progress)
        queue.partial.connect(self._on_partial)
        queue.queueChanged.connect(self._on_queue_changed)

    def set_idle(self) -> None:
        self.coarse = False
        self.label.setText("Idle")
        self.bar.hide()
        self.cancel.hide()

    def set_coarse(self, coarse: bool) -> None:
        """Whether the timeline now shows the analysis's coarse first look, until the full
        pass lands: said after the progress."""
        self.coarse = coarse

    def show_progress(self, progress: AnalysisProgress) -> None:
        queued = len(self.queue.pending)
        eta = f", {_duration(progress.eta)} left" if progress.eta is not None else ""
        stage_eta = f" ({_duration(progress.stage_eta)})" if progress.stage_eta is not None else ""
        more = f" · {queued} queued" if queued else ""
        coarse = " · timeline coarse until the full pass lands" if self.coarse else ""
        self.label.setText(f"{os.path.basename(progress.path)}: {progress.stage} "
                           f"{progress.stage_fraction:.0%}{stage_eta}{eta}{coarse}{more}")
        self.bar.setValue(round(progress.fraction * 1000))
        self.bar.show()
        self.cancel.show()

    def _on_partial(self, path: str, analysis: Analysis) -> None:
        self.set_coarse(is_coarse(analysis))  # said in the status until the full pass lands

    def _on_queue_changed(self) -> None:
        if self.queue.is_idle():
            self.set_idle()


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds // 60}m {seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"
