"""Scoring `ask` predictions against gold questions: per question, per configuration, side by side.

The measures are qa.py's (SQuAD v2.0 exact match and token F1, key words, gold contained); an
abstention is a prediction whose "answered" is false, and its text is then the empty answer.
Per question (None where a value does not apply):
- exact_match, f1, contains, keyword_recall, correct: answerable questions only; an abstention
  scores 0 on all of them.
- abstained: 1.0 when the prediction's "answered" is false.
- overall_exact_match, overall_f1, overall_correct: every question, SQuAD v2.0's convention: on
  an answerable question the value above, on an unanswerable one 1.0 when it abstained, else 0.0.
- citation_doc: an answered, answerable question: 1.0 when a cited passage ("cited" true) comes
  from the gold doc_id (None without a gold doc_id). citation_text: 1.0 when a cited passage's text
  contains a gold answer after normalisation (None when every gold is yes/no, or when the hits
  carry no "text", as ask's JSON before issue 13 did not: its 240-character snippets are no proof).
- seconds_retrieve, seconds_generate, seconds_total: the prediction's timings (generate: none when no
  model ran, e.g. a refusal before drafting).
Per configuration the means over the questions each applies to: correct (correct on answerable),
abstain_unanswerable (abstained on unanswerable) and the overall_* figures over all questions among
them; citation support over the correct answers, and over all answered ones; medians for the
seconds; and the paired randomisation test of compare.py against the first configuration for the
paired metrics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from . import qa
from .compare import PERMUTATIONS, randomization_test
from .qa_io import GoldQuestion

ANSWER_METRICS = ("exact_match", "f1", "contains", "keyword_recall", "correct")
OVERALL = {"overall_exact_match": "exact_match", "overall_f1": "f1", "overall_correct": "correct"}
TIMINGS = {"seconds_retrieve": "retrieve", "seconds_generate": "generate", "seconds_total": "total"}
# summary metric -> (per-question value, which questions): tested pairwise against the baseline
PAIRED = {**{m: (m, "answerable") for m in ANSWER_METRICS},
          "abstain_answerable": ("abstained", "answerable"), "abstain_unanswerable": ("abstained", "unanswerable"),
          **{m: (m, "all") for m in OVERALL}, "seconds_total": ("seconds_total", "all")}


def score_question(gold: GoldQuestion, prediction: Mapping) -> dict[str, float | None]:
    """Every per-question value of one prediction (see the module docstring)."""
    answered = bool(prediction.get("answered", True))
    row: dict[str, float | None] = {"abstained": float(not answered)}
    text = qa.strip_citations(prediction.get("answer", "")) if answered else ""
    answers = gold.answers
    row.update({
        "exact_match": qa.exact_match(text, answers), "f1": qa.token_f1(text, answers),
        "contains": qa.contains_gold(text, answers), "keyword_recall": qa.keyword_recall(text, answers),
        "correct": qa.is_correct(text, answers),
    } if gold.answerable else dict.fromkeys(ANSWER_METRICS))
    row.update({name: row[of] if gold.answerable else row["abstained"] for name, of in OVERALL.items()})
    row.update(_citation_support(gold, prediction) if gold.answerable and answered
               else {"citation_doc": None, "citation_text": None})
    timings = prediction.get("timings") or {}
    for name, key in TIMINGS.items():
        value = timings.get(key)
        row[name] = float(value) if isinstance(value, (int, float)) else None
    return row


def cited_passages(prediction: Mapping) -> list[Mapping]:
    """The hits the answer cites: citation number n is hits[n - 1]; uncited "consulted" sources skipped."""
    hits = prediction.get("hits") or []
    chosen = []
    for citation in prediction.get("citations") or []:
        number = citation.get("number")
        if citation.get("cited", True) and isinstance(number, int) and 1 <= number <= len(hits):
            chosen.append(hits[number - 1])
    return chosen


def _citation_support(gold: GoldQuestion, prediction: Mapping) -> dict[str, float | None]:
    passages = cited_passages(prediction)
    by_doc = None if gold.doc_id is None else float(any(p.get("doc_id") == gold.doc_id for p in passages))
    if all(qa.polar_word(a) for a in gold.answers) or any(not isinstance(p.get("text"), str) for p in passages):
        by_text = None  # nothing to look for, or the payload lacks the passage text (ask before issue 13)
    else:
        by_text = float(any(qa.passage_contains(p["text"], gold.answers) for p in passages))
    return {"citation_doc": by_doc, "citation_text": by_text}


def summarise(gold: Sequence[GoldQuestion], rows: Sequence[Mapping]) -> dict[str, float | None]:
    """One configuration's figures from its per-question rows (same order as gold)."""
    answerable = [r for g, r in zip(gold, rows) if g.answerable]
    unanswerable = [r for g, r in zip(gold, rows) if not g.answerable]
    summary = {m: qa.mean([r[m] for r in answerable]) for m in ANSWER_METRICS}
    summary.update({m: qa.mean([r[m] for r in rows]) for m in OVERALL})
    answered = [r for r in answerable if not r["abstained"]]
    right = [r for r in answered if r["correct"]]
    summary["correct_when_answered"] = qa.mean([r["correct"] for r in answered])
    summary["abstain_answerable"] = qa.mean([r["abstained"] for r in answerable])
    summary["abstain_unanswerable"] = qa.mean([r["abstained"] for r in unanswerable])
    for kind in ("doc", "text"):
        key = f"citation_{kind}"
        summary[f"{key}_of_correct"] = qa.mean([r[key] for r in right if r[key] is not None])
        summary[f"{key}_of_answered"] = qa.mean([r[key] for r in answered if r[key] is not None])
    for name in TIMINGS:
        summary[name] = qa.median([r[name] for r in rows if r[name] is not None])
    return summary


def counts(gold: Sequence[GoldQuestion], rows: Sequence[Mapping], predictions: Sequence[Mapping]) -> dict:
    answerable = [r for g, r in zip(gold, rows) if g.answerable]
    return {"questions": len(gold), "answerable": len(answerable), "unanswerable": len(gold) - len(answerable),
            "answered": sum(1 for r in rows if not r["abstained"]),
            "correct": int(sum(r["correct"] or 0 for r in answerable)),
            "abstained_unanswerable": int(sum(r["abstained"] for g, r in zip(gold, rows) if not g.answerable)),
            "yes_no_gold": sum(1 for g in gold if g.answers and all(qa.polar_word(a) for a in g.answers)),
            "flagged_unsupported": sum(1 for p in predictions if p.get("answered") and p.get("supported") is False)}


def compare(gold: Sequence[GoldQuestion], rows_by_config: Mapping[str, Sequence[Mapping]],
            permutations: int = PERMUTATIONS, seed: int = 0) -> dict[str, dict[str, dict]]:
    """{config: {"diff": {metric: d}, "p_value": {metric: p}}} against the first configuration, for
    the PAIRED metrics over the questions where both configurations have a value."""
    names = list(rows_by_config)
    base = rows_by_config[names[0]]
    out = {names[0]: {"diff": {}, "p_value": {}}}
    for name in names[1:]:
        diff, p_value = {}, {}
        for metric, (value, which) in PAIRED.items():
            pairs = [(r[value], b[value]) for g, r, b in zip(gold, rows_by_config[name], base)
                     if _applies(g, which) and r[value] is not None and b[value] is not None]
            if not pairs:
                continue
            ours, theirs = [p[0] for p in pairs], [p[1] for p in pairs]
            diff[metric] = _paired_diff(metric, ours, theirs)
            p_value[metric] = randomization_test(ours, theirs, permutations, seed)
        out[name] = {"diff": diff, "p_value": p_value}
    return out


def _applies(gold: GoldQuestion, which: str) -> bool:
    return which == "all" or (which == "answerable") == gold.answerable


def _paired_diff(metric: str, ours: list[float], theirs: list[float]) -> float:
    if metric.startswith("seconds"):  # the summary reports medians of seconds
        return qa.median(ours) - qa.median(theirs)
    return qa.mean(ours) - qa.mean(theirs)
