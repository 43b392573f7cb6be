"""The analysis queue as the library panel shows it: what is being analysed and how far
it is, the videos waiting, and a button that stops them all."""

from __future__ import annotations

import os

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QListWidget, QProgressBar, QPushButton, QVBoxLayout, QWidget

from ..jobs import AnalysisQueue, JobProgress


class QueueStatus(QWidget):
    stopRequested = Signal()

    def __init__(self, queue: AnalysisQueue) -> None:
        super().__init__()
        self.queue = queue
        self.jobs_list = QListWidget()
        self.jobs_list.setMaximumHeight(80)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop analysing the queued videos (the library keeps what is done)")
        self.stop_button.clicked.connect(self.stopRequested)
        status = QHBoxLayout()
        status.addWidget(self.label, 1)
        status.addWidget(self.stop_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(status)
        layout.addWidget(self.bar)
        layout.addWidget(self.jobs_list)
        queue.progress.connect(self._on_progress)
        queue.queueChanged.connect(self._show_queue)
        self._show_queue()

    def _on_progress(self, progress: JobProgress) -> None:
        self.bar.setValue(round(progress.fraction * 1000))
        self.label.setText(f"Analysing {os.path.basename(progress.path)}: {progress.stage} "
                           f"{progress.stage_fraction:.0%}")
        if self.jobs_list.count():
            self.jobs_list.item(0).setText(f"{os.path.basename(progress.path)} — {progress.fraction:.0%}")

    def _show_queue(self) -> None:
        jobs = self.queue.jobs()
        self.jobs_list.clear()
        for n, job in enumerate(jobs):
            state = "analysing" if n == 0 and self.queue.current else "queued"
            self.jobs_list.addItem(f"{os.path.basename(job.path)} — {state}")
        idle = not jobs
        self.label.setText("Nothing to analyse." if idle else f"{len(jobs)} video{'s' * (len(jobs) != 1)} to analyse")
        for widget in (self.bar, self.jobs_list, self.stop_button):
            widget.setVisible(not idle)
