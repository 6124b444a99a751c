"""Train an answer reader, an extractive judge: `python -m tools.judge.reader`.

    python -m tools.judge.reader --squad data/squad2_train.jsonl --squad data/squad_extra.jsonl \
        --squad data/squad_explorer.jsonl --squad data/squad2cr_placed.jsonl --out reader \
        --checkpoint ckpt --examples 45000 --negatives 0.7 --max-length 192 --lr 8e-5 --bf16 --seed 7

Where the answer judge scores whether a sentence answers a question, a reader points at the words that
answer it, or at none: for "At what temperature does the heating switch on?" and "The heating switches
on below 8 °C and off again at 12 °C" the span it should point at is "below 8 °C", which a reply of
12 °C does not give. Issue 52 asked for that reading (a neighbour's number, near misses); session 35
trained two and measured them on the answer path, not shipped (docs/JUDGE.md, "An answer reader").
It starts from the bundled all-MiniLM-L6-v2 encoder with a start/end head (BERT's question-answering
head); position 0 ([CLS]) stands for "this window does not answer". Its examples are windows of one
to three sentences of a SQuAD paragraph, read after the article's title as the judges read a passage
(`passage`):
- the window around the answer, labelled with the answer's span;
- for a share of answerable questions (--negatives), one sentence of the same paragraph without the
  answer: no answer;
- SQuAD 2.0's unanswerable questions, the window around the span they were written to look answered
  by (else a random one): no answer.
Held out by article as the judges are (tools/judge/split.py). Resumable (--checkpoint, as claims.py).
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ragchain_cli.judge.model import passage
from ragchain_cli.text.sentences import sentences

from .claims import fit, optimised
from .split import Split, title_words
from .train import add_training_options, batches, squad_rows

LOG = logging.getLogger("ragchain.judge")


@dataclass(frozen=True)
class Example:
    question: str
    text: str  # the window as the reader reads it: passage(title, window)
    start: int  # the answer's character span in `text`; -1: no answer
    end: int
    kind: str  # "answer", "other-window", "unanswerable"


def spans(folded: str) -> list[tuple[int, int]]:
    """The character spans of the folded paragraph's sentences (as ragchain splits them)."""
    out, at = [], 0
    for sentence in sentences(folded):
        found = folded.find(sentence, at)
        if found < 0:
            return []
        out.append((found, found + len(sentence)))
        at = found + len(sentence)
    return out


def located(folded: str, answer: str, near: int) -> int:
    """Where the answer stands in the folded paragraph: the occurrence nearest its raw offset (-1: none)."""
    hits, at = [], folded.find(answer)
    while at >= 0:
        hits.append(at)
        at = folded.find(answer, at + 1)
    return min(hits, key=lambda h: abs(h - near)) if hits else -1


def window(parts: list[tuple[int, int]], centre: int, rng: random.Random) -> tuple[int, int]:
    """Sentences centre-a .. centre+b (a, b each 0 or 1): their character span."""
    first = max(0, centre - rng.randint(0, 1))
    last = min(len(parts) - 1, centre + rng.randint(0, 1))
    return parts[first][0], parts[last][1]


def examples(row: dict, rng: random.Random, negatives: float) -> list[Example]:
    """The reader's examples of one SQuAD row (the module doc)."""
    folded = " ".join(row["context"].split())
    parts = spans(folded)
    if not parts:
        return []
    subject = title_words(row["title"])
    prefix = len(passage(subject, "x")) - 1

    def example(lo: int, hi: int, start: int, end: int, kind: str) -> Example:
        text = passage(subject, folded[lo:hi])
        if start < 0:
            return Example(row["question"], text, -1, -1, kind)
        return Example(row["question"], text, start - lo + prefix, end - lo + prefix, kind)

    def sentence_at(position: int) -> int:
        return next((k for k, (lo, hi) in enumerate(parts) if lo <= position < hi), -1)

    if row.get("is_impossible"):
        starts, answers = row.get("plausible_starts") or [], row.get("plausible_answers") or []
        at = located(folded, " ".join(answers[0].split()), starts[0]) if answers and starts else -1
        centre = sentence_at(at) if at >= 0 else rng.randrange(len(parts))
        return [example(*window(parts, max(centre, 0), rng), -1, -1, "unanswerable")]
    answer = " ".join(row["answers"][0].split())
    at = located(folded, answer, row["answer_starts"][0]) if answer else -1
    centre = sentence_at(at)
    if centre < 0:
        return []
    lo, hi = window(parts, centre, rng)
    out = [example(lo, hi, at, at + len(answer), "answer")] if at + len(answer) <= hi else []
    others = [k for k, (a, b) in enumerate(parts) if answer.lower() not in folded[a:b].lower() and k != centre]
    if others and rng.random() < negatives:
        k = rng.choice(others)
        out.append(example(parts[k][0], parts[k][1], -1, -1, "other-window"))
    return out


def gather(args, rng: random.Random) -> tuple[list[Example], list[Example], dict]:
    """Training and held-out examples, split by article (tools/judge/split.py)."""
    squad = squad_rows(args.squad)
    split = Split.of(squad)
    train = [e for r in squad if r["title"] not in split.titles for e in examples(r, rng, args.negatives)]
    held = [e for r in squad if r["title"] in split.titles for e in examples(r, rng, args.negatives)]
    unanswerable = [e for e in train if e.kind == "unanswerable"]
    rng.shuffle(unanswerable)
    kept = unanswerable[:int(args.unanswerable_share * args.examples)]
    train = [e for e in train if e.kind != "unanswerable"] + kept
    rng.shuffle(train)
    train = train[:args.examples]
    counts = {"squad_questions": len(squad), "held_out_articles": len(split.titles),
              "train": _by_kind(train), "held_out": _by_kind(held)}
    return train, held, counts


def _by_kind(found: list[Example]) -> dict:
    return {kind: sum(1 for e in found if e.kind == kind) for kind in sorted({e.kind for e in found})}


def feed(tokenizer, group: list[Example], max_length: int) -> tuple[dict, list[tuple[int, int]]]:
    """The examples as the model's inputs, and each answer's token span ((0, 0): no answer, or cut off)."""
    tokenizer.enable_truncation(max_length=max_length, strategy="only_second")
    tokenizer.enable_padding(pad_id=tokenizer.token_to_id("[PAD]") or 0, pad_token="[PAD]")
    encoded = tokenizer.encode_batch([(e.question, e.text) for e in group])
    labels = [token_span(enc, e.start, e.end) for enc, e in zip(encoded, group)]
    inputs = {"input_ids": np.array([x.ids for x in encoded], dtype=np.int64),
              "attention_mask": np.array([x.attention_mask for x in encoded], dtype=np.int64),
              "token_type_ids": np.array([x.type_ids for x in encoded], dtype=np.int64)}
    return inputs, labels


def token_span(encoding, start: int, end: int) -> tuple[int, int]:
    """The first and last passage tokens of the character span [start, end) ((0, 0) when there is none)."""
    if start < 0:
        return 0, 0
    ids, offsets = encoding.sequence_ids, encoding.offsets
    inside = [t for t, (s, o) in enumerate(zip(ids, offsets)) if s == 1 and o[1] > start and o[0] < end]
    return (inside[0], inside[-1]) if inside else (0, 0)


def _step(model, tokenizer, group: list[Example], optimizer, schedule, args) -> float:
    import torch

    inputs, labels = feed(tokenizer, group, args.max_length)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
        out = model(**{k: torch.from_numpy(v) for k, v in inputs.items()})
    starts, ends = (torch.tensor([label[i] for label in labels]) for i in (0, 1))
    loss = (torch.nn.functional.cross_entropy(out.start_logits.float(), starts)
            + torch.nn.functional.cross_entropy(out.end_logits.float(), ends)) / 2
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    schedule.step()
    optimizer.zero_grad()
    return float(loss.item())


def train(args) -> None:
    import torch
    from tokenizers import Tokenizer
    from transformers import AutoModelForQuestionAnswering

    from ragchain_cli.stores.embedders import model_folder

    rng, started = random.Random(args.seed), time.time()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    train_set, held, counts = gather(args, rng)
    LOG.info(f"examples: {json.dumps(counts)}")
    base = model_folder(args.base)
    tokenizer = Tokenizer.from_file(str(base / "tokenizer.json"))
    model = AutoModelForQuestionAnswering.from_pretrained(str(base))
    groups = batches(train_set, args.batch, rng, length=lambda e: len(e.question) + len(e.text))
    state = optimised(model, groups, args)
    if args.export_only:  # the checkpoint's model, exported again
        return _export(model.eval(), tokenizer, held, args, counts, state[2], base)
    steps = fit(model, tokenizer, groups, state, _step, args, started)
    if steps is not None:
        _export(model.eval(), tokenizer, held, args, counts, steps, base)


def _export(model, tokenizer, held, args, counts, steps: int, base: Path) -> None:
    from .reader_export import export

    export(model, tokenizer, held, args, counts, steps, base)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.judge.reader", description=__doc__.split("\n")[0])
    parser.add_argument("--squad", action="append", default=[], help="SQuAD train as JSONL (tools/judge/data.py)")
    parser.add_argument("--out", required=True, help="folder for reader-int8.onnx and reader-manifest.json")
    parser.add_argument("--checkpoint", default="", help="folder to save to and resume from")
    add_training_options(parser, "share of held-out examples whose int8 reading (answer or none) is PyTorch's")
    parser.add_argument("--save-every", type=int, default=100)
    parser.add_argument("--negatives", type=float, default=0.3,
                        help="share of answerable questions also given a window of their paragraph without the answer")
    parser.add_argument("--unanswerable-share", type=float, default=0.3, help="of --examples, at most")
    parser.add_argument("--bf16", action="store_true", help="train under bfloat16 autocast (as claims.py)")
    parser.add_argument("--export-only", action="store_true", help="export the --checkpoint's model, no training")
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    args = parser.parse_args(argv)
    train(args)


if __name__ == "__main__":
    main()
