"""Fit the abstention rule's few weights (generate/decide.py) on half A of the QA split only.

    python bench/qa_abstain.py collect-retrieval --index INDEX --out A-retrieval.jsonl [--half A] # no model
    python bench/qa_abstain.py collect --index INDEX --llm MODEL --out A-MODEL.jsonl   # with answers
    python bench/qa_abstain.py fit A-qwen.jsonl [A-smollm.jsonl ...]                   # prints WEIGHTS, BIAS
    python bench/qa_abstain.py rates FILE.jsonl ...                                    # with the current weights

collect runs the answer workflow with abstention off (evidence is still computed) over half A's
tuning questions: bench/qa/eval-A.jsonl (30 answerable, 12 unanswerable), bench/qa/abstain-dev-A.jsonl
(18 more unanswerable, written for tuning), and 30 further answerable half-A questions from
../shared/data/qa-cmu-dev/qa.jsonl (first by sha1 of the question, articles of split.json's A).
collect-retrieval needs no model: for every question of the half (A unless --half B, which is for
reporting only) whose article is among the top 4 passages, its signals (answerable), and the same
question's signals with every chunk of its article removed from the hits (not answerable: the
documents left do not hold the answer), plus the half's written unanswerable questions (eval and,
for A, abstain-dev). Hundreds of realistic near misses instead of 30 written ones.
fit is a class-balanced, L2-regularised logistic regression (Newton's method, numpy) on the
signals; label 1 = the documents answer the question; then the bias is moved so that the fitted
half abstains on ANSWERABLE_REFUSED of its answerable questions. Half B is never fit on.
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
SIGNALS = ("coverage", "local", "dense", "bm25", "sentence", "sentence_coverage")
EXTRA_ANSWERABLE = 30
L2 = 1.0
ANSWERABLE_REFUSED = 0.08
REMOVED_DEPTH = 40  # hits fetched, so that 10 remain once the article's chunks are removed


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
    from ragchain_cli.answering import ask_payloads
    from ragchain_cli.generate.workflow import AskOptions

    settings = load_settings({"index": index, "llm": llm}, config_files=[])
    questions = tuning_questions()
    with out.open("w", encoding="utf-8") as sink:
        payloads = ask_payloads(settings, [q for q, _ in questions], options=AskOptions(abstain=False))
        for (question, answerable), payload in zip(questions, payloads):
            sink.write(json.dumps({**payload, "answerable": answerable}, ensure_ascii=False) + "\n")
            sink.flush()


def collect_retrieval(index: str, out: Path, half: str = "A") -> None:
    """The model-free signals: answerable, article-removed and written-unanswerable rows (see above)."""
    from ragchain_cli.config import load_settings
    from ragchain_cli.answering import open_workflow
    from ragchain_cli.generate.workflow import AskOptions
    from ragchain_cli.generate.decide import evidence_payload
    from ragchain_cli.generate.gather import Searched, gather
    from ragchain_cli.retrieve.pipeline import search_options

    written = [r for r in _jsonl(HERE / "qa" / f"eval-{half}.jsonl") if not r["answers"]]
    written += _jsonl(HERE / "qa" / "abstain-dev-A.jsonl") if half == "A" else []
    articles = set(json.loads((HERE / "qa" / "split.json").read_text())[half])
    answerable = {r["question"]: r["doc_id"] for r in _jsonl(Path(QA)) if r["doc_id"] in articles and r.get("answer")}
    settings = load_settings({"index": index}, config_files=[])
    options = search_options(settings, k=REMOVED_DEPTH)
    with open_workflow(settings, AskOptions(generate=False), search_options=options) as workflow, \
            out.open("w", encoding="utf-8") as sink:
        def row(question: str, kind: str, hits: list) -> None:
            gathered = gather(question, lambda q: Searched(hits[:settings.k], q), workflow.stats, workflow.encoder, 4)
            sink.write(json.dumps({"question": question, "kind": kind, "answerable": kind == "answerable",
                                   "evidence": evidence_payload(gathered.signals)}) + "\n")

        for r in written:
            row(r["question"], "written", workflow.search(r["question"]).hits)
        for question, doc_id in answerable.items():
            hits = workflow.search(question).hits
            if any(h.doc_id == doc_id for h in hits[:4]):
                row(question, "answerable", hits)
            row(question, "removed", [h for h in hits if h.doc_id != doc_id])


def _matrix(paths: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Signals, labels (1 = answerable) and kinds (answerable / removed / written) of the rows."""
    rows = [r for p in paths for r in _jsonl(p) if "evidence" in r]
    x = np.array([[r["evidence"][s] or 0.0 for s in SIGNALS] for r in rows], dtype=float)
    kinds = np.array([r.get("kind", "answerable" if r["answerable"] else "written") for r in rows])
    return x, np.array([1.0 if r["answerable"] else 0.0 for r in rows]), kinds


def fit(paths: list[Path]) -> tuple[np.ndarray, float]:
    x, y, _kinds = _matrix(paths)
    design = np.hstack([x, np.ones((len(x), 1))])
    weight = np.where(y == 1, len(y) / (2 * y.sum()), len(y) / (2 * (len(y) - y.sum())))  # class-balanced
    beta = np.zeros(design.shape[1])
    penalty = np.diag([L2] * x.shape[1] + [0.0])
    for _ in range(50):
        p = 1 / (1 + np.exp(-design @ beta))
        gradient = design.T @ (weight * (p - y)) + penalty @ beta
        hessian = design.T @ (design * (weight * p * (1 - p))[:, None]) + penalty
        beta -= np.linalg.solve(hessian, gradient)
    scores = x[y == 1] @ beta[:-1] + beta[-1]
    return beta[:-1], float(beta[-1] - np.quantile(scores, ANSWERABLE_REFUSED))


def rates(paths: list[Path], weights: np.ndarray, bias: float) -> str:
    x, _y, kinds = _matrix(paths)
    answered = x @ weights + bias >= 0
    return ", ".join(f"abstained on {int((~answered & (kinds == k)).sum())}/{int((kinds == k).sum())} {k}"
                     for k in ("answerable", "removed", "written") if (kinds == k).any())


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
    r.add_argument("--half", choices=("A", "B"), default="A")
    for name in ("fit", "rates"):
        sub.add_parser(name).add_argument("files", type=Path, nargs="+")
    args = parser.parse_args(argv)
    if args.command == "collect":
        return collect(args.index, args.llm, args.out)
    if args.command == "collect-retrieval":
        return collect_retrieval(args.index, args.out, args.half)
    if args.command == "fit":
        weights, bias = fit(args.files)
        print("WEIGHTS = {" + ", ".join(f'"{s}": {w:.3f}' for s, w in zip(SIGNALS, weights)) + "}")
        print(f"BIAS = {bias:.3f}")
    else:
        from ragchain_cli.generate.decide import BIAS, WEIGHTS

        weights, bias = np.array([WEIGHTS[s] for s in SIGNALS]), BIAS
    for path in args.files:
        print(f"{path.name}: {rates([path], weights, bias)}")


if __name__ == "__main__":
    main(sys.argv[1:])
