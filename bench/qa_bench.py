"""Question answering before/after (issue 13): `ragchain ask - --json` on each half's fixed subset,
per model, then `ragchain eval --qa` on the saved predictions.

    ragchain ingest ../shared/data/qa-cmu-dev/corpus.jsonl --index INDEX      # once
    python bench/qa_bench.py --index INDEX --out DIR [--subset eval|quick] [--models M1,M2] [--halves A,B]
        [--label before] [--ask-args "--context-tokens 800"]

For every model and half: the questions of bench/qa/SUBSET-HALF.jsonl (eval: 30 answerable + 12
unanswerable; quick: 10 + 5 of them; see bench/qa/make_sets.py) go one a line to
`ragchain ask - --index INDEX --llm MODEL --json [ASK_ARGS]`, whose stdout is saved as
DIR/LABEL-SUBSET-MODEL-HALF.jsonl (appending: a stopped run resumes after the last answer written).
Then per half `ragchain eval --qa bench/qa/SUBSET-HALF.jsonl --predictions ...` (every model of the
half side by side, the first model the baseline) writes DIR/LABEL-SUBSET-scores-HALF.json, and a
Markdown table of all halves goes to stdout and DIR/LABEL-SUBSET.md. Models run one after
another, never together.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODELS = "qwen2.5-coder-0.5b-instruct,smollm2-135m-instruct"
COLUMNS = [("correct", "correct"), ("f1", "F1"), ("exact_match", "EM"), ("contains", "gold in answer"),
           ("abstain_unanswerable", "abstained, unanswerable"), ("abstain_answerable", "abstained, answerable"),
           ("citation_doc_of_correct", "cited gold doc (of correct)"),
           ("citation_text_of_correct", "cited passage holds gold (of correct)"),
           ("seconds_retrieve", "retrieve s"), ("seconds_first_token", "first token s"), ("seconds_total", "total s")]


def gold_file(half: str, subset: str) -> Path:
    return HERE / "qa" / f"{subset}-{half}.jsonl"


def ask(index: Path, model: str, gold: Path, target: Path, extra: list[str]) -> None:
    """Answers for the gold questions not yet in target (a stopped run resumes where it stopped)."""
    questions = [json.loads(line)["question"] for line in gold.read_text().splitlines() if line]
    done = [json.loads(line)["question"] for line in target.read_text().splitlines()] if target.exists() else []
    todo = questions[len(done):]
    if done != questions[:len(done)]:
        raise SystemExit(f"{target} does not answer the first questions of {gold}; remove it")
    if not todo:
        print(f"reusing {target}", file=sys.stderr)
        return
    command = ["ragchain", "ask", "-", "--index", str(index), "--llm", model, "--json", *extra]
    print(f"$ jq -r .question {gold} | {shlex.join(command)} >> {target}  ({len(done)} done)", file=sys.stderr)
    started = time.perf_counter()
    with target.open("a") as out, (target.with_suffix(".err")).open("a") as err:
        code = subprocess.run(command, input="\n".join(todo) + "\n", stdout=out, stderr=err, text=True).returncode
    if code != 0:
        raise SystemExit(f"ask exited {code}; see {target.with_suffix('.err')}")
    print(f"{model} {gold.name}: {len(todo)} questions in {time.perf_counter() - started:.0f}s", file=sys.stderr)


def score(gold: Path, files: list[Path], target: Path) -> dict:
    command = ["ragchain", "eval", "--qa", str(gold), "--per-query", "--json"]
    for path in files:
        command += ["--predictions", str(path)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"eval --qa exited {result.returncode}: {result.stderr}")
    target.write_text(result.stdout)
    return json.loads(result.stdout)


def markdown(payloads: dict[str, dict]) -> str:
    lines = ["| half | config | " + " | ".join(label for _, label in COLUMNS) + " |",
             "|---|---|" + "---|" * len(COLUMNS)]
    for half, payload in payloads.items():
        for config in payload["configs"]:
            cells = []
            for key, _ in COLUMNS:
                value = config["summary"].get(key)
                cells.append("-" if value is None else f"{value:.1f}" if key.startswith("seconds") else f"{value:.2f}")
                if key in config["p_value"]:
                    cells[-1] += f" (p={config['p_value'][key]:.2f})"
            lines.append(f"| {half} | {config['name']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--models", default=MODELS)
    parser.add_argument("--halves", default="A,B")
    parser.add_argument("--label", default="before")
    parser.add_argument("--subset", default="eval", choices=["eval", "quick"],
                        help="bench/qa/SUBSET-HALF.jsonl: eval (30 + 12 a half) or quick (10 + 5, nested in eval)")
    parser.add_argument("--ask-args", default="", help="extra flags for ask, one shell-quoted string")
    args = parser.parse_args()
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    args.out.mkdir(parents=True, exist_ok=True)
    models, halves = args.models.split(","), args.halves.split(",")
    name = f"{args.label}-{args.subset}"
    for model in models:
        for half in halves:
            ask(args.index, model, gold_file(half, args.subset), args.out / f"{name}-{model}-{half}.jsonl",
                shlex.split(args.ask_args))
    payloads = {half: score(gold_file(half, args.subset), [args.out / f"{name}-{m}-{half}.jsonl" for m in models],
                            args.out / f"{name}-scores-{half}.json") for half in halves}
    table = markdown(payloads)
    (args.out / f"{name}.md").write_text(table)
    print(table)


if __name__ == "__main__":
    main()
