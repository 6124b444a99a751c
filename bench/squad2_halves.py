"""The two fixed halves of squad2-dev used to choose (A) and report (B) ask's abstention (issue 27).

    python bench/squad2_halves.py write --out DIR
    python bench/squad2_halves.py merge --no-abstain DIR/B.answers.jsonl --refused DIR/B.refused.jsonl \
        > DIR/B.abstain.jsonl

`write`: half A is the even lines of ../shared/data/squad2-dev/questions.jsonl (0-based), half B
the odd ones. Each half is shuffled with random.Random(13) and its first 30 answerable and first 30
unanswerable questions are kept, answerable first: DIR/A.jsonl and DIR/B.jsonl (gold rows, for
`ragchain eval --qa`) and DIR/A.txt, DIR/B.txt (the questions, one a line, for `ragchain ask -`).
This reproduces the halves of RESULTS' session-13 section question for question (checked against
the files that run used).

`merge`: ask's abstaining answers without running the model again. decide refuses before the model
is loaded, and a question decide lets through gets the draft and verdict a `--no-abstain` run gave
it (draft and verify do not read decide's refusals). So: run `ragchain ask - --json` only on the
questions that decide refuses (`refused` lists them, from the library, no model loaded; no model is
loaded by that run either) and take every other answer from the `--no-abstain` run.

    python bench/squad2_halves.py refused --index INDEX --questions DIR/B.txt > DIR/B.refused.txt
    ragchain ask - --index INDEX --json < DIR/B.refused.txt > DIR/B.refused.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "squad2-dev" / "questions.jsonl"
SEED, EACH = 13, 30


def halves(rows: list[dict]) -> dict[str, list[dict]]:
    out = {}
    for name, start in (("A", 0), ("B", 1)):
        half = rows[start::2]
        random.Random(SEED).shuffle(half)
        out[name] = [r for r in half if r["answerable"]][:EACH] + [r for r in half if not r["answerable"]][:EACH]
    return out


def write(out: Path) -> None:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    out.mkdir(parents=True, exist_ok=True)
    for name, chosen in halves(rows).items():
        (out / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in chosen))
        (out / f"{name}.txt").write_text("".join(r["question"] + "\n" for r in chosen))
        print(f"half {name}: {len(chosen)} questions -> {out / f'{name}.jsonl'}", file=sys.stderr)


def refused(index: str, questions: Path) -> None:
    """The questions decide refuses (default abstention), one a line: gather and decide only."""
    from ragchain_cli.answer.assemble import open_workflow
    from ragchain_cli.config import command_config_files, load_settings
    from ragchain_cli.answer.decide import decide
    from ragchain_cli.answer.gather import gather

    settings = load_settings({"index": index}, config_files=command_config_files())  # ./ragchain.toml
    with open_workflow(settings) as flow:
        for question in [q for q in questions.read_text(encoding="utf-8").splitlines() if q.strip()]:
            gathered = gather(question, flow._newest, flow.stats, flow.encoder, flow.options.passages)
            if not decide(gathered).answerable:
                print(question)


def merge(no_abstain: Path, refusals: Path) -> None:
    said = {json.loads(line)["question"]: line for line in refusals.read_text().splitlines() if line.strip()}
    for line in no_abstain.read_text().splitlines():
        if line.strip():
            print(said.get(json.loads(line)["question"], line))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("write").add_argument("--out", type=Path, required=True)
    ref = sub.add_parser("refused")
    ref.add_argument("--index", required=True)
    ref.add_argument("--questions", type=Path, required=True)
    mer = sub.add_parser("merge")
    mer.add_argument("--no-abstain", type=Path, required=True)
    mer.add_argument("--refused", type=Path, required=True)
    args = parser.parse_args()
    if args.command == "write":
        write(args.out)
    elif args.command == "refused":
        refused(args.index, args.questions)
    else:
        merge(args.no_abstain, args.refused)


if __name__ == "__main__":
    main()
