"""Offline IR evaluation: qrels/queries/run readers, trec_eval-compatible metrics, run comparison.

Importing this package loads only the standard library; numpy, scipy and matplotlib are
imported by the functions that need them.
"""

from .compare import ComparisonTable, ConfigResult, Delta, compare_runs, paired_t_test, randomization_test
from .metrics import EvalReport, Metric, evaluate, evaluate_per_query, evaluate_report, parse_metric
from .plot import plot_comparison
from .readers import read_qrels, read_queries
from .runs import read_trec_run, write_trec_run

__all__ = [
    "ComparisonTable",
    "ConfigResult",
    "Delta",
    "EvalReport",
    "Metric",
    "compare_runs",
    "evaluate",
    "evaluate_per_query",
    "evaluate_report",
    "paired_t_test",
    "parse_metric",
    "plot_comparison",
    "randomization_test",
    "read_qrels",
    "read_queries",
    "read_trec_run",
    "write_trec_run",
]

