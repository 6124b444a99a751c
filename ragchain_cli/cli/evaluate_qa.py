"""`ragchain eval --qa GOLD.jsonl`: answer quality of one or several configurations side by side.

Predictions come from `--predictions FILE...` (`ask - --json` output, `-` = stdin; nothing is run)
or from running the ask workflow in-process once per configuration (one per `--config` file, or
the --retrievers x --fusion grid, as IR eval does). Scoring is offline and deterministic.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

from .output import Output, shown, stderr

SHOWN = [("correct", "correct"), ("f1", "F1"), ("exact_match", "EM"), ("contains", "contains"),
         ("abstain_unanswerable", "abstain unans."), ("abstain_answerable", "abstain ans."),
         ("overall_correct", "overall"),
         ("citation_doc_of_correct", "cite doc"), ("seconds_total", "s/q")]


def ask_payloads(settings, questions: list[str]) -> Iterator[dict]:
    """THE one adapter from `eval --qa` to the ask workflow: one `ask --json` payload per question."""
    from ..answer.assemble import ask_payloads as workflow

    return workflow(settings, questions)


def qa_command(gold_path: Path, predictions: list[str] | None, settings: list[tuple[str, object]],
               out: Output, per_query: bool, permutations: int) -> None:
    from ..evaluation.qa_io import pair, read_gold, read_predictions

    gold = read_gold(gold_path)
    header: dict = {"gold": str(gold_path)}
    if predictions:
        named = {}
        for path in predictions:
            source, rows = read_predictions(path)
            named[_unique(Path(path).stem if path != "-" else "stdin", named)] = pair(gold, rows, source)
        header["source"] = "predictions"
        header["files"] = dict(zip(named, predictions))
    else:
        named, header["seconds"] = _run_configs(gold, settings)
        header["source"] = "ask"
    payload = score_payload(gold, named, header, per_query, permutations)
    out.data(payload, lambda console: _render(console, payload))


def _unique(name: str, taken: dict) -> str:
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name}-{n}", n + 1
    return candidate


def _run_configs(gold, settings: list[tuple[str, object]]) -> tuple[dict, dict]:
    from ..evaluation.qa_io import normalise_prediction

    questions = [g.question for g in gold]
    named, seconds = {}, {}
    for name, config in settings:
        started = time.perf_counter()
        rows = []
        for number, payload in enumerate(ask_payloads(config, questions), start=1):
            rows.append(normalise_prediction(payload))
            stderr.print(f"[dim]{shown(name)}: {number}/{len(questions)} "
                         f"({time.perf_counter() - started:.0f}s)[/]")
        named[name] = rows
        seconds[name] = round(time.perf_counter() - started, 3)
    return named, seconds


def score_payload(gold, named: dict[str, list[dict]], header: dict, per_query: bool, permutations: int) -> dict:
    from ..evaluation.qa import CORRECT_RECALL
    from ..evaluation.qa_score import compare, counts, score_question, summarise

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


def _row(gold, prediction: dict, values: dict) -> dict:
    return {"question": gold.question, "answers": list(gold.answers), "doc_id": gold.doc_id,
            "answer": prediction.get("answer", ""), "answered": prediction["answered"],
            "supported": prediction.get("supported"), **values}


def _render(console, payload: dict) -> None:
    from rich.table import Table

    table = Table(title=f"{shown(payload['gold'])} (baseline: {shown(payload['baseline'])})")
    table.add_column("config")
    for _, label in SHOWN:
        table.add_column(label, justify="right")
    for config in payload["configs"]:
        cells = []
        for key, _ in SHOWN:
            value = config["summary"].get(key)
            cell = "-" if value is None else f"{value:.1f}" if key.startswith("seconds") else f"{value:.3f}"
            if key in config["diff"]:
                cell += f" ({config['diff'][key]:+.3f}, p={config['p_value'][key]:.3f})"
            cells.append(cell)
        table.add_row(shown(config["name"]), *cells)
    console.print(table)
    first = payload["configs"][0]["counts"]
    console.print(f"[dim]{first['answerable']} answerable ({first['yes_no_gold']} yes/no) and "
                  f"{first['unanswerable']} unanswerable questions; correct, F1, EM, contains: on answerable "
                  f"questions; correct = at least {payload['correct_threshold']:.0%} of a gold answer's key words "
                  "in the answer (a yes/no gold: the answer's first word, when it is yes or no); overall = "
                  "correct on answerable, abstained on unanswerable, over all; s/q = median seconds a question[/]")
