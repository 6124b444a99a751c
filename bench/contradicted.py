"""Which yes/no answers the passages they were read from contradict, with no model loaded.

    python bench/contradicted.py --answers ANSWERS.jsonl [--gold GOLD.jsonl]

ANSWERS is `ragchain ask - --json` output (one JSON object a line, each with the passages the model
read as `hits`). For every answered yes/no question, `text.sides.passage_side` reads the side that
the passage sentences stating the whole claim take; a line is printed where the answer says the
other side. With GOLD (the `eval --qa` JSONL, same order), each line also shows the gold answer.
`verify` applies the same reading, so on answers made before it was added this lists the answers
it now shows as not verified.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ragchain_cli.text.claims import is_polar, said_side
from ragchain_cli.text.sides import passage_side


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--answers", type=Path, required=True)
    parser.add_argument("--gold", type=Path)
    args = parser.parse_args()
    answers = rows(args.answers)
    golds = rows(args.gold) if args.gold else [{} for _ in answers]
    polar = contradicted = 0
    for line, (answer, gold) in enumerate(zip(answers, golds), start=1):
        question = (answer.get("searched") or answer["question"]).strip()  # as searched: spelling corrected
        if not is_polar(question) or not answer.get("answered"):
            continue
        polar += 1
        against = passage_side(question, [hit.get("text", "") for hit in answer.get("hits", [])])
        side = said_side(answer["answer"])
        if against is not None and side is not None and against[0] != side:
            contradicted += 1
            print(json.dumps({"line": line, "question": question, "answer": answer["answer"],
                              "verified": answer.get("supported"), "passages_say": against[0],
                              "sentence": against[1], "gold": (gold.get("answers") or [None])[0]}))
    print(f"{contradicted} of {polar} answered yes/no questions: the passages take the other side", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
