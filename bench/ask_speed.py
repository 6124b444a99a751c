"""`ask` speed, before/after side by side in one run. Two pairs of settings:
- `--pair packing`: whole chunks up to 1,536 tokens (the packing before issue 13) against the best
  sentences of the top 4 passages in 360 tokens (the default now);
- `--pair focus`: no second reading against the default second, focused reading of an answer that
  is not drawn from the sentence best matching the question (80 tokens).

    python bench/ask_speed.py --index INDEX --llm MODEL --questions bench/qa/quick-A.jsonl [-n 6] [--pair focus]

One process, one loaded model; for each question the two configurations run alternately (which
goes first alternates too), so machine load falls on both alike. Abstention is off so both
generate. Prints per-question seconds and the medians of prompt reading (judge, when asked), first
token and total, and their ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

PAIRS = {"packing": {"whole chunks, 1536 tokens": dict(context_tokens=1536, passages=10),
                     "best sentences, 360 tokens": dict(context_tokens=360, passages=4)},
         "focus": {"no second reading": dict(focus_tokens=0),
                   "second, focused reading (80 tokens)": dict(focus_tokens=80)}}


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", required=True)
    parser.add_argument("--llm", required=True)
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("-n", type=int, default=6)
    parser.add_argument("--pair", choices=sorted(PAIRS), default="packing")
    args = parser.parse_args(argv)
    configs = PAIRS[args.pair]
    from ragchain_cli.config import load_settings
    from ragchain_cli.answering import open_workflow
    from ragchain_cli.generate.workflow import AskOptions

    rows = [json.loads(line) for line in args.questions.read_text().splitlines() if line.strip()]
    questions = [r["question"] for r in rows if r.get("answers")][: args.n]
    settings = load_settings({"index": args.index, "llm": args.llm}, config_files=[])
    seconds: dict[str, list[dict]] = {name: [] for name in configs}
    with open_workflow(settings, AskOptions(abstain=False)) as workflow:
        workflow.ask(questions[0])  # warm-up: encoder, model, caches
        for i, question in enumerate(questions):
            order = list(configs) if i % 2 == 0 else list(configs)[::-1]
            for name in order:
                workflow.options = AskOptions(abstain=False, **configs[name])
                payload = workflow.ask(question)
                seconds[name].append(payload["timings"])
                print(f"{name}: {payload['timings']['total']:.1f}s  {question}", file=sys.stderr, flush=True)
    keys = [k for k in ("judge", "first_token", "total") if all(k in t for rows in seconds.values() for t in rows)]
    medians = {name: {k: statistics.median(t[k] for t in rows) for k in keys} for name, rows in seconds.items()}
    before, after = (medians[name] for name in configs)
    print("| setting | " + " | ".join(f"median {k} s" for k in keys) + " |\n" + "|---" * (len(keys) + 1) + "|")
    for name, values in medians.items():
        print(f"| {name} | " + " | ".join(f"{values[k]:.2f}" for k in keys) + " |")
    print("| ratio after/before | " + " | ".join(f"{after[k] / before[k]:.2f}" for k in keys) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
