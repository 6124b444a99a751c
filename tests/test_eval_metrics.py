"""Metrics: hand-computed values, trec_eval's tie and query rules, and agreement with ir_measures/pytrec_eval."""

from __future__ import annotations

import random
from math import log2

import pytest

from ragchain_cli.errors import UsageError
from ragchain_cli.evaluation.metrics import evaluate, evaluate_per_query, evaluate_report, parse_metric

# q1 ranks d1(3) d3(0) d2(2) d9(unjudged) d4(1); d5(1) is relevant but never retrieved: 4 relevant in all.
# q2 ranks x(0) y(unjudged) z(1): its first relevant document is at rank 3.
QRELS = {
    "q1": {"d1": 3, "d2": 2, "d3": 0, "d4": 1, "d5": 1},
    "q2": {"x": 0, "z": 1},
}
RUN = {
    "q1": {"d1": 0.9, "d3": 0.8, "d2": 0.7, "d9": 0.6, "d4": 0.5},
    "q2": {"x": 3.0, "y": 2.0, "z": 1.0},
}


def per_query(metric: str) -> dict[str, float]:
    return evaluate_per_query(QRELS, RUN, [metric])[metric]


def test_ndcg_uses_linear_gains_and_the_ideal_from_all_judgements():
    ideal_at_3 = 3 / log2(2) + 2 / log2(3) + 1 / log2(4)
    assert per_query("ndcg@3")["q1"] == pytest.approx((3 / log2(2) + 2 / log2(4)) / ideal_at_3, abs=1e-12)
    ideal_at_10 = 3 / log2(2) + 2 / log2(3) + 1 / log2(4) + 1 / log2(5)
    expected = (3 / log2(2) + 2 / log2(4) + 1 / log2(6)) / ideal_at_10
    assert per_query("ndcg@10")["q1"] == pytest.approx(expected, abs=1e-12)
    assert per_query("ndcg")["q1"] == pytest.approx(expected, abs=1e-12)
    assert per_query("ndcg@10")["q2"] == pytest.approx((1 / log2(4)) / (1 / log2(2)), abs=1e-12)


def test_reciprocal_rank_stops_at_the_cutoff():
    assert per_query("mrr@10") == {"q1": 1.0, "q2": pytest.approx(1 / 3)}
    assert per_query("mrr@2")["q2"] == 0.0
    assert per_query("mrr")["q2"] == pytest.approx(1 / 3)
    assert evaluate(QRELS, RUN, ["mrr@10"])["mrr@10"] == pytest.approx((1 + 1 / 3) / 2)


def test_average_precision_divides_by_every_relevant_judgement():
    assert per_query("map")["q1"] == pytest.approx((1 / 1 + 2 / 3 + 3 / 5) / 4)
    assert per_query("map@3")["q1"] == pytest.approx((1 / 1 + 2 / 3) / 4)
    assert per_query("map")["q2"] == pytest.approx((1 / 3) / 1)


def test_recall_and_precision():
    assert per_query("recall@3")["q1"] == pytest.approx(2 / 4)
    assert per_query("recall@100")["q1"] == pytest.approx(3 / 4)
    assert per_query("recall")["q1"] == pytest.approx(3 / 4)
    assert per_query("p@3")["q1"] == pytest.approx(2 / 3)
    assert per_query("p@10")["q1"] == pytest.approx(3 / 10)  # divides by k even though only 5 were retrieved
    assert per_query("precision@3")["q2"] == pytest.approx(1 / 3)


def test_negative_grades_are_not_relevant_and_add_no_gain():
    qrels = {"q": {"bad": -1, "good": 1}}
    run = {"q": {"bad": 2.0, "good": 1.0}}
    result = evaluate(qrels, run, ["ndcg@10", "map", "mrr"])
    assert result == {"ndcg@10": pytest.approx(1 / log2(3)), "map": pytest.approx(1 / 2), "mrr": pytest.approx(1 / 2)}


def test_ties_break_by_descending_docid_like_trec_eval():
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 1.0, "b": 1.0}}
    assert evaluate(qrels, run, ["mrr"])["mrr"] == pytest.approx(1 / 2)  # trec_eval ranks b before a
    assert evaluate(qrels, run, ["mrr"], ties="ragchain")["mrr"] == 1.0  # ragchain shows a first
    with pytest.raises(UsageError):
        evaluate(qrels, run, ["mrr"], ties="random")


def test_missing_queries_score_zero_and_unjudged_ones_are_skipped():
    qrels = {"q1": {"d": 1}, "q2": {"d": 1}, "q3": {"d": 0}}
    run = {"q1": {"d": 1.0}, "q3": {"d": 1.0}, "extra": {"d": 1.0}}
    report = evaluate_report(qrels, run, ["ndcg@10", "p@1"])
    assert report.per_query["ndcg@10"] == {"q1": 1.0, "q2": 0.0, "q3": 0.0}
    assert report.means == {"ndcg@10": pytest.approx(1 / 3), "p@1": pytest.approx(1 / 3)}
    assert (report.num_queries, report.num_evaluated, report.num_missing, report.num_skipped) == (3, 2, 1, 1)
    assert (report.num_rel, report.num_rel_retrieved) == (2, 1)


def test_metric_names_parse_leniently_and_results_keep_the_typed_label():
    assert parse_metric(" nDCG@10 ") == parse_metric("nDCG@10")
    assert (parse_metric("Precision@5").name, parse_metric("Precision@5").k) == ("p", 5)
    assert (parse_metric("MRR").name, parse_metric("MRR").k) == ("mrr", None)
    assert (parse_metric("map@100").name, parse_metric("map@100").k) == ("map", 100)
    assert set(evaluate(QRELS, RUN, ["nDCG@10", "P@5"])) == {"nDCG@10", "P@5"}
    assert set(evaluate(QRELS, RUN, "map")) == {"map"}


@pytest.mark.parametrize("text", ["bleu", "ndcg@", "ndcg@ten", "ndcg@0", "p", "precision", "map@-1", "", "@10"])
def test_unknown_or_malformed_metric_names_list_the_valid_forms(text):
    with pytest.raises(UsageError) as caught:
        parse_metric(text)
    assert "ndcg@k" in caught.value.hint and "p@k" in caught.value.hint


def test_empty_qrels_are_a_usage_error():
    with pytest.raises(UsageError):
        evaluate({}, RUN, ["map"])


def random_case(seed: int) -> tuple[dict, dict]:
    """Graded qrels and a run with coarse scores (many ties), ids of mixed length ("d7" vs "d10")."""
    rng = random.Random(seed)
    docs = [f"d{n}" for n in range(130)]
    qrels, run = {}, {}
    for number in range(60):
        qid = f"q{number}"
        qrels[qid] = {doc: rng.choice([0, 0, 1, 1, 2, 3]) for doc in rng.sample(docs, rng.randint(1, 40))}
        run[qid] = {doc: rng.randint(0, 12) / 4 for doc in rng.sample(docs, rng.randint(1, 125))}
    qrels["q0"] = {doc: 0 for doc in qrels["q0"]}  # judged, nothing relevant
    for number in range(1, 5):
        del run[f"q{number}"]  # judged but not answered
    run["unjudged"] = {"d1": 1.0}
    return qrels, run


# ir_measures is pinned to its trec_eval provider, which has no RR cutoff: RR@10 is checked as trec_eval's
# recip_rank zeroed below 1/10 (the first relevant document is within the top 10 iff 1/rank >= 1/10).
OURS_TO_IR_MEASURES = {"ndcg@10": "nDCG@10", "mrr": "RR", "map": "AP", "recall@100": "R@100", "p@10": "P@10"}


def ir_measures_per_query(qrels: dict, run: dict) -> dict[str, dict[str, float]]:
    ir_measures = pytest.importorskip("ir_measures")
    measures = {name: ir_measures.parse_measure(theirs) for name, theirs in OURS_TO_IR_MEASURES.items()}
    names = {measure: name for name, measure in measures.items()}
    theirs: dict[str, dict[str, float]] = {name: {} for name in measures}
    for row in ir_measures.pytrec_eval.iter_calc(list(measures.values()), qrels, run):
        theirs[names[row.measure]][row.query_id] = row.value
    theirs["mrr@10"] = {qid: value if value >= 0.1 - 1e-12 else 0.0 for qid, value in theirs["mrr"].items()}
    return theirs


def test_matches_ir_measures_per_query_with_graded_relevance_and_ties():
    qrels, run = random_case(seed=7)
    theirs = ir_measures_per_query(qrels, run)
    ours = evaluate_per_query(qrels, run, list(theirs))
    for name in theirs:
        assert set(theirs[name]) == set(qrels) == set(ours[name])
        for qid, value in theirs[name].items():
            assert ours[name][qid] == pytest.approx(value, abs=1e-9), (name, qid)
    assert any(0 < value < 0.1 for value in theirs["mrr"].values())  # the RR@10 cutoff is exercised
    ragchain_order = evaluate_per_query(qrels, run, list(theirs), ties="ragchain")
    assert ragchain_order != ours  # the data has ties that matter, so the tie rule is really being tested


def test_ragchain_tie_order_matches_the_ms_marco_evaluator():
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = random_case(seed=5)
    ours = evaluate_per_query(qrels, run, ["mrr@10"], ties="ragchain")["mrr@10"]
    rows = list(ir_measures.msmarco.iter_calc([ir_measures.parse_measure("RR@10")], qrels, run))
    assert {row.query_id for row in rows} <= set(ours)
    for row in rows:
        assert ours[row.query_id] == pytest.approx(row.value, abs=1e-9), row.query_id
    trec_order = evaluate_per_query(qrels, run, ["mrr@10"])["mrr@10"]
    assert any(trec_order[row.query_id] != pytest.approx(row.value) for row in rows)  # ties matter here


def test_matches_pytrec_eval_on_the_queries_both_hold():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = random_case(seed=11)
    names = {"ndcg@10": "ndcg_cut_10", "map": "map", "map@10": "map_cut_10", "recall@100": "recall_100", "p@10": "P_10"}
    measures = {"ndcg_cut.10", "map", "map_cut.10", "recall.100", "P.10", "recip_rank"}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    ours = evaluate_per_query(qrels, run, [*names, "mrr"])
    assert set(theirs) == set(qrels) & set(run)
    for qid, values in theirs.items():
        for name, key in {**names, "mrr": "recip_rank"}.items():
            assert ours[name][qid] == pytest.approx(values[key], abs=1e-9), (name, qid)


def test_means_match_ir_measures_aggregate_over_all_judged_queries():
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = random_case(seed=3)
    ours = evaluate(qrels, run, list(OURS_TO_IR_MEASURES))
    measures = [ir_measures.parse_measure(name) for name in OURS_TO_IR_MEASURES.values()]
    aggregate = ir_measures.pytrec_eval.calc_aggregate(measures, qrels, run)
    theirs = {str(measure): value for measure, value in aggregate.items()}
    for name, their_name in OURS_TO_IR_MEASURES.items():
        assert ours[name] == pytest.approx(theirs[their_name], abs=1e-9), name
