"""Build the fixed QA split and evaluation subsets from ../shared/data/qa-cmu-dev (issue 13).

    python bench/qa/make_sets.py            # (re)writes bench/qa/split.json, eval-A/B.jsonl, quick-A/B.jsonl
    python bench/qa/make_sets.py --full DIR  # also every answerable question of each half: DIR/half-A.jsonl ...
    python bench/qa/make_sets.py --check    # only verifies unanswerable.jsonl against the articles

Split BY ARTICLE: the 30 article IDs sorted as strings, alternately to half A (tuning) and half B
(report), so B's questions are about articles A never saw. Rows of one (article, question) are
merged into one gold row with every annotator's answer. Each half's subset is its first
SUBSET_ANSWERABLE questions in sha1(question) order, plus that half's hand-written unanswerable
questions (bench/qa/unanswerable.jsonl, halves alternating in file order). quick-HALF.jsonl is
the first QUICK_ANSWERABLE answerable and QUICK_UNANSWERABLE unanswerable rows of eval-HALF.jsonl
(nested in it): small enough for a run of both bundled models on a busy 2-core machine, where the
default model took ~80 s a question at load 16.

--check: every term in an unanswerable row's "absent" list must occur in no article (title or
text, case-insensitive): the subject, or the phrasing an answer would need, is not there.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1].parent / "shared" / "data" / "qa-cmu-dev"
SUBSET_ANSWERABLE = 30
QUICK_ANSWERABLE, QUICK_UNANSWERABLE = 10, 5


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def split_articles(doc_ids: list[str]) -> dict[str, list[str]]:
    ordered = sorted(doc_ids)
    return {"A": ordered[0::2], "B": ordered[1::2]}


def gold_rows(qa: list[dict]) -> list[dict]:
    """One row per (doc_id, question), answers merged in file order without repeats."""
    merged: dict[tuple[str, str], dict] = {}
    for row in qa:
        question = " ".join(row["question"].split())
        entry = merged.setdefault((row["doc_id"], question),
                                  {"question": question, "answers": [], "doc_id": row["doc_id"]})
        answer = " ".join(row["answer"].split())
        if answer not in entry["answers"]:
            entry["answers"].append(answer)
    return list(merged.values())


def _order(row: dict) -> str:
    return hashlib.sha1(row["question"].encode("utf-8")).hexdigest()


def check_unanswerable(rows: list[dict], corpus: list[dict]) -> list[str]:
    texts = [(doc["title"] + "\n" + doc["text"]).lower() for doc in corpus]
    problems = []
    for row in rows:
        for term in row["absent"]:
            found = [doc["_id"] for doc, text in zip(corpus, texts) if term.lower() in text]
            if found:
                problems.append(f"{row['question']!r}: {term!r} occurs in {', '.join(found)}")
    return problems


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--full", type=Path, help="also write every answerable question per half here")
    parser.add_argument("--check", action="store_true", help="only verify unanswerable.jsonl")
    args = parser.parse_args(argv)
    corpus = read_jsonl(args.data / "corpus.jsonl")
    unanswerable = read_jsonl(HERE / "unanswerable.jsonl")
    problems = check_unanswerable(unanswerable, corpus)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems or args.check:
        print(f"{len(unanswerable)} unanswerable questions, {len(problems)} problems", file=sys.stderr)
        return 1 if problems else 0
    halves = split_articles([doc["_id"] for doc in corpus])
    (HERE / "split.json").write_text(json.dumps({
        "source": "qa-cmu-dev (shared/data)", "method": "article IDs sorted as strings, alternately A, B",
        "subset": f"first {SUBSET_ANSWERABLE} questions per half by sha1(question), plus the half's unanswerable",
        "quick": f"the first {QUICK_ANSWERABLE} answerable and {QUICK_UNANSWERABLE} unanswerable rows of the subset",
        **halves}, indent=1) + "\n", encoding="utf-8")
    rows = gold_rows(read_jsonl(args.data / "qa.jsonl"))
    for half, doc_ids in halves.items():
        answerable = sorted((r for r in rows if r["doc_id"] in set(doc_ids)), key=_order)
        unans = [{"question": r["question"], "answers": [], "doc_id": None}
                 for r in unanswerable if r["half"] == half]
        write_jsonl(HERE / f"eval-{half}.jsonl", answerable[:SUBSET_ANSWERABLE] + unans)
        write_jsonl(HERE / f"quick-{half}.jsonl", answerable[:QUICK_ANSWERABLE] + unans[:QUICK_UNANSWERABLE])
        if args.full:
            args.full.mkdir(parents=True, exist_ok=True)
            write_jsonl(args.full / f"half-{half}.jsonl", answerable + unans)
        print(f"half {half}: {len(doc_ids)} articles, {len(answerable)} answerable questions, "
              f"{len(unans)} unanswerable", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
