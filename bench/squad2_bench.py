"""SQuAD 2.0 near-miss questions (issue 27): `ragchain ask - --json` on a stratified sample of
../shared/data/squad2-dev, scored by `ragchain eval --qa`; with --sweep also the abstention
trade-off from a second, --no-abstain run.

    python bench/squad2_bench.py --index INDEX --out DIR [--size 40] [--llm NAME] [--label L]
        [--ask-args "..."] [--sweep] [--steps 10]

The index is built from the article when INDEX does not exist
(`ragchain ingest DATA/corpus.jsonl --index INDEX --json`). The sample: the answerable and the
unanswerable questions each in sha1(question) order, round(SIZE * 197 / 418) of the first and the
rest of the second (--size 0: all 418 questions; one full run takes ~25 minutes on 2 cores), written
to DIR/gold-SIZE.jsonl (outside the repository: the data is not copied into it). Its questions go
one a line to `ragchain ask - --index INDEX --json [--llm NAME] [ASK_ARGS]`, stdout saved as
DIR/LABEL-SIZE.jsonl (appending: a stopped run resumes after the last answer written), then
`ragchain eval --qa DIR/gold-SIZE.jsonl --predictions DIR/LABEL-SIZE.jsonl --per-query --json`
goes to DIR/LABEL-SIZE-scores.json. --sweep adds the same run with --no-abstain
(DIR/LABEL-noabstain-SIZE.jsonl) and the trade-off table of `qa_tradeoff.tradeoff` over
`score_grid(steps)` and ask's own threshold, without and with ask's names-and-numbers refusal
(`evidence.unmentioned`). Rerun with the same arguments to reprint from the saved answers. Every command run is printed, and the report (Markdown) goes to stdout and
DIR/LABEL-SIZE.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "data" / "squad2-dev"
FIGURES = [("correct", "correct on answerable"), ("abstain_unanswerable", "abstained on unanswerable"),
           ("abstain_answerable", "abstained on answerable"), ("overall_correct", "overall correct"),
           ("f1", "F1 (answerable)"), ("exact_match", "EM (answerable)"), ("overall_f1", "overall F1"),
           ("overall_exact_match", "overall EM"), ("seconds_total", "median s/question")]


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def stratified(rows: list[dict], size: int) -> list[dict]:
    """`size` rows keeping the answerable share, each kind in sha1(question) order; 0 = all rows."""
    if not size or size >= len(rows):
        return rows
    order = sorted(rows, key=lambda r: hashlib.sha1(r["question"].encode("utf-8")).hexdigest())
    answerable = [r for r in order if r["answerable"]]
    unanswerable = [r for r in order if not r["answerable"]]
    take = round(size * len(answerable) / len(rows))
    return answerable[:take] + unanswerable[:size - take]


def run(command: list[str], log: list[str], **kwargs) -> subprocess.CompletedProcess:
    shown = shlex.join(command)
    log.append(shown)
    print(f"$ {shown}", file=sys.stderr)
    return subprocess.run(command, text=True, **kwargs)


def ingest(data: Path, index: Path, log: list[str]) -> None:
    if index.exists():
        print(f"reusing the index {index}", file=sys.stderr)
        return
    result = run(["ragchain", "ingest", str(data / "corpus.jsonl"), "--index", str(index), "--json"], log,
                 capture_output=True)
    if result.returncode != 0:
        raise SystemExit(f"ingest exited {result.returncode}: {result.stderr}")


def ask(index: Path, gold: Path, target: Path, extra: list[str], log: list[str]) -> float:
    """Answers for the gold questions not yet in target; returns the seconds spent."""
    questions = [row["question"] for row in read_jsonl(gold)]
    done = [row["question"] for row in read_jsonl(target)] if target.exists() else []
    if done != questions[:len(done)]:
        raise SystemExit(f"{target} does not answer the first questions of {gold}; remove it")
    todo = questions[len(done):]
    command = ["ragchain", "ask", "-", "--index", str(index), "--json", *extra]
    log.append(f"jq -r .question {gold} | {shlex.join(command)} > {target}")
    if not todo:
        print(f"reusing {target}", file=sys.stderr)
        return 0.0
    print(f"$ {log[-1]}  ({len(done)} done)", file=sys.stderr)
    started = time.perf_counter()
    with target.open("a") as out, target.with_suffix(".err").open("a") as err:
        code = subprocess.run(command, input="\n".join(todo) + "\n", stdout=out, stderr=err, text=True).returncode
    if code != 0:
        raise SystemExit(f"ask exited {code}; see {target.with_suffix('.err')}")
    return time.perf_counter() - started


def score(gold: Path, answers: Path, target: Path, log: list[str]) -> dict:
    result = run(["ragchain", "eval", "--qa", str(gold), "--predictions", str(answers), "--per-query", "--json"],
                 log, capture_output=True)
    if result.returncode != 0:
        raise SystemExit(f"eval --qa exited {result.returncode}: {result.stderr}")
    target.write_text(result.stdout)
    return json.loads(result.stdout)


def summary_table(payload: dict) -> str:
    config = payload["configs"][0]
    counts, summary = config["counts"], config["summary"]
    lines = [f"{payload['answerable']} answerable, {payload['questions'] - payload['answerable']} unanswerable; "
             f"{counts['correct']} correct, {counts['abstained_unanswerable']} abstained on unanswerable, "
             f"{counts['answered']} answered", "", "| figure | value |", "|---|---|"]
    for key, label in FIGURES:
        value = summary.get(key)
        shown = "-" if value is None else f"{value:.1f}" if key.startswith("seconds") else f"{value:.3f}"
        lines.append(f"| {label} | {shown} |")
    return "\n".join(lines)


def sweep_table(gold: Path, answers: Path, steps: int) -> str:
    """The trade-off without and with ask's names-and-numbers refusal, ask's own threshold marked."""
    from ragchain_cli.evaluation.qa_io import pair, read_gold, read_predictions
    from ragchain_cli.evaluation.qa_tradeoff import score_grid, tradeoff
    from ragchain_cli.generate.decide import THRESHOLD

    questions = read_gold(gold)
    source, rows = read_predictions(answers)
    predictions = pair(questions, rows, source)
    lines = [f"ask's own threshold: {THRESHOLD:g}; names rule: also refused when evidence.unmentioned is not empty",
             "", "| threshold on evidence.score | names rule | correct on answerable | abstained on unanswerable | "
             "abstained on answerable | overall correct |", "|---|---|---|---|---|---|"]
    grid = score_grid(predictions, steps, marks=[THRESHOLD])
    reported = any("unmentioned" in (p.get("evidence") or {}) for p in predictions)  # not by ask before 9a8f808
    for names in (False, True) if reported else (False,):
        for row in tradeoff(questions, predictions, grid, unmentioned=names):
            cells = [f"{row[k]:.3f}" for k in ("correct_answerable", "abstained_unanswerable",
                                                "abstained_answerable", "overall_correct")]
            lines.append(f"| {row['threshold']:g} | {'yes' if names else 'no'} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--size", type=int, default=40, help="questions in the stratified sample (0: all 418)")
    parser.add_argument("--llm", help="catalogue name or GGUF (default: ask's own)")
    parser.add_argument("--label", default="default")
    parser.add_argument("--ask-args", default="", help="extra flags for ask, one shell-quoted string")
    parser.add_argument("--sweep", action="store_true", help="also run --no-abstain and print the trade-off")
    parser.add_argument("--steps", type=int, default=10, help="quantile steps of the sweep's thresholds")
    args = parser.parse_args()
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    args.out.mkdir(parents=True, exist_ok=True)
    log: list[str] = []
    ingest(args.data, args.index, log)
    rows = stratified(read_jsonl(args.data / "questions.jsonl"), args.size)
    gold = args.out / f"gold-{args.size or 'all'}.jsonl"
    gold.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    extra = shlex.split(args.ask_args) + (["--llm", args.llm] if args.llm else [])
    name = f"{args.label}-{args.size or 'all'}"
    seconds = ask(args.index, gold, args.out / f"{name}.jsonl", extra, log)
    report = [f"## {name}", "", summary_table(score(gold, args.out / f"{name}.jsonl",
                                                    args.out / f"{name}-scores.json", log))]
    if args.sweep:
        loose = args.out / f"{args.label}-noabstain-{args.size or 'all'}.jsonl"
        seconds += ask(args.index, gold, loose, [*extra, "--no-abstain"], log)
        report += ["", f"Trade-off from {loose.name} (answered when evidence.score >= threshold):", "",
                   sweep_table(gold, loose, args.steps)]
    report += ["", f"asked in {seconds:.0f} s; commands:", "", "```sh", *log, "```", ""]
    text = "\n".join(report)
    (args.out / f"{name}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
