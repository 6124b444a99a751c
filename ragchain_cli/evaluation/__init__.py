"""Offline evaluation: qrels/queries/run readers, trec_eval-compatible metrics, run comparison, and
the two workflows the CLI and a Python user call alike: evaluate_runs (IR metrics, `ragchain eval
QRELS`) and evaluate_answers (answer quality, `ragchain eval --qa`).

Importing this package loads only the standard library; numpy, scipy and matplotlib are
imported by the functions that need them.
"""

from .compare import (PERMUTATIONS, ComparisonTable, ConfigResult, Delta, compare_runs, paired_t_test,
                      randomization_test)
from .metrics import DEFAULT_METRICS, EvalReport, Metric, evaluate, evaluate_per_query, evaluate_report, parse_metric
from .plot import plot_comparison
from .qa_workflow import evaluate_answers
from .readers import read_qrels, read_queries
from .runs import read_trec_run, write_trec_run
from .workflow import ConfigGrid, evaluate_runs, tune_fusion

__all__ = [
    "DEFAULT_METRICS",
    "PERMUTATIONS",
    "ComparisonTable",
    "ConfigGrid",
    "ConfigResult",
    "Delta",
    "EvalReport",
    "Metric",
    "compare_runs",
    "evaluate",
    "evaluate_answers",
    "evaluate_per_query",
    "evaluate_report",
    "evaluate_runs",
    "paired_t_test",
    "parse_metric",
    "plot_comparison",
    "randomization_test",
    "read_qrels",
    "read_queries",
    "read_trec_run",
    "tune_fusion",
    "write_trec_run",
]

