"""`ask` of two checkouts side by side in one run: the same questions, asked alternately.

    python bench/ask_pair.py --a OLD_CHECKOUT --b NEW_CHECKOUT --index-a INDEX_A --index-b INDEX_B \
        --questions QA.jsonl [-n 40] [--out DIR] [--env-b RAGCHAIN_CONTEXT_TOKENS=240]

Each checkout runs as one long-lived process of this script's `--serve` mode (the checkout's own
`ask_payloads` on its PYTHONPATH, answering one stdin line at a time; `ragchain ask -` reads all of
stdin first), with its own index (two code versions may write different index formats), so each
loads its model once.
Questions go to A and B in turn, and which goes first alternates, so machine load falls on both
alike; only one process works at a time. `--env-a/--env-b NAME=VALUE` (repeatable) set a
setting for one side only (`RAGCHAIN_*`), so one checkout can be paired with itself under two settings. Prints the per-question seconds and the median total
(the payload's `timings.total`) of each, and their ratio. With `--out`, the answers are saved as
DIR/a.jsonl and DIR/b.jsonl for `ragchain eval --qa`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path


def serve(index: str) -> None:
    """Answer each stdin line as it comes, one JSON line each (the checkout's own ask_payloads)."""
    from ragchain_cli.config import load_settings
    try:
        from ragchain_cli.answer.assemble import ask_payloads
    except ImportError:  # a checkout from before answering.py (issue 33)
        from ragchain_cli.answer.workflow import ask_payloads
    settings = load_settings({"index": index}, config_files=[])
    for payload in ask_payloads(settings, iter(sys.stdin.readline, "")):
        print(json.dumps(payload), flush=True)


def start(checkout: Path, index: Path, extra: list[str]) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(checkout), **dict(item.split("=", 1) for item in extra))
    command = [sys.executable, str(Path(__file__).resolve()), "--serve", str(index)]
    return subprocess.Popen(command, cwd=checkout, env=env, text=True, bufsize=1,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


def ask(process: subprocess.Popen, question: str) -> dict:
    process.stdin.write(question.replace("\n", " ").strip() + "\n")
    process.stdin.flush()
    line = process.stdout.readline()
    if not line:
        raise SystemExit(f"ask ended early (exit {process.wait()})")
    return json.loads(line)


def main(argv: list[str]) -> None:
    if argv[:1] == ["--serve"]:
        return serve(argv[1])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", type=Path, required=True)
    parser.add_argument("--b", type=Path, required=True)
    parser.add_argument("--index-a", type=Path, required=True)
    parser.add_argument("--index-b", type=Path, required=True)
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("-n", type=int, default=40)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--env-a", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--env-b", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.questions.read_text().splitlines() if line.strip()]
    questions = [r.get("question") or r["text"] for r in rows][: args.n]
    runs = {"a": start(args.a, args.index_a, args.env_a), "b": start(args.b, args.index_b, args.env_b)}
    answers: dict[str, list[dict]] = {"a": [], "b": []}
    for i, question in enumerate([questions[0]] + questions):  # the first is a warm-up
        for name in (("a", "b") if i % 2 == 0 else ("b", "a")):
            payload = ask(runs[name], question)
            if i:
                answers[name].append(payload)
                print(f"{name}: {payload['timings']['total']:.2f}s  {question}", file=sys.stderr, flush=True)
    for process in runs.values():
        process.stdin.close()
        process.wait()
    medians = {name: statistics.median(p["timings"]["total"] for p in rows) for name, rows in answers.items()}
    print(f"| checkout | median total s ({len(questions)} questions) |\n|---|---|")
    print(f"| a: {args.a} | {medians['a']:.2f} |\n| b: {args.b} | {medians['b']:.2f} |")
    print(f"| ratio b/a | {medians['b'] / medians['a']:.2f} |")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        for name, rows in answers.items():
            (args.out / f"{name}.jsonl").write_text("".join(json.dumps(p) + "\n" for p in rows))


if __name__ == "__main__":
    main(sys.argv[1:])
