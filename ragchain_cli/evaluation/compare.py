"""Side-by-side comparison of several runs over the same qrels, with paired significance tests.

The first run is the baseline. Every other run gets, per metric, its difference from the
baseline and the two-sided p-value of a paired randomization (sign-flip) test over the judged
queries; a paired t-test (scipy) can be added. No correction for multiple comparisons is made.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..errors import DependencyMissing, UsageError
from ..types import Qrels, Run
from .metrics import evaluate_report, parse_metric

_BATCH_CELLS = 4_000_000  # permutations x queries drawn at once, to bound memory
# Sign-flip samples per randomization test (the default of every comparison, and of `eval --permutations`).
# The p-value is a Monte Carlo estimate: at 10,000 its standard error is at most 0.005 and about 0.002 near
# p = 0.05, so a 0.05 or 0.01 call does not flip between runs, and the smallest p it can give is 1/10,001.
# It costs ~0.2 s a metric for 1,000 queries; 10x more samples would only shrink the error by ~3x.
PERMUTATIONS = 10_000


@dataclass(frozen=True)
class Delta:
    """One metric of one run against the baseline."""

    diff: float  # run mean - baseline mean
    p_value: float  # paired randomization test, two-sided
    t_p_value: float | None = None  # paired t-test, when asked for


@dataclass(frozen=True)
class ConfigResult:
    name: str
    means: dict[str, float]
    deltas: dict[str, Delta] = field(default_factory=dict)  # empty for the baseline


@dataclass(frozen=True)
class ComparisonTable:
    metrics: tuple[str, ...]
    configs: tuple[ConfigResult, ...]  # the baseline first
    num_queries: int
    permutations: int
    seed: int

    @property
    def baseline(self) -> str:
        return self.configs[0].name

    def rows(self) -> list[dict[str, object]]:
        """One flat dict per (config, metric), ready for JSON lines or a table."""
        rows: list[dict[str, object]] = []
        for config in self.configs:
            for metric in self.metrics:
                delta = config.deltas.get(metric)
                rows.append({
                    "config": config.name,
                    "metric": metric,
                    "mean": config.means[metric],
                    "diff": delta.diff if delta else None,
                    "p_value": delta.p_value if delta else None,
                    "t_p_value": delta.t_p_value if delta else None,
                })
        return rows


def randomization_test(a: Sequence[float], b: Sequence[float], permutations: int = PERMUTATIONS,
                       seed: int = 0) -> float:
    """Two-sided p-value that paired scores a and b have the same mean, by random sign flips.

    p = (1 + #{|permuted mean diff| >= |observed|}) / (1 + permutations), so never 0; 1.0 when a == b.
    """
    _check_paired(a, b)
    np = _numpy()
    diffs = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if permutations < 1:
        raise UsageError("the randomization test needs at least one permutation", "pass permutations >= 1")
    if diffs.size == 0:
        return 1.0
    observed = abs(diffs.mean()) - 1e-12  # tolerance: sign flips reorder the float sums
    rng = np.random.default_rng(seed)
    batch = max(1, _BATCH_CELLS // diffs.size)
    extreme, done = 0, 0
    while done < permutations:
        size = min(batch, permutations - done)
        signs = rng.integers(0, 2, size=(size, diffs.size), dtype=np.int8) * 2 - 1
        extreme += int(np.count_nonzero(np.abs(signs @ diffs) / diffs.size >= observed))
        done += size
    return (extreme + 1) / (permutations + 1)


def paired_t_test(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value of a paired t-test (scipy); 1.0 for identical samples, 0.0 for a constant non-zero shift."""
    try:
        from scipy import stats
    except ImportError as exc:
        raise DependencyMissing("the paired t-test needs scipy", "pip install scipy") from exc
    _check_paired(a, b)
    np = _numpy()
    diffs = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if diffs.size < 2:
        return 1.0
    if np.ptp(diffs) == 0:
        return 0.0 if diffs.any() else 1.0
    return float(stats.ttest_rel(a, b).pvalue)


def compare_runs(
    qrels: Qrels,
    runs: Mapping[str, Run],
    metrics: Sequence[str],
    permutations: int = PERMUTATIONS,
    seed: int = 0,
    t_test: bool = False,
) -> ComparisonTable:
    """Evaluate each named run (the first is the baseline) and test every other one against it."""
    if not runs:
        raise UsageError("nothing to compare", "pass at least one run")
    texts = [metrics] if isinstance(metrics, str) else metrics
    labels = tuple(dict.fromkeys(parse_metric(text).label for text in texts))
    reports = {name: evaluate_report(qrels, run, labels) for name, run in runs.items()}
    base = next(iter(reports.values()))
    qids = list(qrels)
    configs = []
    for index, (name, report) in enumerate(reports.items()):
        deltas = {}
        for metric in labels if index else ():
            ours = [report.per_query[metric][qid] for qid in qids]
            theirs = [base.per_query[metric][qid] for qid in qids]
            deltas[metric] = Delta(
                diff=report.means[metric] - base.means[metric],
                p_value=randomization_test(ours, theirs, permutations, seed),
                t_p_value=paired_t_test(ours, theirs) if t_test else None,
            )
        configs.append(ConfigResult(name, report.means, deltas))
    return ComparisonTable(labels, tuple(configs), len(qids), permutations, seed)


def _check_paired(a: Sequence[float], b: Sequence[float]) -> None:
    if len(a) != len(b):
        raise UsageError(f"paired samples differ in length ({len(a)} vs {len(b)})", "pass one value per query")


def _numpy():
    try:
        import numpy
    except ImportError as exc:
        raise DependencyMissing("significance tests need numpy", "pip install numpy") from exc
    return numpy
