"""Which questions read a different context under two checkouts, with no model loaded.

    python bench/context_diff.py --a CHECKOUT_A --b CHECKOUT_B --index DIR --questions Q.jsonl|Q.txt

A change to sentence scoring alters an answer only through what the model reads: the best sentence
(the focused reading's anchor) and the order of the top sentences (what fills the context). Each
checkout gathers every question in its own process (PYTHONPATH=CHECKOUT) and prints both as JSONL;
the questions whose lines differ are the only ones a paired `ask` run (ask_pair.py) needs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

TOP = 8
CHILD = """
import json, sys
import numpy as np
from ragchain_cli.answering import open_workflow
from ragchain_cli.config import load_settings
from ragchain_cli.generate.gather import gather
with open_workflow(load_settings({"index": sys.argv[1]}, config_files=[])) as wf:
    for question in json.load(sys.stdin):
        found = gather(question, wf._newest, wf.stats, wf.encoder, wf.options.passages).found
        order = [list(found.where[o]) for o in np.argsort(-found.scores, kind="stable")[:%d]]
        print(json.dumps({"best": found.best(), "top": order}), flush=True)
""" % TOP


def questions(path: Path) -> list[str]:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if path.suffix != ".jsonl":
        return lines
    rows = [json.loads(line) for line in lines]
    return [row.get("question") or row.get("text") or "" for row in rows]


def contexts(checkout: str, index: str, asked: list[str]) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(Path(checkout).resolve())}
    done = subprocess.run([sys.executable, "-c", CHILD, index], input=json.dumps(asked), env=env, cwd="/",
                          capture_output=True, text=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", required=True)
    parser.add_argument("--b", required=True)
    parser.add_argument("--index", required=True)
    parser.add_argument("--questions", type=Path, required=True)
    args = parser.parse_args(argv)
    asked = questions(args.questions)
    a, b = contexts(args.a, args.index, asked), contexts(args.b, args.index, asked)
    changed = [n for n, (x, y) in enumerate(zip(a, b)) if x != y]
    for n in changed:
        print(json.dumps({"line": n + 1, "question": asked[n], "best_a": a[n]["best"], "best_b": b[n]["best"]}))
    print(f"{len(changed)} of {len(asked)} questions read a different context", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
