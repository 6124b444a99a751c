"""Reworded SQuAD training questions, written offline by a local GGUF chat model (issue 52, direction 4).

SQuAD's writers read the paragraph before asking, so its questions share most of their words with
the sentence that answers them, and a judge trained on them alone reads words more than meaning: a
question a user words in their own way scores low. This script asks a local chat model to word each
chosen question anew (same fact, other words, names, numbers and dates kept) and writes each as a
SQuAD row with the question replaced (`reworded_from` keeps the original), so `train.py --reworded`
builds the same pairs from it as from the original: the answer's sentence a positive, the
paragraph's other sentence most like it and an unanswerable question's plausible sentence negatives.

Rows are chosen by a fixed seed from the given SQuAD files (never from an evaluation set: the titles
train.py excludes are skipped), unanswerable questions first so that both labels are reworded;
rows of the held-out articles (split.py) are reworded too, for the held-out figures only. The output
is appended row by row: a rerun goes on where the last one stopped.

    python -m tools.judge.reword --squad data/squad2_train.jsonl --squad data/squad_extra.jsonl \
        --model qwen2.5-coder-1.5b-instruct-q4_k_m.gguf --out data/reworded.jsonl --limit 1600 --held 300
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from ragchain_cli.text.words import content_words

from .pairs import read_jsonl
from .split import Split

SYSTEM = ("You paraphrase questions. Ask for exactly the same fact, but avoid the question's own words: replace its "
          "key nouns, verbs and adjectives with synonyms or descriptions (for example 'began' -> 'got under way', "
          "'car' -> 'vehicle', 'minimum age' -> 'youngest'), and reorder the sentence. Keep names, numbers and dates. "
          "Reply with the new question only.")
SHOTS = [("When did the bridge over the Tamar open?", "In what year was the crossing over the Tamar first used by traffic?"),
         ("How many employees does the factory have?", "What is the size of the factory's workforce?"),
         ("What is the minimum age to join the club?", "How old must someone be before they can become a member of the club?"),
         ("Who designed the new library building?", "Which architect was responsible for the plans of the new library?")]
KEPT_OVERLAP = 0.8  # a rewording sharing more of its content words with the original is not a rewording


def chosen(rows: list[dict], limit: int, held: int, seed: int) -> list[dict]:
    """`limit` training rows and `held` held-out rows (a quarter of each unanswerable, first), in a fixed random order."""
    split = Split.of(rows)
    rng = random.Random(seed)
    picked = []
    for want, in_held in ((limit, False), (held, True)):
        pool = [r for r in rows if (r["title"] in split.titles) == in_held]
        rng.shuffle(pool)
        unanswerable = [r for r in pool if r["is_impossible"]][:want // 4]
        picked += unanswerable + [r for r in pool if not r["is_impossible"]][:want - len(unanswerable)]
    return picked


def reworded(text: str, original: str) -> str:
    """The model's reply as one question, or '' when it is none or barely differs from the original."""
    line = text.strip().splitlines()[0].strip().strip('"') if text.strip() else ""
    if not line.endswith("?") or not 3 <= len(line.split()) <= 40:
        return ""
    mine, theirs = content_words(line), content_words(original)
    if not mine or len(mine & theirs) / len(mine | theirs) > KEPT_OVERLAP:
        return ""
    return line


def reword(model, question: str, seed: int) -> str:
    messages = [{"role": "system", "content": SYSTEM}]
    for asked, answer in SHOTS:
        messages += [{"role": "user", "content": asked}, {"role": "assistant", "content": answer}]
    messages.append({"role": "user", "content": question})
    out = model.create_chat_completion(messages=messages, max_tokens=48, temperature=0.7, top_p=0.9, seed=seed)
    return reworded(out["choices"][0]["message"]["content"], question)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--squad", action="append", required=True, help="SQuAD rows (data.py's JSONL); repeatable")
    parser.add_argument("--model", required=True, help="a GGUF chat model (llama-cpp-python reads it)")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--limit", type=int, default=2400, help="training rows to reword")
    parser.add_argument("--held", type=int, default=300, help="held-out rows to reword (for the held-out figures)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    import llama_cpp

    from .train import squad_rows

    rows = chosen(squad_rows(args.squad), args.limit, args.held, args.seed)
    done = {r["id"] for r in read_jsonl(args.out)} if args.out.exists() else set()
    model = llama_cpp.Llama(model_path=args.model, n_ctx=1024, n_threads=args.threads,
                            n_threads_batch=args.threads, verbose=False)
    with args.out.open("a", encoding="utf-8") as out:
        for n, row in enumerate(rows):
            if row["id"] in done:
                continue
            question = reword(model, row["question"], args.seed + n)
            if question:
                out.write(json.dumps({**row, "question": question, "reworded_from": row["question"]}) + "\n")
                out.flush()
            if n % 50 == 0:
                print(f"{n}/{len(rows)}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
