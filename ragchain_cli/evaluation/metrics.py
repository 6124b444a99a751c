"""IR metrics with trec_eval's definitions, named the way users type them (`ndcg@10`, `p@10`, `map`).

Matching trec_eval (and so pytrec_eval, ir_measures and published numbers):

* Ranking: by descending score, ties broken by *descending* docid (trec_eval's `comp_sim_docno`
  compares `strcmp(docno2, docno1)`). The rank column of a run file is ignored. Note that
  run files are *written* in ragchain's `(-score, docid)` order; trec_eval re-sorts them, and
  so does this module. Pass `ties="ragchain"` to score the order ragchain displays instead.
* Relevant means relevance > 0. nDCG gains are the relevance grades, discounted by
  log2(rank + 1); the ideal ranking is built from all of the query's judgements.
* AP, recall and nDCG divide by what the qrels hold, so unretrieved relevant documents count.
  P@k always divides by k. A judged query with no relevant document scores 0 everywhere.
* Queries: the mean is over every query in the qrels. A judged query the run does not answer
  scores 0 (trec_eval -c); a run query without judgements is skipped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..errors import UsageError
from ..types import Qrels, Run
from .runs import ranked


@dataclass(frozen=True)
class Judged:
    """One query's ranking reduced to what the metrics need."""

    gains: tuple[int, ...]  # relevance of each retrieved document, in rank order (0 when unjudged)
    ideal: tuple[int, ...]  # the positive judgements, highest first

    @property
    def num_rel(self) -> int:
        return len(self.ideal)


def _dcg(gains: Sequence[int]) -> float:
    return sum(gain / math.log2(index + 2) for index, gain in enumerate(gains) if gain > 0)


def ndcg(query: Judged, k: int | None) -> float:
    ideal = _dcg(query.ideal[:k])
    return _dcg(query.gains[:k]) / ideal if ideal > 0 else 0.0


def reciprocal_rank(query: Judged, k: int | None) -> float:
    return next((1.0 / rank for rank, gain in enumerate(query.gains[:k], start=1) if gain > 0), 0.0)


def average_precision(query: Judged, k: int | None) -> float:
    found, total = 0, 0.0
    for rank, gain in enumerate(query.gains[:k], start=1):
        if gain > 0:
            found += 1
            total += found / rank
    return total / query.num_rel if query.num_rel else 0.0


def recall(query: Judged, k: int | None) -> float:
    found = sum(1 for gain in query.gains[:k] if gain > 0)
    return found / query.num_rel if query.num_rel else 0.0


def precision(query: Judged, k: int | None) -> float:
    if k is None:
        raise UsageError("precision needs a cutoff", "write it as p@10")
    return sum(1 for gain in query.gains[:k] if gain > 0) / k


@dataclass(frozen=True)
class MetricSpec:
    function: Callable[[Judged, int | None], float]
    needs_cutoff: bool
    forms: str


METRICS: dict[str, MetricSpec] = {
    "ndcg": MetricSpec(ndcg, False, "ndcg@k, ndcg"),
    "mrr": MetricSpec(reciprocal_rank, False, "mrr@k, mrr (alias rr)"),
    "map": MetricSpec(average_precision, False, "map, map@k (alias ap)"),
    "recall": MetricSpec(recall, False, "recall@k, recall (alias r)"),
    "p": MetricSpec(precision, True, "p@k (alias precision@k)"),
}
# What `ragchain eval` reports unless --metrics (or a caller's `metrics`) says otherwise.
DEFAULT_METRICS = "ndcg@10,mrr@10,recall@100,map"
ALIASES = {"rr": "mrr", "ap": "map", "r": "recall", "precision": "p"}
_METRIC = re.compile(r"(?P<name>[a-z]+)(?:@(?P<k>[0-9]+))?")


@dataclass(frozen=True)
class Metric:
    label: str  # what the user typed; the key in every result
    name: str  # the registry key
    k: int | None

    def __call__(self, query: Judged) -> float:
        return METRICS[self.name].function(query, self.k)


def valid_forms() -> str:
    return "; ".join(spec.forms for spec in METRICS.values())


def parse_metric(text: str) -> Metric:
    """`"nDCG@10"` -> Metric("nDCG@10", "ndcg", 10); an unknown name or a bad cutoff is a UsageError."""
    match = _METRIC.fullmatch(text.strip().lower())
    name = match and ALIASES.get(match["name"], match["name"])
    if not match or name not in METRICS:
        raise UsageError(f"unknown metric {text!r}", f"valid forms: {valid_forms()}")
    k = int(match["k"]) if match["k"] else None
    if k == 0 or (k is None and METRICS[name].needs_cutoff):
        raise UsageError(f"metric {text!r} needs a cutoff of at least 1", f"valid forms: {valid_forms()}")
    return Metric(text.strip(), name, k)


def metric_names(metrics: str | Sequence[str]) -> list[str]:
    """A comma-separated list ("ndcg@10,map") or a sequence of names, blanks dropped and each checked
    by parse_metric (an unknown one is a UsageError); the names as given, stripped."""
    texts = metrics.split(",") if isinstance(metrics, str) else metrics
    names = [m.strip() for m in texts if m.strip()]
    for name in names:
        parse_metric(name)
    return names


def trec_eval_order(scores: Mapping[str, float]) -> list[str]:
    """Docids by descending score, ties by descending docid: what trec_eval does."""
    return [doc for doc, _ in sorted(scores.items(), key=lambda item: (item[1], item[0]), reverse=True)]


def ragchain_order(scores: Mapping[str, float]) -> list[str]:
    """Docids by descending score, ties by ascending docid: what ragchain shows and writes."""
    return [doc for doc, _ in ranked(scores)]


TIE_BREAKS: dict[str, Callable[[Mapping[str, float]], list[str]]] = {
    "trec_eval": trec_eval_order,
    "ragchain": ragchain_order,
}


def judge(scores: Mapping[str, float], judgements: Mapping[str, int], ties: str = "trec_eval") -> Judged:
    """Rank one query's scores and look each document up in its judgements."""
    if ties not in TIE_BREAKS:
        raise UsageError(f"unknown tie-break {ties!r}", f"choose one of: {', '.join(TIE_BREAKS)}")
    ranking = TIE_BREAKS[ties](scores)
    ideal = sorted((grade for grade in judgements.values() if grade > 0), reverse=True)
    return Judged(tuple(judgements.get(doc, 0) for doc in ranking), tuple(ideal))


@dataclass(frozen=True)
class EvalReport:
    """Means and per-query values, keyed by the metric labels, plus what was counted."""

    means: dict[str, float]
    per_query: dict[str, dict[str, float]]  # metric label -> qid -> value
    num_queries: int  # judged queries: the denominator of every mean
    num_evaluated: int  # judged queries the run answered
    num_missing: int  # judged queries the run did not answer, scored 0
    num_skipped: int  # run queries without judgements, ignored
    num_rel: int  # relevant judgements over all judged queries
    num_rel_retrieved: int  # of those, retrieved at any rank


def evaluate_report(qrels: Qrels, run: Run, metrics: Sequence[str], ties: str = "trec_eval") -> EvalReport:
    """Evaluate `run` against `qrels` for each metric name (see the module docstring for the rules)."""
    parsed = [parse_metric(text) for text in ([metrics] if isinstance(metrics, str) else metrics)]
    if not qrels:
        raise UsageError("the qrels hold no judged queries", "check the qrels file and its format")
    per_query: dict[str, dict[str, float]] = {metric.label: {} for metric in parsed}
    num_rel = num_rel_retrieved = 0
    for qid, judgements in qrels.items():
        query = judge(run.get(qid, {}), judgements, ties)
        num_rel += query.num_rel
        num_rel_retrieved += sum(1 for gain in query.gains if gain > 0)
        for metric in parsed:
            per_query[metric.label][qid] = metric(query)
    evaluated = sum(1 for qid in qrels if qid in run)
    return EvalReport(
        means={label: math.fsum(values.values()) / len(qrels) for label, values in per_query.items()},
        per_query=per_query,
        num_queries=len(qrels),
        num_evaluated=evaluated,
        num_missing=len(qrels) - evaluated,
        num_skipped=sum(1 for qid in run if qid not in qrels),
        num_rel=num_rel,
        num_rel_retrieved=num_rel_retrieved,
    )


def evaluate(qrels: Qrels, run: Run, metrics: Sequence[str], ties: str = "trec_eval") -> dict[str, float]:
    """{metric label: mean over the judged queries}."""
    return evaluate_report(qrels, run, metrics, ties).means


def evaluate_per_query(
    qrels: Qrels, run: Run, metrics: Sequence[str], ties: str = "trec_eval"
) -> dict[str, dict[str, float]]:
    """{metric label: {qid: value}} for every judged query."""
    return evaluate_report(qrels, run, metrics, ties).per_query
