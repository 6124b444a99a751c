"""QA gold files and `ask --json` prediction files: reading, checking, and pairing them.

Gold: JSONL, one question a line: {"question": str, "answers": [str, ...]} or {"question", "answer": str},
optional "doc_id" (the document that holds the answer) and "answerable" (true or false). A question
the documents cannot answer has "answerable": false and "answers": [] (or no answers at all);
"answers": [] alone marks one too. "answerable": false with gold answers, or true without, is an
error (SQuAD 2.0's "plausible answers" of unanswerable questions have no place in this file).
Predictions: what `ragchain ask - --json` prints, one JSON object a line with at least "question"
and "answer"; "answered", "supported", "citations", "hits" and "timings" are read when present.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputFormatError, UsageError

# What `ask` printed when it had nothing to answer from, before its JSON carried "answered"
LEGACY_NO_ANSWER = ("I found nothing in the index that answers this question.",
                    "The model gave no answer from the retrieved passages.")


@dataclass(frozen=True)
class GoldQuestion:
    question: str
    answers: tuple[str, ...]
    doc_id: str | None = None

    @property
    def answerable(self) -> bool:
        return bool(self.answers)


def question_key(text: str) -> str:
    """How gold and predictions are paired: the question with its whitespace collapsed."""
    return " ".join(text.split())


def _jsonl_objects(path: str, lines: list[str]) -> list[tuple[int, dict]]:
    rows = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputFormatError(path, number, f"not valid JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise InputFormatError(path, number, "expected a JSON object")
        rows.append((number, row))
    return rows


def _read_lines(path: Path | str) -> tuple[str, list[str]]:
    name = str(path)
    if name == "-":
        return "<stdin>", sys.stdin.read().splitlines()
    try:
        return name, Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputFormatError(name, 0, "no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFormatError(name, 0, f"cannot read it ({exc})") from None


def read_gold(path: Path | str) -> list[GoldQuestion]:
    """The gold questions, in file order; a malformed row names the file and line."""
    name, lines = _read_lines(path)
    gold, seen = [], {}
    for number, row in _jsonl_objects(name, lines):
        question = row.get("question")
        if not isinstance(question, str) or not question.strip():
            raise InputFormatError(name, number, 'needs a non-empty "question" string')
        key = question_key(question)
        if key in seen:
            raise InputFormatError(name, number, f"question repeats line {seen[key]}; merge its answers into one row")
        seen[key] = number
        gold.append(GoldQuestion(key, _gold_answers(name, number, row), _doc_id(name, number, row)))
    if not gold:
        raise InputFormatError(name, 0, "holds no questions")
    return gold


def _gold_answers(name: str, number: int, row: dict) -> tuple[str, ...]:
    """The row's gold answers, () for an unanswerable question; "answerable" must agree with them."""
    answerable = row.get("answerable")
    if answerable is None:
        return _answers(name, number, row)
    if not isinstance(answerable, bool):
        raise InputFormatError(name, number, '"answerable" must be true or false')
    if not answerable:
        if row.get("answers") or row.get("answer"):
            raise InputFormatError(name, number, '"answerable": false with gold answers; drop them or the flag')
        return ()
    answers = _answers(name, number, row)
    if not answers:
        raise InputFormatError(name, number, '"answerable": true needs at least one gold answer')
    return answers


def _answers(name: str, number: int, row: dict) -> tuple[str, ...]:
    if "answers" in row:
        answers = row["answers"]
        if not isinstance(answers, list) or not all(isinstance(a, str) and a.strip() for a in answers):
            raise InputFormatError(name, number, '"answers" must be a list of non-empty strings ([] = unanswerable)')
        return tuple(answers)
    if isinstance(row.get("answer"), str) and row["answer"].strip():
        return (row["answer"],)
    raise InputFormatError(name, number, 'needs "answers": [...] or a non-empty "answer" string')


def _doc_id(name: str, number: int, row: dict) -> str | None:
    doc_id = row.get("doc_id")
    if doc_id is not None and not isinstance(doc_id, str):
        raise InputFormatError(name, number, '"doc_id" must be a string')
    return doc_id


def read_predictions(path: Path | str) -> tuple[str, list[dict]]:
    """(name as given, rows) of an `ask --json` JSONL file; "-" reads stdin."""
    name, lines = _read_lines(path)
    rows = []
    for number, row in _jsonl_objects(name, lines):
        if not isinstance(row.get("question"), str) or not isinstance(row.get("answer", ""), str):
            raise InputFormatError(name, number, 'needs "question" and "answer" strings (ask --json output)')
        rows.append(normalise_prediction(row))
    return name, rows


def normalise_prediction(row: dict) -> dict:
    """A prediction with "answered" always set: when absent (ask before issue 13) it is false for
    an empty answer or one of ask's old 'nothing found' sentences."""
    answer = row.get("answer", "")
    if "answered" not in row:
        row = {**row, "answered": bool(answer.strip()) and answer not in LEGACY_NO_ANSWER}
    return row


def pair(gold: list[GoldQuestion], predictions: list[dict], source: str) -> list[dict]:
    """The prediction for each gold question, in gold order; every gold question needs one."""
    by_question = {}
    for row in predictions:
        by_question.setdefault(question_key(row["question"]), row)
    missing = [g.question for g in gold if g.question not in by_question]
    if missing:
        raise UsageError(f"{source} has no answer for {len(missing)} of the {len(gold)} gold questions "
                         f"(first: {missing[0]!r})", "pass predictions made from the same questions")
    return [by_question[g.question] for g in gold]
