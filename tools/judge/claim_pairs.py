"""The claim judge's three-way training pairs (tools/judge/claims.py): does the sentence entail the
text, contradict it, or neither? Labels as ragchain_cli/judge/claims.py reads them (LABELS).

- NLI (MultiNLI dev, SNLI dev and test): the hypothesis as the claim, the premise as the sentence,
  with its own three-way label.
- SQuAD train, a question with an answer (`asked`), against the sentence that holds the gold answer:
  the gold answer is entailed; a number or name of that same sentence in the gold answer's place is
  contradicted (the sentence gives another value for what was asked: "switches on below 8 °C and off
  at 12 °C" does not say it switches on at 12 °C), and so is another question's answer from the
  paragraph; the question with one of its names or numbers swapped (a near miss, as SQuAD 2.0's
  writers made them) is neither, as is an unanswerable question's plausible answer, and the gold
  answer against the paragraph's other sentence most like the question.
- BoolQ: a yes/no question with the side its passage gives is entailed, with the other contradicted.
- With `others` (tools/judge/claims.py --others): the gold answer against a sentence of its paragraph
  drawn at random (one that does not hold it) is neither too, and `unrelated` pairs a share of every
  kind's texts with the sentence of another pair of that kind: neither. NLI's and BoolQ's own pairs have
  no sentence that says nothing of the text, so a judge trained on them alone reads a sentence on the
  same subject as entailing or contradicting a text it does not touch.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Iterable, Iterator

from ragchain_cli.judge.claims import CONTRADICTS, ENTAILS, NEITHER
from ragchain_cli.judge.model import asked, passage

from .pairs import _holding, _most_like, _other_answer, near_miss, paragraphs, polar_sides


@dataclass(frozen=True)
class Claim:
    text: str
    sentence: str
    label: int  # ENTAILS, NEITHER or CONTRADICTS
    kind: str  # "claim" (NLI), "answer" (SQuAD), "polar" (BoolQ)


NLI_LABELS = {"entailment": ENTAILS, "neutral": NEITHER, "contradiction": CONTRADICTS}
_NUMBER = re.compile(r"\d[\d,.]*(?:\s?(?:%|°C|°F|km|m|kg|million|billion))?")
_NAME = re.compile(r"\b[A-Z][a-z]+(?:\s[A-Z][a-z]+)*\b")


def nli_claims(rows: Iterable[dict]) -> Iterator[Claim]:
    for row in rows:
        label = NLI_LABELS.get(row.get("label", ""))
        if label is not None:
            yield Claim(row["hypothesis"], row["premise"], label, "claim")


def boolq_claims(rows: Iterable[dict]) -> Iterator[Claim]:
    for row in rows:
        question, said, other = polar_sides(row)
        yield Claim(asked(question, said), row["passage"], ENTAILS, "polar")
        yield Claim(asked(question, other), row["passage"], CONTRADICTS, "polar")


def neighbour(answer: str, sentence: str, question: str, rng: random.Random) -> str:
    """Another number (for a numeric answer) or name (for a named one) of the same sentence, one the
    answer and the question do not hold: the value of the phrase next to the answer's."""
    pattern = _NUMBER if any(c.isdigit() for c in answer) else _NAME if answer[:1].isupper() else None
    if pattern is None:
        return ""
    pool = sorted({m.group().strip() for m in pattern.finditer(sentence)
                   if m.group().strip() not in answer and answer not in m.group() and m.group().strip() not in question})
    return rng.choice(pool) if pool else ""


def squad_claims(rows: Iterable[dict], rng: random.Random, others: bool = False) -> Iterator[Claim]:
    for spans, answers, questions in paragraphs(rows):
        for q in questions:
            yield from _question_claims(q, spans, answers, rng, others)


def unrelated(claims: list[Claim], share: float, rng: random.Random) -> Iterator[Claim]:
    """A `share` of the claims' texts, each against the sentence of another claim of its kind: neither."""
    by_kind: dict[str, list[str]] = {}
    for c in claims:
        by_kind.setdefault(c.kind, []).append(c.sentence)
    for c in claims:
        pool = by_kind[c.kind]
        if rng.random() < share and len(pool) > 1:
            other = rng.choice(pool)
            if other != c.sentence:
                yield Claim(c.text, other, NEITHER, c.kind)


def _question_claims(q: dict, spans, answers: list[str], rng: random.Random, others: bool = False) -> Iterator[Claim]:
    title, question = q.get("title", "").replace("_", " "), q["question"]
    if q["is_impossible"]:
        plausible, starts = q.get("plausible_answers") or [], q.get("plausible_starts") or []
        i = _holding(spans, starts[0]) if starts else -1
        if plausible and i >= 0:
            yield Claim(asked(question, plausible[0]), passage(title, spans[i][2]), NEITHER, "answer")
        return
    if not q["answers"]:
        return
    answer, i = q["answers"][0], _holding(spans, q["answer_starts"][0])
    if i < 0:
        return
    raw = spans[i][2]
    sentence = passage(title, raw)
    yield Claim(asked(question, answer), sentence, ENTAILS, "answer")
    for wrong in (neighbour(answer, raw, question, rng), _other_answer(answer, answers, rng)):
        if wrong:
            yield Claim(asked(question, wrong), sentence, CONTRADICTS, "answer")
    other = _most_like(question, spans, i)
    if other >= 0 and answer not in spans[other][2]:
        yield Claim(asked(question, answer), passage(title, spans[other][2]), NEITHER, "answer")
    drawn = [k for k, (_, _, s) in enumerate(spans) if k not in (i, other) and answer not in s] if others else []
    if drawn:
        yield Claim(asked(question, answer), passage(title, spans[rng.choice(drawn)][2]), NEITHER, "answer")
    missed = near_miss(question, raw, " ".join(s for k, (_, _, s) in enumerate(spans) if k != i), rng)
    if missed:
        yield Claim(asked(missed, answer), sentence, NEITHER, "answer")
