"""The analysis queue as the library panel shows it: what is being analysed and how far
it is, the videos waiting, and a button that stops them all. With a cluster set (Settings >
Cluster), the videos sent there too: queued, running on which node, indexed or failed."""

from __future__ import annotations

import os

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ...progress import AnalysisProgress
from ..work.jobs import AnalysisQueue

# What the cluster's driver reports of a video (cluster.driver), as a row says it.
CLUSTER_STATES = {
    "queued": lambda detail: "queued for the cluster",
    "running": lambda detail: f"running on {detail}",
    "retrying": lambda detail: f"queued again: {detail}",
    "indexed": lambda detail: f"indexed ({detail})",
    "failed": lambda detail: f"failed: {detail}",
    "elsewhere": lambda detail: detail,  # being analysed by another machine of a team library
}


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
        self.cluster_label = QLabel()
        self.cluster_label.setWordWrap(True)
        self.cluster_list = QListWidget()
        self.cluster_list.setMaximumHeight(80)
        self._cluster_rows: dict[str, tuple[str, QListWidgetItem]] = {}  # path -> (what, its row)
        self._cluster_runs = 0  # asked for and not ended
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
        layout.addWidget(self.cluster_label)
        layout.addWidget(self.cluster_list)
        queue.progress.connect(self._on_progress)
        queue.queueChanged.connect(self._show_queue)
        self._show_cluster()  # hidden until a run: an empty list would still take the panel's height

    def _on_progress(self, progress: AnalysisProgress) -> None:
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
        for widget in (self.bar, self.jobs_list):
            widget.setVisible(not idle)
        self.label.setVisible(not idle or not (self._cluster_rows or self._cluster_runs))
        self.stop_button.setVisible(not idle or self._cluster_runs > 0)

    # -- the cluster -------------------------------------------------------------------------
    def cluster_started(self) -> None:
        if not self._cluster_runs:  # a new run: the last one's rows go
            self._cluster_rows.clear()
            self.cluster_list.clear()
        self._cluster_runs += 1
        self._show_cluster()

    def cluster_ended(self, line: str) -> None:
        """A run ended: ``line`` says what came of it (or why it could not run); its rows stay."""
        self._cluster_runs = max(0, self._cluster_runs - 1)
        self._show_cluster(line)

    def show_cluster(self, path: str, what: str, detail: str) -> None:
        """The driver's report of one video (cataloguing's added, unchanged... are not rows)."""
        state = CLUSTER_STATES.get(what)
        if state is None:
            return
        text = f"{os.path.basename(path)} — {state(detail)}"
        row = self._cluster_rows.get(path)
        item = row[1] if row is not None else QListWidgetItem()
        if row is None:
            self.cluster_list.addItem(item)
        item.setText(text)
        self._cluster_rows[path] = (what, item)
        self._show_cluster()

    def cluster_counts(self) -> dict[str, int]:
        counts = dict.fromkeys(CLUSTER_STATES, 0)
        for what, _ in self._cluster_rows.values():
            counts[what] += 1
        return counts

    def _show_cluster(self, ended: str = "") -> None:
        counts = self.cluster_counts()
        line = (f"On the cluster: {counts['running']} running, {counts['queued'] + counts['retrying']} queued, "
                f"{counts['indexed']} indexed, {counts['failed']} failed")
        if self._cluster_runs:
            self.cluster_label.setText(line if self._cluster_rows else "Sending to the cluster…")
        elif ended:
            self.cluster_label.setText(ended)
        self.cluster_label.setVisible(bool(self._cluster_runs or self._cluster_rows or ended))
        self.cluster_list.setVisible(bool(self._cluster_rows))
        self._show_queue()
