"""Fit the abstention rule's few weights (generate/evidence.py) on half A of the QA split only.

    python bench/qa_abstain.py collect-retrieval --index INDEX --out A-retrieval.jsonl # no model: seconds
    python bench/qa_abstain.py collect --index INDEX --llm MODEL --out A-MODEL.jsonl   # with the judge
    python bench/qa_abstain.py fit A-qwen.jsonl [A-smollm.jsonl ...]                   # prints WEIGHTS, BIAS
    python bench/qa_abstain.py rates FILE.jsonl ...                                    # with the current weights

collect runs the answer workflow with abstention off (evidence is still computed) over half A's
tuning questions: bench/qa/eval-A.jsonl (30 answerable, 12 unanswerable), bench/qa/abstain-dev-A.jsonl
(18 more unanswerable, written for tuning), and 30 further answerable half-A questions from
../shared/data/qa-cmu-dev/qa.jsonl (first by sha1 of the question, articles of split.json's A).
fit is a class-balanced, L2-regularised logistic regression (Newton's method, numpy) on the four
signals; label 1 = the documents answer the question. Half B is never read here.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
QA = HERE.parent.parent / "shared" / "data" / "qa-cmu-dev" / "qa.jsonl"
SIGNALS = ("coverage", "dense", "bm25", "judge")
EXTRA_ANSWERABLE = 30
L2 = 1.0


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def tuning_questions() -> list[tuple[str, bool]]:
    rows = _jsonl(HERE / "qa" / "eval-A.jsonl") + _jsonl(HERE / "qa" / "abstain-dev-A.jsonl")
    half_a = set(json.loads((HERE / "qa" / "split.json").read_text())["A"])
    taken = {r["question"] for r in rows}
    extra = {r["question"]: r for r in _jsonl(Path(QA)) if r["doc_id"] in half_a and r["question"] not in taken}
    ordered = sorted(extra, key=lambda q: hashlib.sha1(q.encode()).hexdigest())[:EXTRA_ANSWERABLE]
    return [(r["question"], bool(r["answers"])) for r in rows] + [(q, True) for q in ordered]


def collect(index: str, llm: str, out: Path) -> None:
    from ragchain_cli.config import load_settings
    from ragchain_cli.generate.workflow import AskOptions, ask_payloads

    settings = load_settings({"index": index, "llm": llm}, config_files=[])
    questions = tuning_questions()
    with out.open("w", encoding="utf-8") as sink:
        payloads = ask_payloads(settings, [q for q, _ in questions], options=AskOptions(abstain=False, judge=True))
        for (question, answerable), payload in zip(questions, payloads):
            sink.write(json.dumps({**payload, "answerable": answerable}, ensure_ascii=False) + "\n")
            sink.flush()


def collect_retrieval(index: str, out: Path) -> None:
    """The three model-free signals for every half-A question (all answerable ones and the
    unanswerable ones of eval-A and abstain-dev-A); judge is 0. Seconds, not hours, on 2 cores."""
    from ragchain_cli.config import load_settings
    from ragchain_cli.generate.workflow import AskOptions, open_workflow

    rows = _jsonl(HERE / "qa" / "eval-A.jsonl") + _jsonl(HERE / "qa" / "abstain-dev-A.jsonl")
    half_a = set(json.loads((HERE / "qa" / "split.json").read_text())["A"])
    rows += [r for r in _jsonl(Path(QA)) if r["doc_id"] in half_a]
    questions = {r["question"]: bool(r.get("answers") or r.get("answer")) for r in rows}
    settings = load_settings({"index": index}, config_files=[])
    with open_workflow(settings, AskOptions(generate=False)) as workflow, out.open("w", encoding="utf-8") as sink:
        for question, answerable in questions.items():
            _weights, evidence = workflow.retrieval_signals(question, workflow.pipeline.search(question))
            sink.write(json.dumps({"question": question, "answerable": answerable,
                                   "evidence": evidence.payload()}) + "\n")


def _matrix(paths: list[Path]) -> tuple[np.ndarray, np.ndarray]:
    rows = [r for p in paths for r in _jsonl(p) if "evidence" in r]
    x = np.array([[r["evidence"][s] or 0.0 for s in SIGNALS] for r in rows], dtype=float)
    return x, np.array([1.0 if r["answerable"] else 0.0 for r in rows])


def fit(paths: list[Path]) -> tuple[np.ndarray, float]:
    x, y = _matrix(paths)
    design = np.hstack([x, np.ones((len(x), 1))])
    weight = np.where(y == 1, len(y) / (2 * y.sum()), len(y) / (2 * (len(y) - y.sum())))  # class-balanced
    beta = np.zeros(design.shape[1])
    penalty = np.diag([L2] * x.shape[1] + [0.0])
    for _ in range(50):
        p = 1 / (1 + np.exp(-design @ beta))
        gradient = design.T @ (weight * (p - y)) + penalty @ beta
        hessian = design.T @ (design * (weight * p * (1 - p))[:, None]) + penalty
        beta -= np.linalg.solve(hessian, gradient)
    return beta[:-1], float(beta[-1])


def rates(paths: list[Path], weights: np.ndarray, bias: float) -> str:
    x, y = _matrix(paths)
    answered = x @ weights + bias >= 0
    unanswerable = y == 0
    return (f"abstained on {int((~answered & unanswerable).sum())}/{int(unanswerable.sum())} unanswerable, "
            f"{int((~answered & ~unanswerable).sum())}/{int((~unanswerable).sum())} answerable")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--index", required=True)
    c.add_argument("--llm", required=True)
    c.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("collect-retrieval")
    r.add_argument("--index", required=True)
    r.add_argument("--out", type=Path, required=True)
    for name in ("fit", "rates"):
        sub.add_parser(name).add_argument("files", type=Path, nargs="+")
    args = parser.parse_args(argv)
    if args.command == "collect":
        return collect(args.index, args.llm, args.out)
    if args.command == "collect-retrieval":
        return collect_retrieval(args.index, args.out)
    if args.command == "fit":
        weights, bias = fit(args.files)
        print("WEIGHTS = {" + ", ".join(f'"{s}": {w:.3f}' for s, w in zip(SIGNALS, weights)) + "}")
        print(f"BIAS = {bias:.3f}")
    else:
        from ragchain_cli.generate.evidence import BIAS, WEIGHTS

        weights, bias = np.array([WEIGHTS[s] for s in SIGNALS]), BIAS
    for path in args.files:
        print(f"{path.name}: {rates([path], weights, bias)}")


if __name__ == "__main__":
    main(sys.argv[1:])
