"""Which saved answers a change of the answer rules can touch, and the saved run with those re-asked.

    python bench/qa_reask.py select BEFORE.jsonl > reask.txt        # one question a line
    ragchain ask - --json --index IDX < reask.txt > reasked.jsonl   # under the new code
    python bench/qa_reask.py splice BEFORE.jsonl reasked.jsonl > AFTER.jsonl

`select` names the answered questions whose outcome the session-20 rules can change without
changing what the model reads: a question that asks for a number, a time, a reason or someone
(text/asked.py: verify and the quote's candidates read it), and a verified answer that cites no
passage (attribution may now place it). Every other answer is the same under both codes, so
AFTER is the new code's run, exactly, at the cost of the re-asked questions only.
"""

from __future__ import annotations

import json
import sys


def select(before: str) -> None:
    from ragchain_cli.text.asked import kind
    from ragchain_cli.text.claims import is_polar

    for line in open(before, encoding="utf-8"):
        answer = json.loads(line)
        question = answer["question"]
        if not answer.get("answered"):
            continue
        typed = kind(question) and not is_polar(question)
        uncited = answer.get("supported") and not any(c.get("cited") for c in answer.get("citations", []))
        if typed or uncited:
            print(question)


def splice(before: str, reasked: str) -> None:
    again = {json.loads(line)["question"]: line for line in open(reasked, encoding="utf-8")}
    for line in open(before, encoding="utf-8"):
        sys.stdout.write(again.get(json.loads(line)["question"], line))


if __name__ == "__main__":
    command, *paths = sys.argv[1:]
    {"select": select, "splice": splice}[command](*paths)
