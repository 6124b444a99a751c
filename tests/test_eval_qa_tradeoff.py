"""The abstention trade-off (evaluation/qa_tradeoff.py) on a hand-computed case."""

import math

import pytest

from ragchain_cli.evaluation.qa_io import GoldQuestion
from ragchain_cli.evaluation.qa_tradeoff import evidence_score, score_grid, tradeoff

GOLD = [GoldQuestion("How many airports?", ("two",)), GoldQuestion("Capital of France?", ("Paris",)),
        GoldQuestion("Who proved it in 1901?", ()), GoldQuestion("Who proved it in 1902?", ())]


def _answer(text, score, answered=True):
    return {"answer": text, "answered": answered, "evidence": {"score": score}}


PREDICTIONS = [_answer("two [1]", 1.5), _answer("London", 0.5), _answer("Fleming", -1.0),
               _answer("The model gave no answer.", 2.0, answered=False)]  # the model itself found nothing


def test_tradeoff_by_hand():
    rows = tradeoff(GOLD, PREDICTIONS, [-math.inf, 0.0, 1.0, math.inf])
    figures = [(r["correct_answerable"], r["abstained_unanswerable"], r["abstained_answerable"], r["overall_correct"])
               for r in rows]
    # -inf: all but the model's own refusal answered: 1 of 2 right, 1 of 2 unanswerable silent -> (1 + 1) / 4
    # 0: "Fleming" (-1.0) dropped: both unanswerable silent -> (1 + 2) / 4
    # 1: "London" (0.5) dropped too: one answerable silent, still 1 right -> 3 / 4
    # +inf: nothing answered -> (0 + 2) / 4
    assert figures == [(0.5, 0.5, 0.0, 0.5), (0.5, 1.0, 0.0, 0.75), (0.5, 1.0, 0.5, 0.75), (0.0, 1.0, 1.0, 0.5)]
    assert [r["threshold"] for r in rows] == [-math.inf, 0.0, 1.0, math.inf]


def test_a_prediction_without_evidence_is_never_answered():
    blank = {"question": "", "answer": "", "answered": False}
    assert evidence_score(blank) is None and evidence_score(_answer("x", 0.25)) == 0.25
    row, = tradeoff(GOLD[:1], [{"answer": "two", "answered": True}], [-math.inf])
    assert row["correct_answerable"] == 0.0 and row["abstained_answerable"] == 1.0
    assert row["abstained_unanswerable"] is None  # no unanswerable question to count


def test_a_question_below_the_judge_s_bar_is_refused_at_every_threshold():
    judged = [*PREDICTIONS[:2], {**PREDICTIONS[2], "evidence": {"score": -1.0, "judge": 0.2, "judge_bar": 0.5}},
              PREDICTIONS[3]]
    # "Fleming" is answered at -inf on its score alone; below the judge's bar, both unanswerable questions are silent
    row, = tradeoff(GOLD, judged, [-math.inf])
    assert (row["correct_answerable"], row["abstained_unanswerable"], row["overall_correct"]) == (0.5, 1.0, 0.75)

def test_score_grid_holds_the_extremes_the_marks_and_quantiles():
    # scores sorted -1.0 0.5 1.5 2.0; two steps: the median quantile -> index ceil(4 / 2) = 2 -> 1.5
    assert score_grid(PREDICTIONS, steps=2, marks=[0.0]) == [-math.inf, 0.0, 1.5, math.inf]
    assert score_grid([], steps=4, marks=[-2.2]) == [-math.inf, -2.2, math.inf]
    assert tradeoff(GOLD, PREDICTIONS, [0.0])[0]["overall_correct"] == pytest.approx(0.75)
