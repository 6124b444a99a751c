"""The eval workflows as library calls (evaluation.evaluate_runs, evaluate_answers): what `ragchain
eval` prints is what a Python caller gets; and the tuned numbers are written once."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from conftest import SAMPLE
from ragchain_cli.errors import UsageError
from ragchain_cli.evaluation import ConfigGrid, evaluate_answers, evaluate_runs, qa_workflow
from ragchain_cli.evaluation.metrics import metric_names

PACKAGE = Path(__file__).resolve().parent.parent / "ragchain_cli"


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def judged_runs(tmp_path) -> tuple[Path, list[Path]]:
    """Two queries, one relevant document each; a run that ranks it second and one that ranks it first."""
    qrels = _write(tmp_path / "qrels.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n")
    weak = _write(tmp_path / "weak.trec", "q1 Q0 x 1 2.0 w\nq1 Q0 d1 2 1.0 w\nq2 Q0 x 1 2.0 w\nq2 Q0 d2 2 1.0 w\n")
    strong = _write(tmp_path / "strong.trec", "q1 Q0 d1 1 2.0 s\nq2 Q0 d2 1 2.0 s\n")
    return qrels, [weak, strong]


def test_evaluate_runs_scores_run_files_against_the_first(judged_runs):
    qrels, runs = judged_runs
    payload = evaluate_runs(qrels, run_files=runs, metrics="mrr@10,p@1", permutations=50)
    weak, strong = payload["configs"]
    assert (payload["baseline"], weak["means"]["mrr@10"], strong["diff"]["mrr@10"]) == ("weak.trec", 0.5, 0.5)


def test_evaluate_runs_takes_a_list_of_metrics(judged_runs):
    qrels, runs = judged_runs
    assert evaluate_runs(qrels, run_files=runs, metrics=["map", "p@1"], permutations=10)["metrics"] == ["map", "p@1"]


def test_evaluate_runs_needs_queries_when_it_runs_the_pipeline(judged_runs):
    qrels, _ = judged_runs
    with pytest.raises(UsageError, match="--queries is required"):
        evaluate_runs(qrels)


def test_an_unknown_metric_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown metric 'foo'"):
        metric_names("ndcg@10, foo")


def test_evaluate_runs_gives_what_the_cli_prints(sample_index, cli):
    args = (SAMPLE / "qrels.tsv", "--queries", SAMPLE / "queries.jsonl", "--index", sample_index)
    printed = cli("eval", *args, "--retrievers", "bm25", "--permutations", "100", "--json").json()
    grid = ConfigGrid(retrievers=["bm25"], flags={"index": str(sample_index)})
    called = evaluate_runs(SAMPLE / "qrels.tsv", SAMPLE / "queries.jsonl", grid=grid, permutations=100)
    assert {**called, "seconds": None} == {**printed, "seconds": None}


def test_evaluate_runs_reports_each_run_and_file_it_writes(sample_index, tmp_path):
    seen = []
    grid = ConfigGrid(retrievers=["bm25", "dense"], flags={"index": str(sample_index)})
    evaluate_runs(SAMPLE / "qrels.tsv", SAMPLE / "queries.jsonl", grid=grid, permutations=10,
                  run_out=tmp_path / "run.trec", on_run=lambda name, queries, _: seen.append((name, queries)),
                  on_written=lambda name, path: seen.append((name, Path(path).name)))
    assert seen == [("bm25", 15), ("dense", 15), ("bm25", "run.bm25.trec"), ("dense", "run.dense.trec")]


GOLD = [{"question": "How many airports does Montreal have?", "answers": ["two"]},
        {"question": "Who discovered penicillin?", "answers": []}]


def _jsonl(path: Path, rows: list[dict]) -> Path:
    return _write(path, "".join(json.dumps(r) + "\n" for r in rows))


def test_evaluate_answers_scores_prediction_files_side_by_side(tmp_path):
    gold = _jsonl(tmp_path / "gold.jsonl", GOLD)
    wrong = _jsonl(tmp_path / "wrong.jsonl", [{"question": GOLD[0]["question"], "answer": "three"},
                                              {"question": GOLD[1]["question"], "answer": "Fleming"}])
    right = _jsonl(tmp_path / "right.jsonl", [{"question": GOLD[0]["question"], "answer": "two"},
                                              {"question": GOLD[1]["question"], "answer": "", "answered": False}])
    payload = evaluate_answers(gold, [wrong, right], permutations=10)
    assert [(c["name"], c["summary"]["overall_correct"]) for c in payload["configs"]] == [("wrong", 0.0),
                                                                                          ("right", 1.0)]


def test_evaluate_answers_runs_each_configuration_through_ask(tmp_path, monkeypatch):
    answers = {"first": "two", "second": "three"}
    monkeypatch.setattr(qa_workflow, "ask_payloads", lambda config, questions: iter(
        {"question": q, "answer": answers[config], "answered": True} for q in questions))
    progress = []
    payload = evaluate_answers(_jsonl(tmp_path / "gold.jsonl", GOLD), settings=[("a", "first"), ("b", "second")],
                               permutations=10, on_answer=lambda name, n, total, _: progress.append((name, n, total)))
    assert [c["summary"]["correct"] for c in payload["configs"]] == [1.0, 0.0]
    assert progress == [("a", 1, 2), ("a", 2, 2), ("b", 1, 2), ("b", 2, 2)]


def test_evaluate_answers_without_predictions_or_settings_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="no answers to score"):
        evaluate_answers(_jsonl(tmp_path / "gold.jsonl", GOLD))


def _sources() -> dict[str, str]:
    return {str(path.relative_to(PACKAGE)): path.read_text(encoding="utf-8") for path in PACKAGE.rglob("*.py")}


def permutation_literals(source: str) -> list[int]:
    """Numbers given to a `permutations` parameter as its default or as a keyword argument."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args.posonlyargs + node.args.args
            pairs = [*zip(args[len(args) - len(node.args.defaults):], node.args.defaults),
                     *zip(node.args.kwonlyargs, node.args.kw_defaults)]
            found += [d.value for a, d in pairs if a.arg == "permutations" and isinstance(d, ast.Constant)]
        elif isinstance(node, ast.keyword) and node.arg == "permutations" and isinstance(node.value, ast.Constant):
            found.append(node.value.value)
    return found


def test_the_permutation_count_is_written_once():
    """Every randomization test's default is evaluation/compare.py's PERMUTATIONS, never a literal."""
    found = {name: permutation_literals(text) for name, text in _sources().items() if permutation_literals(text)}
    assert not found, found


def test_a_literal_permutation_count_is_found():
    source = "def f(a, permutations: int = 10_000): pass\ng(permutations=500)\n"
    assert permutation_literals(source) == [10_000, 500]


def test_the_default_metrics_are_written_once():
    found = [name for name, text in _sources().items() if re.search(r"^DEFAULT_METRICS\s*=", text, re.M)]
    assert found == ["evaluation/metrics.py"]
