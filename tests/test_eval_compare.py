"""Run comparison: means, differences from the baseline, paired significance tests, and the chart."""

from __future__ import annotations

import random

import pytest

from ragchain_cli.errors import UsageError
from ragchain_cli.evaluation.compare import compare_runs, paired_t_test, randomization_test

QIDS = [f"q{n}" for n in range(30)]
QRELS = {qid: {"rel": 1} for qid in QIDS}


def run_with_relevant_at(rank_of: dict[str, int]) -> dict[str, dict[str, float]]:
    """A run per query with ten documents, the relevant one placed at the given rank."""
    run = {}
    for qid, rank in rank_of.items():
        docs = [f"other{n}" for n in range(9)]
        docs.insert(rank - 1, "rel")
        run[qid] = {doc: 10.0 - position for position, doc in enumerate(docs)}
    return run


WEAK = run_with_relevant_at({qid: 5 + n % 5 for n, qid in enumerate(QIDS)})
STRONG = run_with_relevant_at({qid: 1 for qid in QIDS})


def test_identical_runs_differ_by_zero_with_p_one():
    table = compare_runs(QRELS, {"base": WEAK, "same": dict(WEAK)}, ["mrr@10", "ndcg@10"], t_test=True)
    for metric in table.metrics:
        delta = table.configs[1].deltas[metric]
        assert (delta.diff, delta.p_value, delta.t_p_value) == (0.0, 1.0, 1.0)


def test_a_clearly_better_run_gets_a_small_p_value():
    table = compare_runs(QRELS, {"weak": WEAK, "strong": STRONG}, ["mrr@10", "p@1"], permutations=2_000, t_test=True)
    expected_weak = sum(1 / (5 + n % 5) for n in range(30)) / 30
    assert table.configs[0].means["mrr@10"] == pytest.approx(expected_weak)
    delta = table.configs[1].deltas["mrr@10"]
    assert delta.diff == pytest.approx(1.0 - expected_weak)
    assert delta.p_value == pytest.approx(1 / 2_001)  # no sign flip of 30 positive differences is as extreme
    assert delta.t_p_value < 1e-6
    assert table.configs[1].deltas["p@1"].p_value < 0.001


def test_randomization_p_value_matches_the_exact_sign_flip_probability():
    # five equal positive differences: only "all +" and "all -" are as extreme, 2 of 2**5 sign patterns
    p_value = randomization_test([1.0] * 5, [0.0] * 5, permutations=10_000, seed=1)
    assert p_value == pytest.approx(2 / 2**5, abs=0.01)


def test_randomization_test_is_deterministic_for_a_seed_and_symmetric():
    rng = random.Random(0)
    a = [rng.random() for _ in range(40)]
    b = [value + rng.gauss(0.05, 0.2) for value in a]
    assert randomization_test(a, b, seed=3) == randomization_test(a, b, seed=3)
    assert randomization_test(a, b, seed=3) == randomization_test(b, a, seed=3)
    assert 0 < randomization_test(a, b) <= 1


def test_paired_t_test_agrees_with_scipy():
    stats = pytest.importorskip("scipy.stats")
    a, b = [0.2, 0.5, 0.9, 0.4, 0.3], [0.1, 0.5, 0.6, 0.2, 0.35]
    assert paired_t_test(a, b) == pytest.approx(stats.ttest_rel(a, b).pvalue)
    assert paired_t_test([0.5, 0.7], [0.4, 0.6]) == 0.0  # a constant shift, zero variance


def test_paired_tests_reject_unpaired_samples():
    with pytest.raises(UsageError):
        randomization_test([1.0, 2.0], [1.0])
    with pytest.raises(UsageError):
        paired_t_test([1.0], [1.0, 2.0])


def test_table_keeps_the_baseline_first_and_flattens_to_rows():
    runs = {"bm25": WEAK, "hybrid": STRONG, "dense": WEAK}
    table = compare_runs(QRELS, runs, ["mrr@10", "MRR@10", "map"], permutations=100)
    assert [config.name for config in table.configs] == ["bm25", "hybrid", "dense"]
    assert table.baseline == "bm25" and table.configs[0].deltas == {}
    assert table.metrics == ("mrr@10", "MRR@10", "map") and table.num_queries == 30
    rows = table.rows()
    assert len(rows) == 3 * 3
    assert rows[0] == {"config": "bm25", "metric": "mrr@10", "mean": table.configs[0].means["mrr@10"],
                       "diff": None, "p_value": None, "t_p_value": None}
    assert rows[-1]["config"] == "dense" and rows[-1]["diff"] == 0.0


def test_compare_rejects_no_runs_and_unknown_metrics():
    with pytest.raises(UsageError):
        compare_runs(QRELS, {}, ["map"])
    with pytest.raises(UsageError):
        compare_runs(QRELS, {"a": WEAK}, ["bleu@4"])


def test_plot_writes_a_png_without_switching_the_backend(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    from ragchain_cli.evaluation.plot import plot_comparison

    backend = matplotlib.get_backend()
    table = compare_runs(QRELS, {"weak": WEAK, "strong": STRONG}, ["mrr@10", "ndcg@10", "p@1"], permutations=200)
    target = plot_comparison(table, tmp_path / "chart.png")
    assert target.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert matplotlib.get_backend() == backend
