"""The judge's training pairs, built from public data (docs/JUDGE.md names each source).

One binary question is asked of every pair (text, sentence): does the sentence support it? The
text takes one of three forms, the same ones the answer path scores (ragchain_cli/judge/model.py's
`asked` and `passage` write them, here as there):
- a question alone: does the sentence answer it? (decide, select, quote)
- a question with an answer, `asked(question, answer)`: does the sentence give that answer to that
  question? (verify)
- a claim, a plain statement: does the sentence entail it? (verify of a yes/no reply)

From SQuAD 2.0 train: the sentence holding a question's answer is a positive, the paragraph's other
sentence most like the question a negative; an unanswerable question (written to look answerable)
is a negative with the sentence holding its plausible answer, or its most similar one. With an
answer: the gold answer is a positive, another question's answer from the same paragraph (another
entity, number or date of the same text) a negative, and so is an unanswerable question's
plausible answer. From QNLI train: its question-sentence pairs, and near misses of its positives.
From NLI data: the hypothesis as the claim, the premise as the sentence,
entailment positive, neutral and contradiction negative.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from ragchain_cli.judge.model import asked, passage
from ragchain_cli.text.sentences import sentences
from ragchain_cli.text.words import STOPWORDS, content_words


@dataclass(frozen=True)
class Pair:
    text: str
    sentence: str
    label: int  # 1: the sentence supports the text
    kind: str  # "question", "answer" or "claim"
    source: str = ""  # "reworded": built from a reworded question (reword.py), reported apart when held out


def read_jsonl(path: Path) -> Iterator[dict]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def _split(context: str) -> list[tuple[int, int, str]]:
    """The paragraph's sentences with their character spans."""
    spans, start = [], 0
    for sentence in sentences(context):
        head = sentence[:20]
        at = context.find(head, start)
        at = start if at < 0 else at
        spans.append((at, at + len(sentence), sentence))
        start = at + 1
    return spans


def _holding(spans: list[tuple[int, int, str]], start: int) -> int:
    for i, (begin, end, _) in enumerate(spans):
        if begin <= start < max(end, begin + 1):
            return i
    return -1


def _most_like(question: str, spans: list[tuple[int, int, str]], skip: int) -> int:
    asked_words = content_words(question)
    ranked = sorted((len(asked_words & content_words(s)), -i) for i, (_, _, s) in enumerate(spans) if i != skip)
    return -ranked[-1][1] if ranked else -1


def _other_answer(answer: str, others: list[str], rng: random.Random) -> str:
    mine = content_words(answer) | {answer.lower()}
    pool = [o for o in others if o.strip() and not (content_words(o) & mine) and o.lower() not in answer.lower()
            and answer.lower() not in o.lower()]
    return rng.choice(pool) if pool else ""


def paragraphs(rows: Iterable[dict]) -> Iterator[tuple[list[tuple[int, int, str]], list[str], list[dict]]]:
    """SQuAD rows (one question a row) grouped by paragraph as they come: the paragraph's sentences
    with their spans, its answerable questions' answers, and its questions (paragraphs of two
    sentences or more)."""
    by_paragraph: dict[str, list[dict]] = {}
    for row in rows:
        by_paragraph.setdefault(row["context"], []).append(row)
    for context, questions in by_paragraph.items():
        spans = _split(context)
        if len(spans) >= 2:
            yield spans, [q["answers"][0] for q in questions if q["answers"] and not q["is_impossible"]], questions


def squad_pairs(rows: Iterable[dict], rng: random.Random) -> Iterator[Pair]:
    """Pairs from SQuAD 2.0 rows (one question a row), grouped by paragraph as they come."""
    for spans, answers, questions in paragraphs(rows):
        for q in questions:
            yield from _question_pairs(q, spans, answers, rng)


def _question_pairs(q: dict, spans, answers: list[str], rng: random.Random) -> Iterator[Pair]:
    title = q.get("title", "").replace("_", " ")
    question = q["question"]
    if q["is_impossible"]:
        plausible = q.get("plausible_answers") or []
        starts = q.get("plausible_starts") or []
        i = _holding(spans, starts[0]) if starts else -1
        i = i if i >= 0 else _most_like(question, spans, -1)
        yield Pair(question, passage(title, spans[i][2]), 0, "question")
        if plausible:
            yield Pair(asked(question, plausible[0]), passage(title, spans[i][2]), 0, "answer")
        return
    if not q["answers"]:
        return
    answer, i = q["answers"][0], _holding(spans, q["answer_starts"][0])
    if i < 0:
        return
    sentence = passage(title, spans[i][2])
    yield Pair(question, sentence, 1, "question")
    other = _most_like(question, spans, i)
    if other >= 0 and answer not in spans[other][2]:
        yield Pair(question, passage(title, spans[other][2]), 0, "question")
    yield Pair(asked(question, answer), sentence, 1, "answer")
    wrong = _other_answer(answer, answers, rng)
    if wrong:
        yield Pair(asked(question, wrong), sentence, 0, "answer")
    missed = near_miss(question, spans[i][2], " ".join(s for k, (_, _, s) in enumerate(spans) if k != i), rng)
    if missed:
        yield Pair(missed, sentence, 0, "question")
        yield Pair(asked(missed, answer), sentence, 0, "answer")


_SWAPPABLE = re.compile(r"\b(?:[A-Z][a-z]+|\d[\d,.]*)\b")


def near_miss(question: str, sentence: str, elsewhere: str, rng: random.Random) -> str:
    """The question with one of its names or numbers that the sentence holds swapped for one of the
    same kind the sentence does not hold (from the rest of the paragraph), as SQuAD 2.0's writers
    made unanswerable questions: "When did Chopin leave Warsaw?" -> "When did Chopin leave Paris?"
    ("" when the question has no such word)."""
    words = [m for m in _SWAPPABLE.finditer(question) if m.start() > 0 and m.group() in sentence]
    if not words:
        return ""
    chosen = rng.choice(words)
    kind = chosen.group()[0].isdigit()
    pool = sorted({w for w in _SWAPPABLE.findall(elsewhere) if w[0].isdigit() == kind and w not in sentence
                   and w not in question and w.lower() not in STOPWORDS})
    if not pool:
        return ""
    return question[:chosen.start()] + rng.choice(pool) + question[chosen.end():]


NONCOMMERCIAL = ("sick",)  # SICK is CC BY-NC-SA: the shipped weights are Apache-2.0, so it is never trained on


def nli_pairs(rows: Iterable[dict]) -> Iterator[Pair]:
    """Claims from NLI rows {"premise", "hypothesis", "label"}: entailment supports, the rest not."""
    for row in rows:
        if str(row.get("source", "")).lower().startswith(NONCOMMERCIAL):
            continue
        label = row.get("label")
        if label in ("entailment", "neutral", "contradiction") and row["premise"].strip() and row["hypothesis"].strip():
            yield Pair(row["hypothesis"], row["premise"], int(label == "entailment"), "claim")


def qnli_pairs(rows: Iterable[dict], rng: random.Random) -> Iterator[Pair]:
    """Questions {"question", "sentence", "label"} from QNLI train (a sentence of a SQuAD paragraph
    that answers the question, or one that does not); a positive also gives a near miss, its
    question with a name or number swapped for one of another pair's sentence."""
    rows = list(rows)
    for row in rows:
        yield Pair(row["question"], row["sentence"], int(row["label"]), "question")
        if row["label"]:
            missed = near_miss(row["question"], row["sentence"], rng.choice(rows)["sentence"], rng)
            if missed:
                yield Pair(missed, row["sentence"], 0, "question")


def boolq_pairs(rows: Iterable[dict]) -> Iterator[Pair]:
    """Yes/no questions {"question", "passage", "answer": bool}: the passage supports the answer it
    gives ("yes" or "no") and not the other."""
    for row in rows:
        question, said, other = polar_sides(row)
        yield Pair(asked(question, said), row["passage"], 1, "answer")
        yield Pair(asked(question, other), row["passage"], 0, "answer")


def polar_sides(row: dict) -> tuple[str, str, str]:
    """A BoolQ row's question as a question ("is it ..." -> "Is it ...?"), the side its passage gives, the other."""
    question = row["question"].strip().rstrip("?") + "?"
    said, other = ("yes", "no") if row["answer"] else ("no", "yes")
    return question[:1].upper() + question[1:], said, other
