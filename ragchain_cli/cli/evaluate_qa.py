"""`ragchain eval --qa GOLD.jsonl`: answer quality of one or several configurations side by side.

Predictions come from `--predictions FILE...` (`ask - --json` output, `-` = stdin; nothing is run)
or from running the ask workflow in-process once per configuration (one per `--config` file, or
the --retrievers x --fusion grid, as IR eval does). Scoring is offline and deterministic. The
workflow is the library's (evaluation.qa_workflow.evaluate_answers); this file renders it.
"""

from __future__ import annotations

from pathlib import Path

from .output import Output, shown, stderr

SHOWN = [("correct", "correct"), ("f1", "F1"), ("exact_match", "EM"), ("contains", "contains"),
         ("abstain_unanswerable", "abstain unans."), ("abstain_answerable", "abstain ans."),
         ("overall_correct", "overall"),
         ("citation_doc_of_correct", "cite doc"), ("seconds_total", "s/q")]


def qa_command(gold_path: Path, predictions: list[str] | None, settings: list[tuple[str, object]],
               out: Output, per_query: bool, permutations: int) -> None:
    """Score the answers (evaluation.qa_workflow.evaluate_answers) and print the comparison."""
    from ..evaluation.qa_workflow import evaluate_answers

    payload = evaluate_answers(gold_path, predictions, settings, per_query=per_query, permutations=permutations,
                               on_answer=_answered)
    out.data(payload, lambda console: _render(console, payload))


def _answered(name: str, number: int, total: int, seconds: float) -> None:
    stderr.print(f"[dim]{shown(name)}: {number}/{total} ({seconds:.0f}s)[/]")


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
