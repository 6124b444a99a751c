"""A grouped bar chart of a ComparisonTable: one group per metric, one bar per configuration.

matplotlib is imported only when a chart is drawn. The figure is rendered by the Agg canvas
directly (no pyplot), so no global backend is switched and nothing needs a display.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import DependencyMissing
from .compare import ComparisonTable, Delta

_BAR_SPAN = 0.8  # share of each metric's slot taken by its bars


def plot_comparison(table: ComparisonTable, path: str | os.PathLike[str], alpha: float = 0.05) -> Path:
    """Save the chart as a PNG at `path`; bars significantly different from the baseline get a `*`."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise DependencyMissing("plotting needs matplotlib", "pip install matplotlib") from exc
    figure = Figure(figsize=(max(6.0, 2.0 + 0.6 * len(table.metrics) * len(table.configs)), 4.5))
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    width = _BAR_SPAN / len(table.configs)
    for index, config in enumerate(table.configs):
        offsets = [slot - _BAR_SPAN / 2 + width * (index + 0.5) for slot in range(len(table.metrics))]
        heights = [config.means[metric] for metric in table.metrics]
        bars = axes.bar(offsets, heights, width, label=config.name)
        marks = [_mark(config.deltas.get(metric), alpha) for metric in table.metrics]
        axes.bar_label(bars, labels=marks, padding=2)
    axes.set_xticks(range(len(table.metrics)), list(table.metrics))
    axes.set_ylabel(f"mean over {table.num_queries} queries")
    axes.set_ylim(0, 1.05 * max([1.0] + [max(c.means.values(), default=0.0) for c in table.configs]))
    axes.set_title(f"vs {table.baseline}: * p < {alpha} (paired randomization test)")
    axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    figure.tight_layout()
    target = Path(path)
    figure.savefig(target, format="png", dpi=150)
    return target


def _mark(delta: Delta | None, alpha: float) -> str:
    return "*" if delta is not None and delta.p_value < alpha else ""
