"""The model's reading of the question after a passage sentence (UPR) as a judge of answers: two probes.

    python bench/qa_upr.py scores --index DIR --questions GOLD.jsonl > scores.jsonl
    python bench/qa_upr.py separation scores.jsonl            # answerable against unanswerable (AUC)
    python bench/qa_upr.py arbitrate ANSWERS.jsonl scores.jsonl > spliced.jsonl
    ragchain eval --qa GOLD.jsonl --predictions ANSWERS.jsonl --predictions spliced.jsonl --per-query --json

`scores` gathers each question as `ask` does (no answer is drafted) and scores the three best
sentences that quote.py would consider (`quote.candidates`) with the model's mean log-probability
of the question after each (`quote.PREFIX`, the same prompt the quote stage uses), plus the
question after an empty passage (its likelihood with no evidence). `separation` asks whether any
of these tells the questions a passage answers from those it does not: the area under the ROC
curve (0.5 is chance). `arbitrate` replaces each verified answer to a question that is not a
yes/no one by the sentence the model finds the question most probable after, when that sentence
reaches quote.LIKELY and the answer holds less than verify.DRAWN_FROM_BEST of its own words from it
(an answer the model took from a neighbouring sentence gives way to the sentence the question is
about). Results: bench/RESULTS.md, "Issue 27, session 21".
"""

from __future__ import annotations

import argparse
import json
import sys


def scores(index: str, questions: str) -> None:
    from ragchain_cli.answering import open_workflow
    from ragchain_cli.config import load_settings
    from ragchain_cli.generate import quote
    from ragchain_cli.generate.gather import gather, subject
    from ragchain_cli.text.claims import is_polar

    with open_workflow(load_settings({"index": index}, config_files=[])) as wf:
        model = wf.model()
        for line in open(questions, encoding="utf-8"):
            row = json.loads(line)
            question = " ".join(row["question"].split())
            found = gather(question, wf._newest, wf.stats, wf.encoder, wf.options.passages).found
            chosen = quote.candidates(found, question)
            bodies = [f"Passage ({subject(found.top[found.where[k][0]].chunk)}): {found.text_at(k)}" for k in chosen]
            likely = model.score(quote.PREFIX, bodies, quote.SUFFIX, " " + question) if bodies else []
            empty = model.score(quote.PREFIX, ["Passage: (none)"], quote.SUFFIX, " " + question)[0]
            print(json.dumps({"question": row["question"], "answerable": row.get("answerable", True),
                              "polar": is_polar(question), "empty": float(empty),
                              "candidates": [{"text": found.text_at(k), "upr": float(s)} for k, s in zip(chosen, likely)]}),
                  flush=True)


def auc(positive: list[float], negative: list[float]) -> float:
    """The probability that a positive outscores a negative (ties count half)."""
    pairs = [(p > n) + 0.5 * (p == n) for p in positive for n in negative]
    return sum(pairs) / len(pairs) if pairs else float("nan")


def separation(path: str) -> None:
    rows = [r for r in map(json.loads, open(path, encoding="utf-8")) if r["candidates"]]
    measures = {
        "best candidate": lambda r: max(c["upr"] for c in r["candidates"]),
        "first candidate": lambda r: r["candidates"][0]["upr"],
        "best candidate - empty passage": lambda r: max(c["upr"] for c in r["candidates"]) - r["empty"],
        "empty passage alone": lambda r: r["empty"],
    }
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    print(f"{len(answerable)} answerable, {len(unanswerable)} unanswerable questions with a candidate")
    for name, measure in measures.items():
        value = auc([measure(r) for r in answerable], [measure(r) for r in unanswerable])
        print(f"AUC {value:.3f}  {name}")


def arbitrate(answers: str, path: str) -> None:
    from ragchain_cli.generate.quote import LIKELY
    from ragchain_cli.generate.support import drawn_from
    from ragchain_cli.generate.verify import DRAWN_FROM_BEST

    table = {r["question"]: r for r in map(json.loads, open(path, encoding="utf-8"))}
    replaced = 0
    for line in open(answers, encoding="utf-8"):
        answer = json.loads(line)
        row = table.get(answer["question"])
        if row and row["candidates"] and not row["polar"] and answer.get("supported") and not answer.get("quoted"):
            top = max(row["candidates"], key=lambda c: c["upr"])
            if top["upr"] >= LIKELY and drawn_from(answer["answer"], answer["question"], top["text"]) < DRAWN_FROM_BEST:
                answer = {**answer, "answer": f"{top['text']} [1]", "quoted": True}
                replaced += 1
        print(json.dumps(answer))
    print(f"replaced {replaced} answers", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("scores")
    run.add_argument("--index", required=True)
    run.add_argument("--questions", required=True, help="JSONL with a question field (and answerable)")
    sub.add_parser("separation").add_argument("scores")
    both = sub.add_parser("arbitrate")
    both.add_argument("answers")
    both.add_argument("scores")
    args = parser.parse_args()
    if args.command == "scores":
        scores(args.index, args.questions)
    elif args.command == "separation":
        separation(args.scores)
    else:
        arbitrate(args.answers, args.scores)


if __name__ == "__main__":
    main()
