"""The `eval --qa` workflow as library calls: evaluate_answers scores the answers of one or several
configurations against gold questions, side by side, and returns the payload `ragchain eval --qa`
prints. The answers come from `ask --json` prediction files (nothing is run) or from running the ask
workflow in-process once per configuration. cli/evaluate_qa.py parses and renders."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError
from .compare import PERMUTATIONS
from .qa import CORRECT_RECALL
from .qa_io import GoldQuestion, normalise_prediction, pair, read_gold, read_predictions
from .qa_score import compare, counts, score_question, summarise

if TYPE_CHECKING:
    from ..config import Settings

# on_answer(configuration name, answers so far, questions, seconds since the configuration started)
AnswerHook = Callable[[str, int, int, float], None]


def evaluate_answers(gold: Path | str, predictions: Sequence[Path | str] | None = None,
                     settings: Sequence[tuple[str, Settings]] = (), *, per_query: bool = False,
                     permutations: int = PERMUTATIONS, on_answer: AnswerHook | None = None) -> dict:
    """Answer quality (qa_score.py's measures) of several configurations, the first the baseline,
    with paired randomization tests (`permutations` samples) against it.

    Each file of `predictions` (`ask - --json` output, "-" = stdin) is one configuration, named after
    the file; without files each (name, Settings) of `settings` answers the gold questions through the
    ask workflow, on_answer after each answer. `per_query` adds each question's values."""
    questions = read_gold(gold)
    header: dict = {"gold": str(gold)}
    if predictions:
        named = read_named(questions, predictions)
        header["source"] = "predictions"
        header["files"] = dict(zip(named, (str(p) for p in predictions)))
    else:
        if not settings:
            raise UsageError("no answers to score", "pass prediction files or at least one (name, Settings)")
        named, header["seconds"] = answer_all(questions, settings, on_answer)
        header["source"] = "ask"
    return score_payload(questions, named, header, per_query, permutations)


def read_named(gold: list[GoldQuestion], predictions: Sequence[Path | str]) -> dict[str, list[dict]]:
    """{name: predictions in gold order} per file: its stem ("stdin" for "-"), made unique."""
    named: dict[str, list[dict]] = {}
    for path in predictions:
        source, rows = read_predictions(path)
        named[_unique(Path(path).stem if str(path) != "-" else "stdin", named)] = pair(gold, rows, source)
    return named


def _unique(name: str, taken: dict) -> str:
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name}-{n}", n + 1
    return candidate


def ask_payloads(settings: Settings, questions: list[str]) -> Iterator[dict]:
    """THE one adapter from `eval --qa` to the ask workflow: one `ask --json` payload per question."""
    from ..answer.assemble import ask_payloads as workflow

    return workflow(settings, questions)


def answer_all(gold: list[GoldQuestion], settings: Sequence[tuple[str, Settings]],
               on_answer: AnswerHook | None = None) -> tuple[dict[str, list[dict]], dict[str, float]]:
    """Each configuration's predictions for the gold questions, and its seconds."""
    questions = [g.question for g in gold]
    named, seconds = {}, {}
    for name, config in settings:
        started = time.perf_counter()
        rows = []
        for number, payload in enumerate(ask_payloads(config, questions), start=1):
            rows.append(normalise_prediction(payload))
            if on_answer is not None:
                on_answer(name, number, len(questions), time.perf_counter() - started)
        named[name] = rows
        seconds[name] = round(time.perf_counter() - started, 3)
    return named, seconds


def score_payload(gold: list[GoldQuestion], named: dict[str, list[dict]], header: dict, per_query: bool,
                  permutations: int = PERMUTATIONS) -> dict:
    """The comparison as one JSON-ready dict: header, per configuration its summary, differences,
    p-values and counts (and per-question rows when asked)."""
    scored = {name: [score_question(g, p) for g, p in zip(gold, rows)] for name, rows in named.items()}
    tests = compare(gold, scored, permutations=permutations)
    configs = []
    for name, rows in scored.items():
        entry = {"name": name, "summary": summarise(gold, rows), **tests[name],
                 "counts": counts(gold, rows, named[name])}
        if per_query:
            entry["per_query"] = [_row(g, p, r) for g, p, r in zip(gold, named[name], rows)]
        configs.append(entry)
    return {**header, "questions": len(gold), "answerable": sum(g.answerable for g in gold),
            "correct_threshold": CORRECT_RECALL, "baseline": configs[0]["name"], "permutations": permutations,
            "configs": configs}


def _row(gold: GoldQuestion, prediction: dict, values: dict) -> dict:
    return {"question": gold.question, "answers": list(gold.answers), "doc_id": gold.doc_id,
            "answer": prediction.get("answer", ""), "answered": prediction["answered"],
            "supported": prediction.get("supported"), **values}
