"""The right side of the Summaries panel: the reference description in use, the running
job's status line with its progress and Cancel, and the last ViSIL comparison as a table
and a plot of information lost against token cost."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...summary.compare import Comparison
from ...summary.formats import alpha_span, label_title, short_label
from .pareto_plot import ParetoPlot, PlotPoint

APPROXIMATE_NOTE = "(approximate — no language model; compare only with scores from this scorer)"
EXACT_NOTE = "(compare only with scores from this scorer)"


class WrappingLabel(QLabel):
    """A word-wrapped label that asks for the height its text needs at its width (layouts
    in a dock otherwise give it one line and cut the rest off)."""

    def __init__(self, text: str = "") -> None:
        super().__init__(text)
        self.setWordWrap(True)
        self.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Minimum)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def setText(self, text: str) -> None:
        super().setText(text)
        self._fit()

    def _fit(self) -> None:
        self.setMinimumHeight(max(0, self.heightForWidth(self.width())))


class ComparisonView(QScrollArea):
    """Scrolls rather than hold the dock (and so the window) taller than the reviewer wants."""

    def __init__(self) -> None:
        super().__init__()
        self.reference_label = WrappingLabel()
        self.status = WrappingLabel()
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.progress.setFixedWidth(140)
        self.cancel_button = QPushButton("Cancel")
        self.result_title = WrappingLabel()
        self.result_title.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.table = QTableWidget(0, 5)
        self.table.setHorizontalHeaderLabels(["Summary", "ViSIL", "Tokens", "Pareto", "Best for"])
        self.table.horizontalHeaderItem(1).setToolTip("Information lost reading the summary instead of watching "
                                                      "the video, in nats: lower is better")
        self.table.horizontalHeaderItem(3).setToolTip("✓: no other summary is both cheaper and loses less")
        self.table.horizontalHeaderItem(4).setToolTip("The alphas for which it has the lowest ViSIL + α · tokens")
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.NoSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeToContents)
        header.setSectionResizeMode(4, QHeaderView.Stretch)
        self.plot = ParetoPlot()
        running = QHBoxLayout()
        running.addWidget(self.status, 1)
        running.addWidget(self.progress)
        running.addWidget(self.cancel_button)
        results = QHBoxLayout()
        results.addWidget(self.table, 3)
        results.addWidget(self.plot, 2)
        area = QWidget()
        layout = QVBoxLayout(area)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.reference_label)
        layout.addLayout(running)
        layout.addWidget(self.result_title)
        layout.addLayout(results, 1)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.NoFrame)
        self.setWidget(area)

    def say(self, text: str, error: bool = False) -> None:
        """The panel's one status line (failures in red)."""
        self.status.setText(text)
        self.status.setToolTip(text)
        self.status.setStyleSheet("color: #d04040; font-weight: bold;" if error else "")

    def show_comparison(self, comparison: Comparison | None) -> None:
        self.table.setRowCount(0)
        if comparison is None:
            self.result_title.setText("No ViSIL comparison yet.")
            self.result_title.setToolTip("")
            self.plot.set_points([], [])
            return
        note = APPROXIMATE_NOTE if comparison.rows and comparison.rows[0].approximate else EXACT_NOTE
        self.result_title.setText(f"<b>ViSIL under {comparison.scorer}</b> {note}; reference: "
                                  f"{comparison.reference.origin}, {len(comparison.keywords)} keywords")
        self.result_title.setToolTip(f"Keywords: {', '.join(comparison.keywords)}")
        chosen: dict[int, list[float]] = {}
        swept = [alpha for alpha, _ in comparison.choices]
        for alpha, index in comparison.choices:
            chosen.setdefault(index, []).append(alpha)
        self.table.setRowCount(len(comparison.rows))
        for i, row in enumerate(comparison.rows):
            cells = (label_title(row.format), f"{row.visil:.2f}", str(row.tokens),
                     "✓" if i in comparison.frontier else "", alpha_span(chosen.get(i, []), swept))
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c in (1, 2):
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                elif c == 3:
                    item.setTextAlignment(Qt.AlignCenter)
                self.table.setItem(i, c, item)
        self.plot.set_points([PlotPoint(short_label(r.format), r.tokens, r.visil) for r in comparison.rows],
                             list(comparison.frontier))
