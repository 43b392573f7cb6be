"""The Summaries panel (panel.py) and its parts: one column per summary (column.py), the
writer and scorer choice (model_choice.py), the reference description (reference_dialog.py),
the ViSIL comparison (results.py, with its Pareto plot: pareto_plot.py) and the exports
(exports.py)."""

from .panel import SummaryPanel

__all__ = ["SummaryPanel"]
